# The student kit: an archive a student builds and grades from without the reference solutions' sources.
#
# In the course's tree, `make student-kit` (target defined by course_add_student_kit()) writes
# <build>/${COURSE_KIT_NAME}.tar.gz: the labs of this build (COURSE_LABS, so a kit can release labs one at a time),
# the harness, the grader, cmake/, the presets, the docs the sheets link to, the kit's README (kit/README.md), and each
# lab's reference (and baseline, where the lab has its own: cmake/AddLab.cmake) only as objects,
# prebuilt/NN_name/{reference,baseline}.o, compiled for COURSE_KIT_CUDA_ARCHITECTURES.
# kit/package.cmake assembles it. Nothing of solutions/ (fixtures included), tests/ (but the lab CPU tests' two
# sources that add_lab() compiles), experiments/ or results/ goes in.
#
# In the kit, where solutions/NN_name/solution.cu is absent and prebuilt/NN_name/reference.o is present,
# course_kit_implementation() makes labN_reference an IMPORTED object library of that object: the runner links it as
# it would link the compiled source. Fixtures need no change: their globs find nothing.

set(COURSE_KIT_NAME ${PROJECT_NAME}-student-kit)
set(_course_kit_root ${CMAKE_CURRENT_LIST_DIR}/..)
# Implementations the kit ships compiled where their source is in solutions/ (a baseline that is the lab's own stub
# is in labs/ already, and is compiled from there).
set(_course_kit_compiled reference baseline)

# SASS for every portable architecture and PTX for the newest of them, so GPUs newer than the list JIT the reference:
# "75;80;86;89;90" becomes "75-real;80-real;86-real;89-real;90" (a plain 90 is sm_90 SASS plus compute_90 PTX).
set(_course_kit_archs ${COURSE_PORTABLE_CUDA_ARCHITECTURES})
list(POP_BACK _course_kit_archs _course_kit_newest)
list(TRANSFORM _course_kit_archs APPEND -real)
list(APPEND _course_kit_archs ${_course_kit_newest})
set(COURSE_KIT_CUDA_ARCHITECTURES "${_course_kit_archs}" CACHE STRING
    "CUDA architectures of the student kit's prebuilt reference objects (the last one also as PTX)")

# course_kit_implementation(<target> <lab dir> <impl> <source>), called by add_lab() for every implementation.
# In the course's tree: a second, kit-only object library <target>_kit of the reference (built by `make student-kit`,
# never by `make`). In a kit: <target> as the prebuilt object when <source> is absent.
function(course_kit_implementation target dir impl source)
  if(NOT impl IN_LIST _course_kit_compiled OR source MATCHES "^${dir}/")
    return()
  endif()
  get_filename_component(id ${dir} NAME)
  set(prebuilt ${_course_kit_root}/prebuilt/${id}/${impl}.o)
  if(EXISTS ${source})
    add_library(${target}_kit OBJECT EXCLUDE_FROM_ALL ${source})
    target_compile_definitions(${target}_kit PRIVATE HARNESS_IMPL=${impl})
    target_include_directories(${target}_kit PRIVATE ${dir})
    target_link_libraries(${target}_kit PRIVATE harness_headers)
    set_target_properties(${target}_kit PROPERTIES CUDA_ARCHITECTURES "${COURSE_KIT_CUDA_ARCHITECTURES}")
    set_property(GLOBAL APPEND PROPERTY COURSE_KIT_OBJECTS "${id}/${impl}.o=$<TARGET_OBJECTS:${target}_kit>")
    set_property(GLOBAL APPEND PROPERTY COURSE_KIT_TARGETS ${target}_kit)
  elseif(EXISTS ${prebuilt})
    _course_kit_check_toolkit()
    add_library(${target} OBJECT IMPORTED)
    set_target_properties(${target} PROPERTIES IMPORTED_OBJECTS ${prebuilt})
  endif()
endfunction()

# Objects from nvcc N link and load with CUDA N or newer only: say so at configure, not as an obscure link or load error.
function(_course_kit_check_toolkit)
  file(STRINGS ${_course_kit_root}/prebuilt/cuda-version.txt kit_version LIMIT_COUNT 1)
  string(REGEX MATCH "^[0-9]+" kit_major "${kit_version}")
  string(REGEX MATCH "^[0-9]+" our_major "${CMAKE_CUDA_COMPILER_VERSION}")
  if(our_major LESS kit_major)
    message(FATAL_ERROR "This kit's reference solutions were compiled by CUDA ${kit_version}; this build uses "
                        "nvcc ${CMAKE_CUDA_COMPILER_VERSION}. Build with CUDA ${kit_major}.x or newer "
                        "(its driver too), or ask for a kit made with your CUDA version.")
  endif()
endfunction()

# The `student-kit` target, once every lab is added. Absent in a kit (there is no reference source to compile).
function(course_add_student_kit)
  get_property(objects GLOBAL PROPERTY COURSE_KIT_OBJECTS)
  get_property(targets GLOBAL PROPERTY COURSE_KIT_TARGETS)
  if(NOT objects)
    return()
  endif()
  set(ids)
  foreach(entry IN LISTS objects)
    string(REGEX REPLACE "/.*" "" id "${entry}")
    list(APPEND ids ${id})
  endforeach()
  list(REMOVE_DUPLICATES ids)
  # What the packaging script needs, with the objects' paths resolved at generate time.
  set(inputs ${PROJECT_BINARY_DIR}/student-kit-inputs.cmake)
  file(GENERATE OUTPUT ${inputs} CONTENT
"set(KIT_SOURCE_DIR [[${PROJECT_SOURCE_DIR}]])
set(KIT_NAME [[${COURSE_KIT_NAME}]])
set(KIT_LABS [[${ids}]])
set(KIT_OBJECTS [[${objects}]])
set(KIT_CUDA_VERSION [[${CMAKE_CUDA_COMPILER_VERSION}]])
")
  add_custom_target(student-kit
    COMMAND ${CMAKE_COMMAND} -DINPUTS=${inputs} -DWORK_DIR=${PROJECT_BINARY_DIR}/student-kit
            -DARCHIVE=${PROJECT_BINARY_DIR}/${COURSE_KIT_NAME}.tar.gz -P ${_course_kit_root}/kit/package.cmake
    COMMENT "Student kit: ${PROJECT_BINARY_DIR}/${COURSE_KIT_NAME}.tar.gz"
    VERBATIM)
  add_dependencies(student-kit ${targets})
endfunction()
