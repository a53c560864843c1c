# The course's runner of two implementations (runners/labN-reference+baseline, cmake/AddLab.cmake), which `labN time`
# runs the reference and the baseline in: it lists each one's launchers as that implementation's own runner does,
# and asks for a name where it has several (tests/labs/lab_cli_test.cpp: `labN list` does not count it as an
# implementation of its own). No GPU needed.   cmake -DLAB=bin/lab1 -P course_runner.cmake
get_filename_component(bin ${LAB} DIRECTORY)
get_filename_component(lab ${LAB} NAME)
set(course ${bin}/runners/${lab}-reference+baseline)

function(listed program out)
  execute_process(COMMAND ${program} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${program} --list ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

foreach(impl reference baseline)
  listed(${bin}/runners/${lab}-${impl} own --list)
  listed(${course} shared --list ${impl})
  if(NOT own STREQUAL shared OR NOT own MATCHES "^\\[\"")
    message(FATAL_ERROR "${impl}: its own runner lists ${own}, the course's runner ${shared}")
  endif()
  message(STATUS "${impl}: ${shared}")
endforeach()

execute_process(COMMAND ${course} --list OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "name one of this runner's 2 implementations")
  message(FATAL_ERROR "--list without a name: expected exit 2 asking for a name, got (exit ${rc}) ${out}${err}")
endif()
