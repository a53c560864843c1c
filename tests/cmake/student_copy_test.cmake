# CTest script test of cmake/StudentCopy.cmake and of where `baseline` comes from (no GPU, no compiler needed):
#   cmake -DWORK=<scratch dir> -DSTUDENT_COPY=<cmake/StudentCopy.cmake> -DCOMPILE_COMMANDS=<build>/compile_commands.json
#         -P student_copy_test.cmake
# Each step runs the function in script mode on a tiny lab folder, as the configure step would, and checks the files
# and the message. Then, in the real build's compile_commands.json, every lab's `baseline` object must be compiled
# from that lab's stub.cu: the zero of the grading scale never follows the student's edits.

function(fail what)
  message(FATAL_ERROR "student copy: ${what}")
endfunction()

# Runs the copy step on ${lab}; sets `output` in the caller to what it printed.
function(copy_step)
  execute_process(COMMAND ${CMAKE_COMMAND} -DLAB_DIR=${lab} -P ${STUDENT_COPY}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("the copy step failed (${rc}): ${err}")
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

set(lab ${WORK}/07_tiny)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${lab})
file(WRITE ${lab}/stub.cu "// stub, version 1\n")

# First configure: student.cu is made from the stub, the stub's hash recorded, nothing said.
copy_step()
file(READ ${lab}/student.cu text)
if(NOT text STREQUAL "// stub, version 1\n")
  fail("the first configure must copy stub.cu to student.cu; got '${text}'")
endif()
file(SHA256 ${lab}/stub.cu hash1)
file(STRINGS ${lab}/.student.cu.stub-sha256 recorded)
if(NOT recorded STREQUAL hash1)
  fail("the record must hold the stub's SHA-256 ${hash1}; got '${recorded}'")
endif()
if(output MATCHES "changed")
  fail("a fresh copy must not warn: ${output}")
endif()

# The student edits; the stub is unchanged: silence, the student's file untouched.
file(WRITE ${lab}/student.cu "// my fast kernel\n")
copy_step()
if(output MATCHES "changed")
  fail("an edited student.cu with an unchanged stub must not warn: ${output}")
endif()

# The course updates the stub: a clear message, the student's file kept.
file(WRITE ${lab}/stub.cu "// stub, version 2\n")
copy_step()
foreach(needle "07_tiny: stub.cu changed after your student.cu was copied" "Your student.cu is kept"
               "diff -u ${lab}/stub.cu ${lab}/student.cu" "to start over from the new stub:  *rm ${lab}/student.cu")
  if(NOT output MATCHES "${needle}")
    fail("after a stub update the configure step must say '${needle}'; it said: '${output}'")
  endif()
endforeach()
file(READ ${lab}/student.cu text)
if(NOT text STREQUAL "// my fast kernel\n")
  fail("a stub update must never touch student.cu; it now holds '${text}'")
endif()

# Starting over (delete student.cu) copies the new stub and stops the message.
file(REMOVE ${lab}/student.cu)
copy_step()
file(READ ${lab}/student.cu text)
if(NOT text STREQUAL "// stub, version 2\n" OR output MATCHES "changed")
  fail("starting over must copy the new stub silently; got '${text}', said '${output}'")
endif()

# A checkout older than the record: the record is made from the current stub, without a warning.
file(REMOVE ${lab}/.student.cu.stub-sha256)
file(WRITE ${lab}/student.cu "// my fast kernel\n")
copy_step()
file(SHA256 ${lab}/stub.cu hash2)
file(STRINGS ${lab}/.student.cu.stub-sha256 recorded)
if(NOT recorded STREQUAL hash2 OR output MATCHES "changed")
  fail("a missing record must be made from the current stub without a warning; got '${recorded}', '${output}'")
endif()

# The build: every lab's `stub` object (what the self-check grades) is compiled from labs/<lab>/stub.cu, and every
# baseline from the stub or from the lab's own solutions/<lab>/baseline.cu (a staircase lab), never from student.cu.
file(READ ${COMPILE_COMMANDS} commands)
string(JSON count LENGTH "${commands}")
math(EXPR last "${count} - 1")
set(stubs 0)
set(baselines 0)
foreach(i RANGE ${last})
  string(JSON command GET "${commands}" ${i} command)
  string(JSON source GET "${commands}" ${i} file)
  if(command MATCHES "CMakeFiles/(lab[0-9]+)_(stub|baseline)\\.dir/")
    set(lab ${CMAKE_MATCH_1})
    set(impl ${CMAKE_MATCH_2})
    math(EXPR ${impl}s "${${impl}s} + 1")
    if(impl STREQUAL "stub" AND NOT source MATCHES "/labs/[0-9][0-9]_[a-z0-9_]+/stub\\.cu$")
      fail("${lab}'s stub is compiled from ${source}, not from the lab's stub.cu")
    endif()
    if(impl STREQUAL "baseline" AND NOT source MATCHES "/(labs/[0-9][0-9]_[a-z0-9_]+/stub|solutions/[0-9][0-9]_[a-z0-9_]+/baseline)\\.cu$")
      fail("${lab}'s baseline is compiled from ${source}, neither the lab's stub.cu nor its baseline.cu")
    endif()
  endif()
endforeach()
if(stubs EQUAL 0 OR baselines EQUAL 0)
  fail("no stub or baseline object in ${COMPILE_COMMANDS}: nothing was checked")
endif()
message(STATUS "student copy: every step as expected; ${stubs} stub(s) compiled from stub.cu, ${baselines} baseline(s) from stub.cu or baseline.cu")
