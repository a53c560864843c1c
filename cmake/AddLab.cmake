# add_lab(<dir>): everything of one lab, found by naming convention, so adding a lab touches only its own folders.
#
#   labs/NN_name/                      solutions/NN_name/
#     <contract>.hpp  launcher types     solution.cu      the reference   -> implementation "reference"
#     *.cpp           problems, CPU refs wrong/<bug>.cu   known-wrong     -> implementation "wrong_<bug>"
#                     (both sides of the grading boundary build them: the referee and every runner)
#     support/        the referee's own: what it times beside the exercises (ceilings, library peers, metrics:
#                     harness/measures.hpp) and their kernels (*.cu, *.cpp); no runner links them
#     lab.cmake       optional: extra settings for the target named ${target} (e.g. linking cuBLAS); included for
#                     the referee's side only (support/ and the lab binary), never for a runner
#     stub.cu         the shipped stub   -> "stub" (what the self-check grades as the student), and "baseline"
#                     unless the lab has a baseline.cu
#                                      solutions/NN_name/middle.cu   optional -> "middle" (labN-fixtures), halfway
#                     between the baseline and the reference: the repeatability benchmark's known middle
#     student.cu      the student's copy -> "student"; made from stub.cu at the first configure (delete it to start
#                     over); LABN_STUDENT_SOURCE points elsewhere to grade a submission
#                                      solutions/NN_name/baseline.cu   optional -> "baseline", the zero of the grading
#                     scale, which no student edit moves: in a staircase lab, each stage's baseline is the previous
#                     stage's reference, which the shipped stub must not hand over (so the stub starts elsewhere)
#     cpu_tests.cpp   Catch2 tests of the CPU side, run in CI
#     manifest.json   points, read by the grader at run time and here for the tests
#
# Builds the executable labN at the build root (and `grade` with it), labN-fixtures with the known-wrong fixtures for
# the tests, and registers the GPU tests (skipped, exit 111, without a GPU) and the CPU tests.
include(${CMAKE_CURRENT_LIST_DIR}/Contract.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/StudentCopy.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/SubmissionRecipe.cmake)

function(add_lab dir)
  get_filename_component(id ${dir} NAME)
  string(REGEX MATCH "^([0-9]+)_" _ ${id})
  math(EXPR number "${CMAKE_MATCH_1}")
  set(lab lab${number})
  set(solutions ${PROJECT_SOURCE_DIR}/solutions/${id})

  # The student's working copy starts as the stub. It is not tracked, so the shipped stub stays what the self-check grades; a stub
  # changed after the copy was made is reported, the copy kept (cmake/StudentCopy.cmake).
  course_student_copy(${dir})
  string(TOUPPER ${lab} LAB)
  set(${LAB}_STUDENT_SOURCE ${dir}/student.cu CACHE FILEPATH
      "The file compiled as ${lab}'s 'student' implementation (point it at a submission to grade it)")
  if(NOT ${LAB}_STUDENT_SOURCE)  # -DLAB1_STUDENT_SOURCE= (empty) goes back to the lab's own student.cu
    set_property(CACHE ${LAB}_STUDENT_SOURCE PROPERTY VALUE ${dir}/student.cu)
  elseif(NOT EXISTS ${${LAB}_STUDENT_SOURCE})
    message(FATAL_ERROR "${LAB}_STUDENT_SOURCE: no such file: ${${LAB}_STUDENT_SOURCE}")
  endif()

  # What an implementation may include: build/contract/NN_name/ (cmake/Contract.cmake), its only include directory.
  set(contract ${PROJECT_BINARY_DIR}/contract/${id})
  course_contract(${dir} ${contract} ${PROJECT_SOURCE_DIR} contract_headers)

  file(GLOB cpu_sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  list(FILTER cpu_sources EXCLUDE REGEX "/cpu_tests\\.cpp$")
  file(GLOB support_sources CONFIGURE_DEPENDS ${dir}/support/*.cu ${dir}/support/*.cpp)

  # The lab's problem definitions (problems, CPU references), compiled once for the lab binary, every runner and the
  # CPU tests.
  set(sources ${lab}_sources)
  add_library(${sources} OBJECT ${cpu_sources})
  target_compile_definitions(${sources} PUBLIC HARNESS_LAB=${id})
  target_include_directories(${sources} PUBLIC ${dir})
  target_link_libraries(${sources} PUBLIC harness_common nlohmann_json::nlohmann_json)
  # Exercise specs are designated initializers that leave optional members out on purpose.
  target_compile_options(${sources} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>)
  # The referee's own lab code (support/): measures and their kernels, for the lab binary only (a lab without one is
  # timed against the copy of its work).
  set(measures)
  if(support_sources)
    set(measures ${lab}_measures)
    add_library(${measures} OBJECT ${support_sources})
    target_link_libraries(${measures} PUBLIC ${sources} harness_referee)
    target_compile_options(${measures} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>)
    _lab_settings(${measures} ${dir})
  endif()

  # labN, the referee: problems, inputs, references, checks, timing, measures; no implementation. Each
  # implementation runs in a runner program of its own, runners/labN-<impl> (harness/referee/include/harness/
  # runner.hpp). `make labN` builds what `./grade labN` needs and nothing else: labN, the student's, the reference's
  # and the baseline's runners, and `grade`. The known-wrong fixtures are instructors' business: target labN-fixtures (part of `make all`).
  _lab_binary(${lab} ${dir} ${sources} "${measures}")
  add_dependencies(${lab} grade)
  set_property(GLOBAL APPEND PROPERTY COURSE_LAB_TARGETS ${lab})
  set(fixtures ${lab}-fixtures)
  _lab_implementation(${lab} ${dir} ${sources} student ${${LAB}_STUDENT_SOURCE})
  # The baseline: the lab's own baseline.cu where it has one (in a student kit, as a prebuilt object), else the stub.
  set(baseline_source ${dir}/stub.cu)
  if(EXISTS ${solutions}/baseline.cu OR EXISTS ${PROJECT_SOURCE_DIR}/prebuilt/${id}/baseline.o)
    set(baseline_source ${solutions}/baseline.cu)
  endif()
  _lab_implementation(${lab} ${dir} ${sources} baseline ${baseline_source})
  _lab_implementation(${lab} ${dir} ${sources} reference ${solutions}/solution.cu)
  # The course's two timed implementations in one runner, runners/labN-reference+baseline, which `labN time` uses for
  # both where it is there: one CUDA context fewer a timed run, and the host makes contexts one at a time for every
  # GPU it has (harness/referee/include/harness/runner.hpp).
  set(course_runner ${lab}-reference+baseline)
  add_executable(${course_runner})
  target_link_libraries(${course_runner} PRIVATE harness_runner_main ${sources} ${lab}_reference ${lab}_baseline)
  set_target_properties(${course_runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${COURSE_BIN_DIR}/runners)
  add_dependencies(${lab} ${course_runner})

  file(GLOB wrong_sources CONFIGURE_DEPENDS ${solutions}/wrong/*.cu)
  set(wrong_impls)
  add_custom_target(${fixtures})
  # The shipped stub as an implementation of its own, for the self-check (instructors' business, like the fixtures).
  _lab_implementation(${fixtures} ${dir} ${sources} stub ${dir}/stub.cu)
  # The known-middle fixture, solutions/NN_name/middle.cu: right, and about halfway between the baseline and the
  # reference on every exercise with performance points, so that the repeatability benchmark (scripts/gpu-check.sh
  # repeatability) sees how much a grade in the middle of its scale moves from run to run and machine to machine.
  file(GLOB middle_source CONFIGURE_DEPENDS ${solutions}/middle.cu)
  if(middle_source)
    _lab_implementation(${fixtures} ${dir} ${sources} middle ${middle_source})
  endif()
  foreach(source IN LISTS wrong_sources)
    get_filename_component(bug ${source} NAME_WE)
    _lab_implementation(${fixtures} ${dir} ${sources} wrong_${bug} ${source})
    # Fixtures only compute-sanitizer can catch pass `check`: tests/sanitizer/ tests them instead.
    file(STRINGS ${source} first LIMIT_COUNT 1)
    if(NOT first MATCHES "decided on the GPU: compute-sanitizer")
      list(APPEND wrong_impls wrong_${bug})
    endif()
  endforeach()
  # Hostile fixtures, solutions/NN_name/hostile/<exercise>-<trick>.cu: right answers with a trick that only a run
  # can see. Those whose header says "must refuse" are GPU tests: `labN time` must call their output wrong; "must be
  # harmless": `labN check` must pass, because the trick fails. (Their first line is the static check's expected
  # verdict: tests/exploits/CMakeLists.txt.)
  file(GLOB hostile_sources CONFIGURE_DEPENDS ${solutions}/hostile/*.cu)
  set(hostile_tests)
  foreach(source IN LISTS hostile_sources)
    get_filename_component(trick ${source} NAME_WE)
    string(REGEX REPLACE "-.*" "" exercise ${trick})
    _lab_implementation(${fixtures} ${dir} ${sources} hostile_${trick} ${source})
    file(STRINGS ${source} header LIMIT_COUNT 3)
    if(header MATCHES "must refuse")
      add_test(NAME ${lab}.hostile_${trick}.refused
               COMMAND ${lab} time --impl hostile_${trick} --exercise ${exercise} --max-seconds 2)
      set_tests_properties(${lab}.hostile_${trick}.refused PROPERTIES PASS_REGULAR_EXPRESSION "\"correct\": false")
      list(APPEND hostile_tests ${lab}.hostile_${trick}.refused)
    elseif(header MATCHES "must be harmless")
      # Its trick must fail: it answers right only when it could not do what it tried, so the check must pass.
      add_test(NAME ${lab}.hostile_${trick}.harmless COMMAND ${lab} check --impl hostile_${trick} --exercise ${exercise})
      list(APPEND hostile_tests ${lab}.hostile_${trick}.harmless)
      # "(only sandboxed)": its trick is stopped by the runner's sandbox alone; without it (COURSE_RUNNER_SANDBOX=0)
      # the check must reject it, so that the test above is known to fail when the sandbox is gone.
      if(header MATCHES "must be harmless \\(only sandboxed\\)")
        set(name ${lab}.hostile_${trick}.unsandboxed.rejected)
        add_test(NAME ${name} COMMAND ${lab} check --impl hostile_${trick} --exercise ${exercise} --expect-reject)
        set_tests_properties(${name} PROPERTIES ENVIRONMENT COURSE_RUNNER_SANDBOX=0)
        list(APPEND hostile_tests ${name})
      endif()
    endif()
  endforeach()

  # GPU tests, one per implementation and exercise where it helps a failure say what broke.
  file(READ ${dir}/manifest.json manifest)
  string(JSON count LENGTH "${manifest}" exercises)
  math(EXPR last "${count} - 1")
  set(gpu_tests ${lab}.reference ${lab}.baseline)
  add_test(NAME ${lab}.reference COMMAND ${lab} check --impl reference)
  add_test(NAME ${lab}.baseline COMMAND ${lab} check --impl baseline)  # always right: it is timed in every grade
  if(middle_source)  # right, or its grades say nothing about the middle of the scale
    add_test(NAME ${lab}.middle COMMAND ${lab} check --impl middle)
    list(APPEND gpu_tests ${lab}.middle)
  endif()
  foreach(i RANGE ${last})
    string(JSON exercise GET "${manifest}" exercises ${i} name)
    string(JSON stub GET "${manifest}" exercises ${i} stub)
    if(stub STREQUAL "incorrect")
      add_test(NAME ${lab}.stub.${exercise} COMMAND ${lab} check --impl student --exercise ${exercise} --expect-reject)
    else()
      add_test(NAME ${lab}.stub.${exercise} COMMAND ${lab} check --impl student --exercise ${exercise})
    endif()
    list(APPEND gpu_tests ${lab}.stub.${exercise})
  endforeach()
  foreach(impl IN LISTS wrong_impls)
    add_test(NAME ${lab}.${impl}.rejected COMMAND ${lab} check --impl ${impl} --expect-reject)
    list(APPEND gpu_tests ${lab}.${impl}.rejected)
  endforeach()
  # The checker's mutation suite through the real binary (issue 13): the reference's runner spoiling its outputs in
  # every generic way (harness/runner/src/mutations.hpp) must be rejected by `check`, and by the verification of
  # timed runs for the lab's first exercise (the same device path serves every exercise).
  set(mutant_tests)
  foreach(mutation zeros constant sampled_only shifted tail_missing one_element_off nan stale)
    add_test(NAME ${lab}.mutant_${mutation}.rejected
             COMMAND ${lab} check --impl mutant:${mutation} --seeds 1,2 --expect-reject)
    list(APPEND gpu_tests ${lab}.mutant_${mutation}.rejected)
  endforeach()
  string(JSON first_exercise GET "${manifest}" exercises 0 name)
  foreach(mutation sampled_only stale)
    set(name ${lab}.mutant_${mutation}.timed_${first_exercise}.refused)
    add_test(NAME ${name} COMMAND ${lab} time --impl mutant:${mutation} --exercise ${first_exercise} --max-seconds 1)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "\"correct\": false")
    list(APPEND mutant_tests ${name})
  endforeach()
  set_tests_properties(${gpu_tests} ${hostile_tests} ${mutant_tests} PROPERTIES SKIP_RETURN_CODE 111
                       LABELS "gpu;${lab}")

  # CPU tests of the lab (references, generators, the manifest agreeing with the code): run in CI.
  set(cpu_test_target ${lab}_cpu_tests)
  add_executable(${cpu_test_target} ${PROJECT_SOURCE_DIR}/tests/labs/lab_consistency.cpp
                 ${PROJECT_SOURCE_DIR}/tests/labs/lab_mutations.cpp)
  if(EXISTS ${dir}/cpu_tests.cpp)
    target_sources(${cpu_test_target} PRIVATE ${dir}/cpu_tests.cpp)
  endif()
  target_compile_definitions(${cpu_test_target} PRIVATE LAB_MANIFEST="${dir}/manifest.json")
  target_link_libraries(${cpu_test_target} PRIVATE ${sources} harness_referee Catch2::Catch2WithMain)
  target_compile_options(${cpu_test_target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>)
  # One label: catch_discover_tests splits a list value into separate arguments (and then drops SKIP_RETURN_CODE);
  # the lab is in the test names (labN.cpu.*).
  catch_discover_tests(${cpu_test_target} TEST_PREFIX "${lab}.cpu." PROPERTIES SKIP_RETURN_CODE 4 LABELS cpu)
  course_submission_recipe(${lab} ${dir})  # build/submission/labN.json, for `grade batch`

  # The student's runner holds nothing of the referee's (tests/harness/boundary_test.cmake). CPU: it reads the build.
  set(boundary_test ${PROJECT_SOURCE_DIR}/tests/harness/boundary_test.cmake)
  if(EXISTS ${boundary_test})  # not in the student kit
    set(measures_objects)
    if(measures)
      set(measures_objects "-DMEASURES=$<TARGET_OBJECTS:${measures}>")
    endif()
    add_test(NAME ${lab}.boundary.student_runner_holds_nothing_of_the_referee
             COMMAND ${CMAKE_COMMAND} -DRUNNER=$<TARGET_FILE:${lab}-student> -DREFEREE=$<TARGET_FILE:harness_referee>
                     ${measures_objects}
                     "-DSHARED=$<TARGET_FILE:harness_common>;$<TARGET_FILE:harness_runner>;$<TARGET_OBJECTS:harness_runner_main>;$<TARGET_OBJECTS:${sources}>"
                     -DNM=${CMAKE_NM} -DREADELF=${CMAKE_READELF} -P ${boundary_test})
    set_tests_properties(${lab}.boundary.student_runner_holds_nothing_of_the_referee PROPERTIES LABELS cpu)
  endif()
endfunction()

# A lab executable at the build root: main() of every lab binary, the lab's own code and measures, its extra settings.
function(_lab_binary name dir sources measures)
  add_executable(${name})
  target_link_libraries(${name} PRIVATE harness_lab_main ${sources} ${measures})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${COURSE_BIN_DIR})
  _lab_settings(${name} ${dir})
endfunction()

# The lab's optional lab.cmake (extra libraries, say) applied to `target`.
function(_lab_settings target dir)
  if(EXISTS ${dir}/lab.cmake)
    include(${dir}/lab.cmake)
  endif()
endfunction()

# Implementation `impl` of the lab from `source`: a runner program runners/<lab>-<impl> that `owner` (labN, or the
# labN-fixtures target) depends on. Called from add_lab(), whose `contract` and `contract_headers` it reads.
function(_lab_implementation owner dir sources impl source)
  string(REGEX REPLACE "-fixtures$" "" lab ${owner})
  # The student kit (cmake/StudentKit.cmake): compiles the reference for the kit, or, in a kit, where its source is
  # absent, makes ${lab}_${impl} the prebuilt object.
  course_kit_implementation(${lab}_${impl} ${dir} ${impl} ${source})
  if(NOT TARGET ${lab}_${impl})
    if(NOT EXISTS ${source})
      message(FATAL_ERROR "${lab}: implementation '${impl}' expects ${source}")
    endif()
    add_library(${lab}_${impl} OBJECT ${source})
    target_compile_definitions(${lab}_${impl} PRIVATE HARNESS_IMPL=${impl})
    target_include_directories(${lab}_${impl} PRIVATE ${contract})
    # The known-wrong and hostile fixtures model submissions of before the contract (lab 03's wrong_shrinks_test_shapes
    # edits the lab's test shapes through harness/problem.hpp): the course's own build lets them reach the harness,
    # so that their GPU tests still show what the runner boundary does with them.
    if(impl MATCHES "^(wrong|hostile)_")
      target_link_libraries(${lab}_${impl} PRIVATE harness_headers)
    endif()
  endif()
  # The student's object is checked before anything links it (cmake/StaticCheck.cmake, docs/static-check.md): a
  # refused submission stops the build with one line per finding.
  # The runner links the runner's harness, the lab's problem definitions and the implementation: nothing of the
  # referee's, and no library of lab.cmake (tests/harness/boundary_test.cmake holds it to that).
  set(runner ${lab}-${impl})
  add_executable(${runner})
  target_link_libraries(${runner} PRIVATE harness_runner_main ${sources} ${lab}_${impl})
  set_target_properties(${runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${COURSE_BIN_DIR}/runners)
  add_dependencies(${owner} ${runner})
  if(impl STREQUAL "student")
    # The submission's compile reads the system's folders, its own file and the contract, and writes its object:
    # nothing else of the course or of anyone's (grader/confine.hpp). Its quoted includes may find the contract's
    # headers beside it, in the lab's folder, where student.cu lives.
    set(reads --read ${source} --read ${contract})
    foreach(name IN LISTS contract_headers)
      list(APPEND reads --read ${dir}/${name})
    endforeach()
    set_target_properties(${lab}_${impl} PROPERTIES CUDA_COMPILER_LAUNCHER
        "${COURSE_BIN_DIR}/confined;${reads};--write;${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${lab}_${impl}.dir;--")
    add_dependencies(${lab}_${impl} confined)
    course_check_submission(LAB_TARGET ${runner} OBJECT_LIBRARY ${lab}_${impl} SOURCE ${source}
                            MANIFEST ${dir}/manifest.json CONTRACT ${contract})
  endif()
endfunction()
