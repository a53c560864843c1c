# A student's runner holds nothing of the referee's: no symbol that the referee's library or the lab's measures define,
# and no shared library beyond the C and C++ runtimes and the CUDA runtime (lab 05's cuBLAS is the referee's alone).
# The harness's folders (common/, referee/, runner/) and cmake/AddLab.cmake are what keep it so; this reads the
# linked program.
#   cmake -DRUNNER=runners/lab5-student -DREFEREE=libharness_referee.a "-DMEASURES=a.o;b.o"
#         "-DSHARED=libharness_common.a;libharness_runner.a;main.o;exercises.o" -DNM=nm -DREADELF=readelf
#         -P boundary_test.cmake
cmake_policy(SET CMP0057 NEW)  # if(... IN_LIST ...) in script mode
foreach(var RUNNER REFEREE SHARED NM READELF)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "boundary_test.cmake: -D${var}=... is required")
  endif()
endforeach()

# The global names the files define: functions and data ("T", "D", "B", "R") and, with `weak`, inline and template
# code ("W", "V") too.
function(defined_names out types)
  execute_process(COMMAND ${NM} --defined-only --extern-only ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${ARGN}")
  endif()
  string(REGEX MATCHALL "[0-9a-f]+ [${types}] [^\n]+" lines "${text}")
  set(names)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[0-9a-f]+ [${types}] " "" name "${line}")
    list(APPEND names ${name})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# The referee's own: what its library and the lab's measures define and what a runner is linked from (the common and
# runner libraries, the runner's main, the lab's problems) does not: its functions and data, and its inline and
# template code in the harness's and the labs' namespaces (a std:: template both sides instantiate, an inline function
# of a header both include, is no one's in particular).
defined_names(strong "TDBR" ${REFEREE} ${MEASURES})
defined_names(weak "WV" ${REFEREE} ${MEASURES})
list(FILTER weak INCLUDE REGEX "^_ZN?K?(7harness|5lab[0-9][0-9])")
defined_names(shared "TDBRWV" ${SHARED})
set(referee ${strong} ${weak})
list(REMOVE_DUPLICATES referee)
list(REMOVE_ITEM referee ${shared})
list(LENGTH referee count)
if(count LESS 50)
  message(FATAL_ERROR "only ${count} symbols read from the referee's side: the test reads the wrong files")
endif()
execute_process(COMMAND ${NM} ${RUNNER} OUTPUT_VARIABLE runner_text RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${RUNNER}")
endif()
string(REGEX MATCHALL "[^ \n]+\n" runner_names "${runner_text}")
string(REPLACE "\n" "" runner_names "${runner_names}")
set(found)
foreach(name IN LISTS referee)
  if(name IN_LIST runner_names)
    list(APPEND found ${name})
  endif()
endforeach()
if(found)
  list(LENGTH found n)
  list(SUBLIST found 0 10 first)
  message(FATAL_ERROR "${RUNNER} holds ${n} of the referee's symbols, e.g. ${first}")
endif()

execute_process(COMMAND ${READELF} -d ${RUNNER} OUTPUT_VARIABLE dynamic)
string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" needed "${dynamic}")
foreach(entry IN LISTS needed)
  string(REGEX REPLACE "^Shared library: \\[(.+)\\]$" "\\1" library "${entry}")
  if(NOT library MATCHES "^(libcudart\\.so|libstdc\\+\\+\\.so|libm\\.so|libgcc_s\\.so|libc\\.so|ld-linux)")
    message(FATAL_ERROR "${RUNNER} needs ${library}: a runner links the CUDA runtime and the C and C++ runtimes only")
  endif()
endforeach()
message(STATUS "${RUNNER}: none of the referee's ${count} symbols; libraries: ${needed}")
