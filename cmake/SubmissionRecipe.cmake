# course_submission_recipe(<lab> <lab dir>)
#
# Writes build/submission/<lab>.json: how to build one student's file into a runner against the objects this build
# already made, without CMake. `grade batch` (docs/batch.md) reads it at
# run time to compile a whole class, each student in a private folder. It is generated from the real targets
# (file(GENERATE) and generator expressions), so a flag, include or library added to them reaches it too:
#
#   {"schema": 1, "lab": 1, "id": "01_coalescing",
#    "lab_binary": "/abs/build/lab1", "runners_dir": "/abs/build/runners", "manifest": ".../manifest.json",
#    "contract": "/abs/build/contract/01_coalescing", "compile": [argv], "check": [argv], "link": [argv]}
#
# In the argv lists {source}, {object} and {output} stand for the student's file, the object compiled from it and
# the program linked from it: runners/labN-student. `check` is the static check (cmake/StaticCheck.cmake) with the
# same arguments the build gives it. `contract` is the lab's contract folder (cmake/Contract.cmake), the compile's
# only include folder and, with the student's file, all it may read (grader/confine.hpp).
function(course_submission_recipe lab dir)
  set(student ${lab}_student)
  set(linked ${lab}-student)
  set(lab_binary "$<TARGET_FILE:${lab}>")
  get_filename_component(id ${dir} NAME)
  string(REGEX MATCH "^[0-9]+" number ${id})
  math(EXPR number "${number}")

  # Compile: the student object library's own settings, as the build's nvcc line has them. Each step is built as
  # JSON text: a list-valued generator expression becomes one string per element (none when it is empty).
  set(includes "$<TARGET_PROPERTY:${student},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${student},COMPILE_DEFINITIONS>")
  set(options "$<TARGET_PROPERTY:${student},COMPILE_OPTIONS>")
  get_target_property(standard ${student} CUDA_STANDARD)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags NATIVE_COMMAND "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${config}}")
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND flags -ccbin=${CMAKE_CUDA_HOST_COMPILER})
  endif()
  get_target_property(archs ${student} CUDA_ARCHITECTURES)
  set(arch_flags)
  set(check_archs)
  foreach(arch IN LISTS archs)
    if(arch MATCHES "^(native|all|all-major)$")
      list(APPEND arch_flags -arch=${arch})
    elseif(arch MATCHES "^([0-9]+[af]?)-real$")
      list(APPEND arch_flags "--generate-code=arch=compute_${CMAKE_MATCH_1},code=[sm_${CMAKE_MATCH_1}]")
    elseif(arch MATCHES "^([0-9]+[af]?)-virtual$")
      list(APPEND arch_flags "--generate-code=arch=compute_${CMAKE_MATCH_1},code=[compute_${CMAKE_MATCH_1}]")
    else()
      list(APPEND arch_flags "--generate-code=arch=compute_${arch},code=[compute_${arch},sm_${arch}]")
    endif()
    list(APPEND check_archs --arch=${arch})
  endforeach()
  _recipe_strings(compile ${CMAKE_CUDA_COMPILER} -forward-unknown-to-host-compiler)
  _recipe_list(compile -D ${defines})
  _recipe_list(compile -I ${includes})
  _recipe_strings(compile ${flags} ${arch_flags})
  _recipe_list(compile "" ${options})
  _recipe_strings(compile -std=c++${standard} -x cu -c {source} -o {object})

  # The static check, as course_check_submission() runs it.
  set(objdump ${CMAKE_OBJDUMP})
  if(NOT objdump)
    set(objdump objdump)
  endif()
  _recipe_strings(check $<TARGET_FILE:check-submission> --object {object} --source {source}
                  --manifest ${dir}/manifest.json --contract ${contract}
                  --nvcc ${CMAKE_CUDA_COMPILER} --objdump ${objdump} ${check_archs} --)
  _recipe_list(check -I ${includes})
  _recipe_list(check -D ${defines})
  _recipe_strings(check -std=c++${standard} ${flags})

  # Link: every object and library the real target links, the student's object replaced by {object}.
  set(_recipe_objects)
  set(_recipe_libraries)
  set(_recipe_seen ${student})
  _recipe_walk(${linked})
  list(REVERSE _recipe_libraries)  # post-order reversed: each library before those it needs
  separate_arguments(link_flags NATIVE_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}}")
  _recipe_strings(link ${CMAKE_CXX_COMPILER} ${link_flags})
  foreach(objects IN LISTS _recipe_objects)
    _recipe_list(link "" ${objects})
  endforeach()
  _recipe_strings(link {object} -o {output})
  # What CMake adds where a host linker links CUDA objects: the toolkit's library folder (not its stubs: a stub
  # libcuda found at run time would stand in for the driver) and the CUDA runtime the project chose.
  # CMake versions fill these lists differently (on the lent GPU machine, CMake 4, the link could not find the CUDA
  # runtime), so the toolkit's own lib64 is named too; an -rpath beside each -L finds the shared runtime at run time.
  set(library_dirs ${CMAKE_CUDA_HOST_IMPLICIT_LINK_DIRECTORIES})
  if(CMAKE_CUDA_COMPILER_TOOLKIT_ROOT)
    list(APPEND library_dirs ${CMAKE_CUDA_COMPILER_TOOLKIT_ROOT}/lib64)
  endif()
  list(REMOVE_DUPLICATES library_dirs)
  foreach(library_dir IN LISTS library_dirs)
    if(NOT library_dir MATCHES "/stubs$" AND IS_DIRECTORY ${library_dir})
      _recipe_strings(link -L${library_dir} -Wl,-rpath,${library_dir})
    endif()
  endforeach()
  _recipe_strings(link ${_recipe_libraries})
  string(TOLOWER "${CMAKE_CUDA_RUNTIME_LIBRARY}" runtime)
  if(runtime STREQUAL "shared")
    _recipe_strings(link -lcudadevrt -lcudart)
  elseif(runtime STREQUAL "static" OR NOT runtime)
    _recipe_strings(link -lcudadevrt -lcudart_static -lrt -lpthread -ldl)
  endif()

  set(json "{\"schema\": 1, \"lab\": ${number}, \"id\": \"${id}\"")
  string(APPEND json ",\n \"lab_binary\": \"${lab_binary}\", \"runners_dir\": \"${COURSE_BIN_DIR}/runners\",\n"
         " \"manifest\": \"${dir}/manifest.json\", \"contract\": \"${contract}\"")
  foreach(step compile check link)
    string(REGEX REPLACE "^, " "" array "${${step}}")
    string(APPEND json ",\n \"${step}\": [${array}]")
  endforeach()
  string(APPEND json "}\n")
  # Evaluated for CUDA: the options carry $<COMPILE_LANGUAGE:...> (CMakeLists.txt's -lineinfo).
  file(GENERATE OUTPUT ${COURSE_BIN_DIR}/submission/${lab}.json CONTENT "${json}" CONDITION $<COMPILE_LANGUAGE:CUDA>)
endfunction()

# Appends each argument to the JSON text in `var` as one string: ', "arg"'.
macro(_recipe_strings var)
  foreach(_arg ${ARGN})
    string(APPEND ${var} ", \"${_arg}\"")
  endforeach()
endmacro()

# Appends a list-valued generator expression to the JSON text in `var`: one string per element of its value, each
# with `prefix`, nothing when it is empty.
macro(_recipe_list var prefix genex)
  string(APPEND ${var} "$<$<BOOL:${genex}>:$<COMMA> \"${prefix}$<JOIN:${genex},\"$<COMMA> \"${prefix}>\">")
endmacro()

# Depth-first over what `target` links: OBJECT libraries give their objects, libraries with a file give that file
# (in post-order), INTERFACE libraries only what they link, anything else (-lfoo, a path) itself, and a bare name
# as -l<name>. Targets already in
# _recipe_seen are left out.
function(_recipe_walk target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    get_target_property(deps ${target} LINK_LIBRARIES)
  else()
    get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
    get_target_property(own ${target} LINK_LIBRARIES)
    if(type STREQUAL "OBJECT_LIBRARY" AND own)  # an object library's private libraries are linked all the same
      list(APPEND deps ${own})
    endif()
  endif()
  foreach(dep IN LISTS deps)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(NOT dep OR dep MATCHES "-NOTFOUND$" OR dep IN_LIST _recipe_seen)
      continue()
    endif()
    list(APPEND _recipe_seen ${dep})
    if(TARGET ${dep})
      get_target_property(dep_type ${dep} TYPE)
      if(dep_type STREQUAL "OBJECT_LIBRARY")
        list(APPEND _recipe_objects "$<TARGET_OBJECTS:${dep}>")
      endif()
      _recipe_walk(${dep})
      if(dep_type MATCHES "^(SHARED|UNKNOWN|MODULE)_LIBRARY$")  # found at run time where it was at link time
        list(APPEND _recipe_libraries "-Wl,-rpath,$<TARGET_FILE_DIR:${dep}>")
      endif()
      if(dep_type MATCHES "^(STATIC|SHARED|UNKNOWN|MODULE)_LIBRARY$")
        list(APPEND _recipe_libraries "$<TARGET_FILE:${dep}>")
      endif()
    elseif(dep MATCHES "^[A-Za-z0-9_+]+$")  # a bare library name (CMake 4's CUDA::cudart_static links `dl`)
      list(APPEND _recipe_libraries "-l${dep}")
    else()
      list(APPEND _recipe_libraries "${dep}")
    endif()
  endforeach()
  set(_recipe_objects "${_recipe_objects}" PARENT_SCOPE)
  set(_recipe_libraries "${_recipe_libraries}" PARENT_SCOPE)
  set(_recipe_seen "${_recipe_seen}" PARENT_SCOPE)
endfunction()
