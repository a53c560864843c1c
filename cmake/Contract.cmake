# The contract folder of a lab: what an implementation may include, and nothing else of the course.
#
#   course_contract(<lab dir> <contract dir> <course source dir> [<out var>])
#
# Copies into <contract dir> the lab's headers that its stub.cu includes (with what they include among the lab's
# headers: lab 03's test_kernels.cuh brings warp_shuffles.hpp) and harness/launcher.hpp with harness/cuda_check.hpp.
# Every implementation of the lab (the student's, the stub, the reference, the fixtures) is compiled with this folder
# as its only include directory, so no `#include <...>` reaches the course's tree (the solutions sit beside the
# labs); the static check refuses a dependency anywhere else but the compiler's own headers (docs/static-check.md,
# rule `includes`), and the compile of a submission reads nothing else (grader/confine.hpp, `confined`).
# Runs at configure time (add_lab) and in script mode (tests/exploits/run_case.cmake); configure_file() makes a
# later change of a copied header re-run the configure step. <out var>, when given, receives the lab's headers in the
# contract (names relative to the lab's folder).
function(course_contract dir contract source_dir)
  set(headers)
  set(queue ${dir}/stub.cu)
  while(queue)
    list(POP_FRONT queue file)
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" name "${line}")
      list(FIND headers "${name}" seen)  # not IN_LIST: script mode (run_case.cmake) has no policy for it
      if(EXISTS ${dir}/${name} AND seen EQUAL -1)
        list(APPEND headers ${name})
        list(APPEND queue ${dir}/${name})
      endif()
    endforeach()
  endwhile()
  foreach(name IN LISTS headers)
    configure_file(${dir}/${name} ${contract}/${name} COPYONLY)
  endforeach()
  foreach(name launcher.hpp cuda_check.hpp)
    configure_file(${source_dir}/harness/common/include/harness/${name} ${contract}/harness/${name} COPYONLY)
  endforeach()
  if(ARGC GREATER 3)
    set(${ARGV3} ${headers} PARENT_SCOPE)
  endif()
endfunction()
