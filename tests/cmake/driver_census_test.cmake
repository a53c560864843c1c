# experiments/driver_lock/census.cpp and census.py: a process with the census preloaded counts each ioctl by request
# in a file of its own, and census.py sums the files by the process's role. A Python program started as `lab3 check
# --small` (a link named as a lab binary, so its role is a sanitized run's referee) makes five ioctls of the request
# number of the resource manager's RM_CONTROL on /dev/null (refused there, counted all the same) and one of
# UVM_REGISTER_CHANNEL's: both come back under that role, once a student. Without the census nothing is counted.
# cmake -DWORK=DIR -DLIBRARY=driver_census.so -DSCRIPT=census.py -P driver_census_test.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/census)
# The interpreter itself, not a wrapper that goes by its own name (a pyenv shim).
execute_process(COMMAND python3 -c "import os, sys; print(os.path.realpath(sys.executable))"
                OUTPUT_VARIABLE python OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
file(CREATE_LINK ${python} ${WORK}/lab3 SYMBOLIC)
file(WRITE ${WORK}/check [=[
import fcntl
import os
fd = os.open("/dev/null", os.O_RDONLY)
for request in [0x462A] * 5 + [0x1B]:
    try:
        fcntl.ioctl(fd, request, 0)
    except OSError:
        pass
]=])
function(run_census preload)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env COURSE_CENSUS_DIR=${WORK}/census ${preload}
                          ./lab3 check --small
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the program failed (${rc}): ${err}")
  endif()
  execute_process(COMMAND python3 ${SCRIPT} ${WORK}/census 1 ${WORK}/census 1
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "census.py failed (${rc}): ${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run_census(LD_PRELOAD=${LIBRARY})
# The growth of the role from a folder to itself: its line, with nothing grown.
foreach(expected "  referee check --small                 1.0 procs"
                 "RM_CONTROL(F:0x2a) 5/" "UVM_REGISTER_CHANNEL(uvm:0x1b) 1/"
                 "growth a student" "  referee check --small                 0.00 ->    0.00 s (+0.00)")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in:\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK}/census)
file(MAKE_DIRECTORY ${WORK}/census)
run_census("")
string(FIND "${out}" "referee check" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "counted without the census:\n${out}")
endif()
