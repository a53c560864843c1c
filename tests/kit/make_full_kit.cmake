# The fixture of full_kit_test.cpp (tests/kit/CMakeLists.txt), run as
#   cmake -DSOURCE=<course> -DBUILD=<folder> -DGENERATOR=<generator> -DPREFIX_PATH=<a:b> -DSASS="75 80 ..." -P this
# A fresh configure of the whole course (every lab) in BUILD, with this build's kit architectures, then only
# `student-kit` and `autograder-bundle`: they depend on the kit objects alone, not on the course's own build.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE ${BUILD})
set(ENV{CMAKE_PREFIX_PATH} "${PREFIX_PATH}")
string(REPLACE " " ";" sass "${SASS}")
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)

# Stops with the step's output when it failed; says how long it took.
function(check step rc out start)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "full kit: ${step} failed (${rc}) after ${seconds} s:\n${out}")
  endif()
  message(STATUS "full kit: ${step} took ${seconds} s")
endfunction()

string(TIMESTAMP start "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR}
                        "-DCOURSE_KIT_SASS_ARCHITECTURES=${sass}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
check(configure "${rc}" "${out}" ${start})
string(TIMESTAMP start "%s")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --target student-kit autograder-bundle --parallel ${cores}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
check("the kit objects and both archives" "${rc}" "${out}" ${start})
