# A runner program's sandbox as it starts (harness/src/runner/main.cpp, from .preinit_array): all of it unless
# COURSE_RUNNER_SANDBOX says "0" (none) or names one part, under a CUDA tool too. `runner --sandbox` says what it put
# in force; no GPU needed.   cmake -DRUNNER=runners/lab1-reference -P runner_sandbox_switch.cmake
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
expect("unset: on, TMPDIR writable" "\"seccomp\":true,\"tmpdir_writable\":true,\"tool_attached\":false"
       --unset=COURSE_RUNNER_SANDBOX --unset=CUDA_INJECTION64_PATH TMPDIR=${tmp})
expect("TMPDIR unset: /tmp writable (a CUDA tool run by hand keeps its lock files there)"
       "\"seccomp\":true,\"tmpdir_writable\":true" --unset=COURSE_RUNNER_SANDBOX --unset=CUDA_INJECTION64_PATH
       --unset=TMPDIR)
expect("0: off" "\"landlock_abi\":0,\"problem\":\"\",\"seccomp\":false" COURSE_RUNNER_SANDBOX=0
       --unset=CUDA_INJECTION64_PATH)
expect("landlock alone: no seccomp" "\"seccomp\":false" COURSE_RUNNER_SANDBOX=landlock --unset=CUDA_INJECTION64_PATH)
expect("under a CUDA tool: on" "\"seccomp\":true.*\"tool_attached\":true" --unset=COURSE_RUNNER_SANDBOX
       CUDA_INJECTION64_PATH=/nonexistent/injection.so)
