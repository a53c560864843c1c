# course_student_copy(<lab dir>): makes the student's working copy, student.cu, from the shipped stub.cu, once, and
# says so at configure when the stub changed after that copy was made (a course update), so that a student never
# works on, or is graded against, a stub that no longer exists without knowing it.
#
# The copy records the stub's SHA-256 beside it, in .student.cu.stub-sha256 (git-ignored, like student.cu): it lives
# with the student's file, so deleting the build folder does not lose it. On every configure:
#   - no student.cu: copy stub.cu and record its hash;
#   - a student.cu, no record (a checkout older than the record): record the current stub's hash;
#   - a student.cu equal to the current stub.cu: record its hash (nothing to tell);
#   - a record that differs from the current stub.cu: print what happened, how to see the difference and how to
#     start over. student.cu is never touched: it is the student's work.
#
# Script mode, for the tests: cmake -DLAB_DIR=<dir> -P cmake/StudentCopy.cmake
function(course_student_copy dir)
  set(stub ${dir}/stub.cu)
  set(student ${dir}/student.cu)
  set(record ${dir}/.student.cu.stub-sha256)
  file(SHA256 ${stub} stub_hash)
  if(NOT EXISTS ${student})
    file(COPY_FILE ${stub} ${student})
    file(WRITE ${record} "${stub_hash}\n")
    return()
  endif()
  file(SHA256 ${student} student_hash)
  if(EXISTS ${record})
    file(STRINGS ${record} copied_from LIMIT_COUNT 1)
  else()
    set(copied_from "")
  endif()
  if(copied_from STREQUAL "" OR student_hash STREQUAL stub_hash)
    file(WRITE ${record} "${stub_hash}\n")
  elseif(NOT copied_from STREQUAL stub_hash)
    get_filename_component(id ${dir} NAME)
    message(NOTICE
      "${id}: stub.cu changed after your student.cu was copied from it (a course update). Your student.cu is kept "
      "as it is, and the self-check uses the new stub.cu.\n"
      "  what differs between the new stub and your file:  diff -u ${stub} ${student}\n"
      "  what the update changed in the stub:              git log -p -- ${stub}\n"
      "  to start over from the new stub:                  rm ${student}, then configure again\n"
      "  to keep your file and stop this message:          rm ${record}, then configure again")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT LAB_DIR)
    message(FATAL_ERROR "usage: cmake -DLAB_DIR=<lab folder> -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  course_student_copy(${LAB_DIR})
endif()
