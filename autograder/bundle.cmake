# Makes the Gradescope autograder's zip (target autograder-bundle, cmake/StudentKit.cmake), run as
#   cmake -DKIT_ARCHIVE=<kit.tar.gz> -DKIT_NAME=<its top folder> -DAUTOGRADER_DIR=<autograder/> -DWORK_DIR=<staging>
#         -DARCHIVE=<autograder.zip> -P bundle.cmake
# The zip is the student kit as students get it (the references as SASS-only objects, no solutions/, no tests'
# exploits, no results), unpacked from its archive so that nothing else can slip in, plus what Gradescope runs:
# setup.sh and run_autograder at the zip's root (Gradescope extracts the zip to /autograder/source and looks there),
# and autograder/course.env, the assignment's settings, which both read from the source folder.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf ${KIT_ARCHIVE} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
set(tree ${WORK_DIR}/${KIT_NAME})
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY ${tree})
  message(FATAL_ERROR "autograder bundle: could not unpack ${KIT_ARCHIVE}")
endif()

file(COPY ${AUTOGRADER_DIR}/setup.sh ${AUTOGRADER_DIR}/run_autograder DESTINATION ${tree}
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(COPY ${AUTOGRADER_DIR}/course.env DESTINATION ${tree}/autograder)

# The zip's root is the kit's root: every entry of its top folder, by name.
file(GLOB entries RELATIVE ${tree} ${tree}/*)
list(SORT entries)
file(REMOVE ${ARCHIVE})
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${ARCHIVE} --format=zip -- ${entries}
                WORKING_DIRECTORY ${tree} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "autograder bundle: could not write ${ARCHIVE}")
endif()
message(STATUS "Gradescope autograder: ${ARCHIVE} (the student kit, setup.sh and run_autograder at its root)")
