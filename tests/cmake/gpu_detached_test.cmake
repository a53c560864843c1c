# scripts/gpu-detached.sh: a job started by one command outlives the end of that command's processes (the lent GPU
# machine kills what a command leaves running, except a process session of its own), each step runs with its own
# variables, `wait` brings back what the steps wrote without the copied tree, and a job whose session was killed is
# reported at once, not waited on.
#   cmake -DWORK=<scratch dir> -DSCRIPT=<scripts/gpu-detached.sh> -P gpu_detached_test.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/out)
# A stand-in for gpu-check.sh: OUT_DIR COMMIT PHASE; writes what it was given after a pause, or sleeps long on "hang".
file(WRITE ${WORK}/check.sh [=[#!/usr/bin/env bash
[ "$3" = hang ] && exec sleep 300
sleep 2
echo "commit=$2 X=${X:-} Y=${Y:-} pwd=$(basename "$(dirname "$PWD")")" >"$1/ran-$3"
]=])
file(CHMOD ${WORK}/check.sh PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(ENV{GPU_DETACHED_DIR} ${WORK}/jobs)
set(ENV{GPU_CHECK} ${WORK}/check.sh)
set(ENV{OUT} ${WORK}/out)

function(run expect_code)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code STREQUAL expect_code)
    message(FATAL_ERROR "${ARGN}: exit ${code}, expected ${expect_code}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# The command that starts the job ends with every process of its process group killed, as the machine ends a call
# (setsid --wait: a process group of its own, waited for).
execute_process(COMMAND setsid --wait bash -c "'${SCRIPT}' start t abc1234 one 'two:X=1 2,Y=3'; kill -KILL 0"
                OUTPUT_VARIABLE started)
if(NOT started MATCHES "started t in")
  message(FATAL_ERROR "the job did not start: ${started}")
endif()
run(0 ${SCRIPT} wait t 60)
if(NOT out MATCHES "one exited 0 at" OR NOT out MATCHES "two exited 0 at" OR NOT out MATCHES "\ndone\n")
  message(FATAL_ERROR "the job did not finish both steps after its starting command was killed:\n${out}")
endif()
file(READ ${WORK}/jobs/t/out/ran-two two)
if(NOT two MATCHES "commit=abc1234 X=1 2 Y=3 pwd=t")
  message(FATAL_ERROR "step two did not run in the job's copy with its own variables: ${two}")
endif()
file(READ ${WORK}/jobs/t/out/ran-one one)
if(NOT one MATCHES "X= Y=")
  message(FATAL_ERROR "step one saw step two's variables: ${one}")
endif()
run(0 tar tzf ${WORK}/out/t.tgz)
if(NOT out MATCHES "out/ran-one" OR NOT out MATCHES "console-two.txt" OR out MATCHES "/tree/")
  message(FATAL_ERROR "the tar should hold the steps' files and not the copied tree:\n${out}")
endif()

# A job still running: `wait` says so when its time is up, and `start` will not start it over; once its session is
# killed, `wait` says so at once.
run(0 ${SCRIPT} start h abc1234 hang)
run(0 ${SCRIPT} wait h 1)
if(NOT out MATCHES "still running after 1 s")
  message(FATAL_ERROR "a running job was not reported as running:\n${out}")
endif()
run(2 ${SCRIPT} start h abc1234 one)  # a running job's folder is not started over
file(READ ${WORK}/jobs/h/pid pid)
string(STRIP "${pid}" pid)
run(0 kill -KILL -- -${pid})
string(TIMESTAMP before "%s")
run(4 ${SCRIPT} wait h 60)
string(TIMESTAMP after "%s")
math(EXPR waited "${after} - ${before}")
if(NOT out MATCHES "ended without finishing" OR waited GREATER 10)
  message(FATAL_ERROR "a killed job should be reported at once (waited ${waited} s):\n${out}")
endif()
run(3 ${SCRIPT} wait nobody 1)
file(REMOVE_RECURSE ${WORK})
