# The student kit: an archive a student builds and grades from without the reference solutions' sources.
#
# In the course's tree, `make student-kit` (target defined by course_add_student_kit()) writes
# <build>/${COURSE_KIT_NAME}.tar.gz: the labs of this build (COURSE_LABS, so a kit can release labs one at a time),
# the harness, the grader, cmake/, the presets, the docs the sheets link to, the kit's README (kit/README.md), and each
# lab's reference (and baseline, where the lab has its own: cmake/AddLab.cmake) only as objects,
# prebuilt/NN_name/{reference,baseline}.o, SASS only for COURSE_KIT_SASS_ARCHITECTURES (prebuilt/architectures.txt).
# kit/package.cmake assembles it. Nothing of solutions/ (fixtures included), tests/ (but the lab CPU tests' two
# sources that add_lab() compiles), experiments/ or results/ goes in.
#
# In the kit, where solutions/NN_name/solution.cu is absent and prebuilt/NN_name/reference.o is present,
# course_kit_implementation() makes labN_reference an IMPORTED object library of that object: the runner links it as
# it would link the compiled source. Fixtures need no change: their globs find nothing.

set(COURSE_KIT_NAME ${PROJECT_NAME}-student-kit)
set(_course_kit_root ${CMAKE_CURRENT_LIST_DIR}/..)
# Implementations the kit ships compiled where their source is in solutions/ (a baseline that is the lab's own stub
# is in labs/ already, and is compiled from there).
set(_course_kit_compiled reference baseline)

# Machine code (SASS) only, never PTX: PTX is the reference in readable form (every loop, index and address
# computation; `cuobjdump -ptx` prints it), so the kit's objects carry SASS for each architecture it serves, and a
# GPU can run the reference only where one of them fits it. SASS of compute capability X.Y runs on X.Z for Z >= Y,
# so the default is the portable list (7.5 to 9.0) and the first architecture of each newer major this nvcc builds
# for (10.0: B200, B300; 11.0: Jetson Thor; 12.0: RTX 50 series, DGX Spark): every GPU from 7.5 to 12.x. A new
# name (it was COURSE_KIT_CUDA_ARCHITECTURES, with PTX for 9.0), so that no build folder keeps the old default.
execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-code OUTPUT_VARIABLE _course_nvcc_codes ERROR_QUIET)
set(_course_kit_default ${COURSE_PORTABLE_CUDA_ARCHITECTURES})
foreach(arch 100 110 120)
  string(FIND "\n${_course_nvcc_codes}" "\nsm_${arch}\n" _at)
  if(_at GREATER -1)
    list(APPEND _course_kit_default ${arch})
  endif()
endforeach()
set(COURSE_KIT_SASS_ARCHITECTURES "${_course_kit_default}" CACHE STRING
    "CUDA architectures (75;80;...) of the student kit's prebuilt references: SASS for each, no PTX")
# As CUDA_ARCHITECTURES, each one -real (SASS alone). Anything else is refused rather than shipped: a -virtual or
# plain entry is PTX, and an arch-specific one (90a) runs on one GPU only.
set(_course_kit_sass)
foreach(arch IN LISTS COURSE_KIT_SASS_ARCHITECTURES)
  if(NOT arch MATCHES "^([0-9]+)(-real)?$")
    message(FATAL_ERROR "COURSE_KIT_SASS_ARCHITECTURES: '${arch}' is not an architecture number (75, 90, 120): "
                        "the student kit ships SASS only, for whole architecture families")
  endif()
  list(APPEND _course_kit_sass ${CMAKE_MATCH_1})
endforeach()
list(TRANSFORM _course_kit_sass APPEND -real OUTPUT_VARIABLE _course_kit_archs)

# course_kit_implementation(<target> <lab dir> <impl> <source>), called by add_lab() for every implementation.
# In the course's tree: a second, kit-only object library <target>_kit of the reference (built by `make student-kit`,
# never by `make`). In a kit: <target> as the prebuilt object when <source> is absent.
function(course_kit_implementation target dir impl source)
  if(NOT impl IN_LIST _course_kit_compiled OR source MATCHES "^${dir}/")
    return()
  endif()
  get_filename_component(id ${dir} NAME)
  set(prebuilt ${_course_kit_root}/prebuilt/${id}/${impl}.o)
  if(EXISTS ${source})
    add_library(${target}_kit OBJECT EXCLUDE_FROM_ALL ${source})
    target_compile_definitions(${target}_kit PRIVATE HARNESS_IMPL=${impl})
    target_include_directories(${target}_kit PRIVATE ${contract})  # add_lab()'s: what every implementation sees
    # No line info (CMakeLists.txt reads COURSE_KIT_OBJECT: it holds each kernel's PTX text and the source's path),
    # and no path of this machine: __FILE__ (CUDA_CHECK's messages, device asserts; host debug info in a Debug build)
    # would hold the instructor's absolute paths of the source and build folders. Mapped to nothing, they read
    # solutions/NN_name/solution.cu. The build folder comes last because it may lie inside the source folder and the
    # host compiler applies the last map that matches; nvcc preprocesses device code with the host compiler too, so
    # -Xcompiler reaches both.
    set_target_properties(${target}_kit PROPERTIES CUDA_ARCHITECTURES "${_course_kit_archs}" COURSE_KIT_OBJECT ON)
    target_compile_options(${target}_kit PRIVATE
                           "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffile-prefix-map=${PROJECT_SOURCE_DIR}/=>"
                           "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffile-prefix-map=${PROJECT_BINARY_DIR}/=>")
    set_property(GLOBAL APPEND PROPERTY COURSE_KIT_OBJECTS "${id}/${impl}.o=$<TARGET_OBJECTS:${target}_kit>")
    set_property(GLOBAL APPEND PROPERTY COURSE_KIT_TARGETS ${target}_kit)
  elseif(EXISTS ${prebuilt})
    _course_kit_check_toolkit()
    _course_kit_check_architectures()
    add_library(${target} OBJECT IMPORTED)
    set_target_properties(${target} PROPERTIES IMPORTED_OBJECTS ${prebuilt})
  endif()
endfunction()

# Objects from nvcc N link and load with CUDA N or newer only: say so at configure, not as an obscure link or load error.
function(_course_kit_check_toolkit)
  file(STRINGS ${_course_kit_root}/prebuilt/cuda-version.txt kit_version LIMIT_COUNT 1)
  string(REGEX MATCH "^[0-9]+" kit_major "${kit_version}")
  string(REGEX MATCH "^[0-9]+" our_major "${CMAKE_CUDA_COMPILER_VERSION}")
  if(our_major LESS kit_major)
    message(FATAL_ERROR "This kit's reference solutions were compiled by CUDA ${kit_version}; this build uses "
                        "nvcc ${CMAKE_CUDA_COMPILER_VERSION}. Build with CUDA ${kit_major}.x or newer "
                        "(its driver too), or ask for a kit made with your CUDA version.")
  endif()
endfunction()

# The prebuilt references hold SASS alone, which runs on a GPU of its own major and an equal or higher minor (9.0 on
# 9.0, 8.0 on 8.6): built for an architecture none of it serves, every runner of a reference would link and then fail
# in every grade with "no kernel image". Say so at configure, for each architecture named (`native`, `all` and
# `all-major` name no GPU that this step knows). Kits made before prebuilt/architectures.txt existed are not checked.
function(_course_kit_check_architectures)
  set(listed ${_course_kit_root}/prebuilt/architectures.txt)
  if(NOT EXISTS ${listed})
    return()
  endif()
  file(READ ${listed} kit_archs)
  string(REGEX MATCHALL "[0-9]+" kit_archs "${kit_archs}")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(NOT arch MATCHES "^([0-9]+)[a-z]*(-real|-virtual)?$")
      continue()
    endif()
    set(wanted ${CMAKE_MATCH_1})
    math(EXPR major "${wanted} / 10")
    set(served FALSE)
    set(capabilities)
    foreach(kit_arch IN LISTS kit_archs)
      math(EXPR kit_major "${kit_arch} / 10")
      math(EXPR kit_minor "${kit_arch} % 10")
      list(APPEND capabilities ${kit_major}.${kit_minor})
      if(kit_major EQUAL major AND NOT kit_arch GREATER wanted)
        set(served TRUE)
      endif()
    endforeach()
    if(NOT served)
      math(EXPR minor "${wanted} % 10")
      list(JOIN capabilities ", " capabilities)
      message(FATAL_ERROR "This kit's reference solutions are machine code for compute capability ${capabilities} "
                          "(prebuilt/architectures.txt), none of which runs on ${major}.${minor} "
                          "(CMAKE_CUDA_ARCHITECTURES ${arch}). Build for a GPU the kit serves, or ask for a kit "
                          "made with ${wanted} in COURSE_KIT_SASS_ARCHITECTURES.")
    endif()
  endforeach()
endfunction()

# The `student-kit` target, once every lab is added. Absent in a kit (there is no reference source to compile).
function(course_add_student_kit)
  get_property(objects GLOBAL PROPERTY COURSE_KIT_OBJECTS)
  get_property(targets GLOBAL PROPERTY COURSE_KIT_TARGETS)
  if(NOT objects)
    return()
  endif()
  set(ids)
  foreach(entry IN LISTS objects)
    string(REGEX REPLACE "/.*" "" id "${entry}")
    list(APPEND ids ${id})
  endforeach()
  list(REMOVE_DUPLICATES ids)
  # What the packaging script needs, with the objects' paths resolved at generate time.
  set(inputs ${PROJECT_BINARY_DIR}/student-kit-inputs.cmake)
  file(GENERATE OUTPUT ${inputs} CONTENT
"set(KIT_SOURCE_DIR [[${PROJECT_SOURCE_DIR}]])
set(KIT_NAME [[${COURSE_KIT_NAME}]])
set(KIT_LABS [[${ids}]])
set(KIT_OBJECTS [[${objects}]])
set(KIT_CUDA_VERSION [[${CMAKE_CUDA_COMPILER_VERSION}]])
set(KIT_SASS_ARCHITECTURES [[${_course_kit_sass}]])
")
  add_custom_target(student-kit
    COMMAND ${CMAKE_COMMAND} -DINPUTS=${inputs} -DWORK_DIR=${PROJECT_BINARY_DIR}/student-kit
            -DARCHIVE=${PROJECT_BINARY_DIR}/${COURSE_KIT_NAME}.tar.gz -P ${_course_kit_root}/kit/package.cmake
    COMMENT "Student kit: ${PROJECT_BINARY_DIR}/${COURSE_KIT_NAME}.tar.gz"
    VERBATIM)
  add_dependencies(student-kit ${targets})

  # `make autograder-bundle`: the Gradescope autograder's zip (autograder/README.md) made of the student kit above,
  # so that the machine grading a class holds no solution source either: the kit's tree with autograder/course.env,
  # and setup.sh and run_autograder at its root, where Gradescope looks for them.
  add_custom_target(autograder-bundle
    COMMAND ${CMAKE_COMMAND} -DKIT_ARCHIVE=${PROJECT_BINARY_DIR}/${COURSE_KIT_NAME}.tar.gz -DKIT_NAME=${COURSE_KIT_NAME}
            -DAUTOGRADER_DIR=${PROJECT_SOURCE_DIR}/autograder -DWORK_DIR=${PROJECT_BINARY_DIR}/autograder-bundle
            -DARCHIVE=${PROJECT_BINARY_DIR}/autograder.zip -P ${PROJECT_SOURCE_DIR}/autograder/bundle.cmake
    COMMENT "Gradescope autograder: ${PROJECT_BINARY_DIR}/autograder.zip"
    VERBATIM)
  add_dependencies(autograder-bundle student-kit)
endfunction()
