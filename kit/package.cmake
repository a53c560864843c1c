# Assembles the student kit (cmake/StudentKit.cmake, target student-kit): a script, run as
#   cmake -DINPUTS=<student-kit-inputs.cmake> -DWORK_DIR=<staging folder> -DARCHIVE=<file.tar.gz> -P package.cmake
# INPUTS names the course's source folder, the kit's name, its labs and its compiled references.
#
# What goes in is listed here, folder by folder, rather than everything minus exclusions: a file added to the course
# later (a new fixture folder, an instructor's note) stays out of the kit until someone decides it belongs.
cmake_minimum_required(VERSION 3.24)
include(${INPUTS})
set(stage ${WORK_DIR}/${KIT_NAME})
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${stage})

# The build (the lab CPU tests' shared sources included, which add_lab() compiles for every lab), the harness, the
# grader, the kit's labs: sheets, manifests, contract headers, stubs, CPU references (student.cu is made at configure).
foreach(rel CMakeLists.txt CMakePresets.json cmake harness grader tests/labs/lab_consistency.cpp
            tests/labs/lab_mutations.cpp)
  get_filename_component(parent ${rel} DIRECTORY)
  file(COPY ${KIT_SOURCE_DIR}/${rel} DESTINATION ${stage}/${parent})
endforeach()
foreach(id IN LISTS KIT_LABS)
  file(COPY ${KIT_SOURCE_DIR}/labs/${id} DESTINATION ${stage}/labs PATTERN student.cu EXCLUDE)
endforeach()

# The references as compiled code, the CUDA version that compiled them and the architectures they hold SASS for
# (cmake/StudentKit.cmake checks both at the kit's configure step; the README tells students the second).
foreach(entry IN LISTS KIT_OBJECTS)
  string(REGEX MATCH "^([^=]+)=(.+)$" matched "${entry}")
  get_filename_component(parent ${stage}/prebuilt/${CMAKE_MATCH_1} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(COPY_FILE ${CMAKE_MATCH_2} ${stage}/prebuilt/${CMAKE_MATCH_1})
endforeach()
file(WRITE ${stage}/prebuilt/cuda-version.txt "${KIT_CUDA_VERSION}\n")
list(JOIN KIT_SASS_ARCHITECTURES " " archs)
file(WRITE ${stage}/prebuilt/architectures.txt "${archs}\n")

# The kit's README: kit/README.md, each line "<!-- course README: <heading> -->" replaced by that section of the
# course's README, so the sections the sheets link to (README.md#how-a-grade-is-computed) are there and never stale.
file(READ ${KIT_SOURCE_DIR}/kit/README.md readme)
file(READ ${KIT_SOURCE_DIR}/README.md course)
set(docs_text "${readme}")
string(REGEX MATCHALL "<!-- course README: [^>]* -->" markers "${readme}")
foreach(marker IN LISTS markers)
  string(REGEX REPLACE "^<!-- course README: (.*) -->$" "\\1" heading "${marker}")
  string(FIND "${course}" "\n## ${heading}\n" start)
  if(start LESS 0)
    message(FATAL_ERROR "kit/README.md asks for the section '## ${heading}', which README.md lacks")
  endif()
  math(EXPR start "${start} + 1")
  string(SUBSTRING "${course}" ${start} -1 section)
  string(FIND "${section}" "\n## " end)
  if(end GREATER -1)
    string(SUBSTRING "${section}" 0 ${end} section)
  endif()
  string(STRIP "${section}" section)
  string(REPLACE "${marker}" "${section}" readme "${readme}")
endforeach()
file(WRITE ${stage}/README.md "${readme}")

# The docs that the kit's sheets and its own README name (docs/static-check.md, ...): those only, not every doc.
foreach(id IN LISTS KIT_LABS)
  file(READ ${stage}/labs/${id}/README.md sheet)
  string(APPEND docs_text "${sheet}")
endforeach()
string(REGEX MATCHALL "docs/[A-Za-z0-9_.-]+\\.md" docs "${docs_text}")
list(REMOVE_DUPLICATES docs)
foreach(doc IN LISTS docs)
  file(COPY ${KIT_SOURCE_DIR}/${doc} DESTINATION ${stage}/docs)
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${ARCHIVE} -- ${KIT_NAME} WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "student kit: could not write ${ARCHIVE}")
endif()
message(STATUS "Student kit: ${ARCHIVE} (labs: ${KIT_LABS})")
