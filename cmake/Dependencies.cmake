# Third-party libraries: each is found on the system first (Debian and Ubuntu package all of them), and fetched from
# its release only where it is missing, so a machine without one still configures (given internet access).
# FIND_PACKAGE_ARGS makes FetchContent_MakeAvailable try find_package() before any download.
include(FetchContent)

FetchContent_Declare(Catch2 GIT_REPOSITORY https://github.com/catchorg/Catch2.git GIT_TAG v3.4.0
                     FIND_PACKAGE_ARGS 3)
FetchContent_Declare(fmt URL https://github.com/fmtlib/fmt/releases/download/10.2.1/fmt-10.2.1.zip
                     FIND_PACKAGE_ARGS)
FetchContent_Declare(nlohmann_json URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
                     FIND_PACKAGE_ARGS 3)
FetchContent_Declare(CLI11 GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git GIT_TAG v2.4.2
                     FIND_PACKAGE_ARGS)
FetchContent_MakeAvailable(Catch2 fmt nlohmann_json CLI11)

foreach(_course_dep Catch2 fmt nlohmann_json CLI11)
  if(NOT ${_course_dep}_FOUND)
    message(STATUS "${_course_dep}: not installed, fetched its release (install the system package to skip this)")
  endif()
endforeach()
# Catch2's CMake helpers (catch_discover_tests): installed beside its package config, or in the fetched sources.
if(catch2_SOURCE_DIR)
  list(APPEND CMAKE_MODULE_PATH ${catch2_SOURCE_DIR}/extras)
endif()
include(Catch)
