# A runner program's sandbox as it starts (harness/runner/src/main.cpp): stage 1 from .preinit_array, stage 2 (the
# lock-down) once its setup is done; all of both unless COURSE_RUNNER_SANDBOX says "0" (none) or names one part of
# stage 1 ("landlock" alone leaves seccomp out, stage 2's included), under a CUDA tool too, but no stage 2 under
# Nsight Compute. `runner --sandbox` says what it put in force and what the lock-down refused; no GPU
# needed.   cmake -DRUNNER=runners/lab1-reference -P runner_sandbox_switch.cmake
function(expect label pattern)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ARGN} ${RUNNER} --sandbox
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "${label}: expected ${pattern}, got (exit ${rc}) ${out}${err}")
  endif()
  message(STATUS "${label}: ${out}")
endfunction()

# The run's TMPDIR stays writable under Landlock (the sandbox reads it from the environment .preinit_array is handed).
set(tmp ${CMAKE_CURRENT_BINARY_DIR}/runner-sandbox-tmp)
file(MAKE_DIRECTORY ${tmp})
set(locked [["lockdown":{"code":true,"files":true,"probes":{"exec_mapping_refused":true,"open_refused":true,"thread_refused":true},"problem":"","threads":true}]])
set(unlocked [["lockdown":{"code":false,"files":false,"probes":{"exec_mapping_refused":false,"open_refused":false,"thread_refused":false},"problem":"","threads":false}]])
expect("unset: on, TMPDIR writable, locked down"
       "${locked},\"problem\":\"\",\"seccomp\":true,\"tmpdir_writable\":true,\"tool_attached\":false"
       --unset=COURSE_RUNNER_SANDBOX --unset=CUDA_INJECTION64_PATH TMPDIR=${tmp})
expect("TMPDIR unset: /tmp writable (a CUDA tool run by hand keeps its lock files there)"
       "\"seccomp\":true,\"tmpdir_writable\":true" --unset=COURSE_RUNNER_SANDBOX --unset=CUDA_INJECTION64_PATH
       --unset=TMPDIR)
expect("0: off" "\"landlock_abi\":0,${unlocked},\"problem\":\"\",\"seccomp\":false" COURSE_RUNNER_SANDBOX=0
       --unset=CUDA_INJECTION64_PATH)
expect("landlock alone: no seccomp, no lock-down" "${unlocked}.*\"seccomp\":false" COURSE_RUNNER_SANDBOX=landlock
       --unset=CUDA_INJECTION64_PATH)
expect("under a CUDA tool: on" "${locked}.*\"seccomp\":true.*\"tool_attached\":true" --unset=COURSE_RUNNER_SANDBOX
       CUDA_INJECTION64_PATH=/nonexistent/compute-sanitizer/injection.so)
expect("under Nsight Compute: stage 1 only" "${unlocked}.*\"seccomp\":true.*\"tool_attached\":true"
       --unset=COURSE_RUNNER_SANDBOX CUDA_INJECTION64_PATH=/nonexistent/nsight-compute/injection.so)
