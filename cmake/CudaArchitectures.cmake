# Default CUDA architectures, decided before project() so that the CUDA language is enabled with them.
#
# The user's choice always wins (-DCMAKE_CUDA_ARCHITECTURES=..., the CUDAARCHS environment variable, or a preset).
# Otherwise: `native` where a GPU is visible (fast builds for the card at hand), and an explicit list of every
# architecture the course supports where none is (CMake rejects `native` on a GPU-less machine, such as CI).
# sm_75 is the oldest architecture both CUDA 12.x and 13.x still build for.
set(COURSE_PORTABLE_CUDA_ARCHITECTURES "75;80;86;89;90" CACHE STRING
    "CUDA architectures used when no GPU is visible and the user chose none")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _course_smi_rc OUTPUT_VARIABLE _course_smi_out
                  ERROR_QUIET)
  if(_course_smi_rc EQUAL 0 AND _course_smi_out MATCHES "GPU ")
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${COURSE_PORTABLE_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures")
  endif()
  message(STATUS "CUDA architectures (default): ${CMAKE_CUDA_ARCHITECTURES}")
endif()
