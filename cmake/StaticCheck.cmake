# course_check_submission(LAB_TARGET <target> OBJECT_LIBRARY <object library> SOURCE <file> MANIFEST <file>
#                         CONTRACT <folder> [CHECKER <target or path>])
#
# Runs the static check (check-submission, grader/include/grader/static_check.hpp) on the object that OBJECT_LIBRARY
# compiles from SOURCE, against the rules of the lab whose manifest is MANIFEST, before LAB_TARGET (what links the
# object) is built. A refused submission stops the build with one line per finding, naming the symbol, header or
# instruction and the rule. The check runs again when the source, the object, the manifest or the checker changes,
# and only then (a stamp file records the last pass).
#
# The check compiles the source once more to PTX per CUDA architecture of the object library, with its include
# directories, definitions and C++ standard, CMAKE_CUDA_FLAGS and the host compiler, which gives the device code and
# every header nvcc read: each must be the lab's contract (CONTRACT, cmake/Contract.cmake) or the compiler's own. (The
# target's COMPILE_OPTIONS are left out: the course's carry $<COMPILE_LANGUAGE:...>, which a custom command cannot
# evaluate, and none of them changes what is included.)
function(course_check_submission)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "LAB_TARGET;OBJECT_LIBRARY;SOURCE;MANIFEST;CONTRACT;CHECKER" "")
  foreach(required LAB_TARGET OBJECT_LIBRARY SOURCE MANIFEST CONTRACT)
    if(NOT arg_${required})
      message(FATAL_ERROR "course_check_submission: ${required} is required")
    endif()
  endforeach()
  if(NOT arg_CHECKER)
    set(arg_CHECKER check-submission)
  endif()
  if(TARGET ${arg_CHECKER})
    set(checker $<TARGET_FILE:${arg_CHECKER}>)
  else()
    set(checker ${arg_CHECKER})
  endif()
  set(objdump ${CMAKE_OBJDUMP})
  if(NOT objdump)
    set(objdump objdump)
  endif()

  # The object library's own compile settings, as generator expressions so later changes to the target count too.
  set(obj ${arg_OBJECT_LIBRARY})
  set(includes "$<TARGET_PROPERTY:${obj},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${obj},COMPILE_DEFINITIONS>")
  set(standard "$<TARGET_PROPERTY:${obj},CUDA_STANDARD>")
  set(archs "$<TARGET_PROPERTY:${obj},CUDA_ARCHITECTURES>")
  separate_arguments(flags NATIVE_COMMAND "${CMAKE_CUDA_FLAGS}")
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND flags -ccbin=${CMAKE_CUDA_HOST_COMPILER})
  endif()

  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${obj}.static-check)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${checker} --object "$<TARGET_OBJECTS:${obj}>" --source ${arg_SOURCE} --manifest ${arg_MANIFEST}
            --contract ${arg_CONTRACT} --nvcc ${CMAKE_CUDA_COMPILER}
            --objdump ${objdump} "$<$<BOOL:${archs}>:--arch=$<JOIN:${archs},;--arch=>>"
            -- "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>" "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
            "$<$<BOOL:${standard}>:-std=c++${standard}>" ${flags}
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${arg_CHECKER} ${obj} "$<TARGET_OBJECTS:${obj}>" ${arg_SOURCE} ${arg_MANIFEST}
    COMMENT "Static check of ${arg_SOURCE}"
    COMMAND_EXPAND_LISTS VERBATIM)
  add_custom_target(${obj}_static_check DEPENDS ${stamp})
  add_dependencies(${arg_LAB_TARGET} ${obj}_static_check)
endfunction()
