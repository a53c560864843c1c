# Third-party libraries. Each is found on the system first (Debian and Ubuntu package all of them); Catch2 falls back
# to FetchContent for users with internet access, since it is the one a fresh machine most often lacks in v3.
include(FetchContent)

find_package(Catch2 3 QUIET)
if(NOT Catch2_FOUND)
  message(STATUS "Catch2 v3 not found: fetching it (needs internet; or install libcatch2-dev >= 3)")
  FetchContent_Declare(Catch2 GIT_REPOSITORY https://github.com/catchorg/Catch2.git GIT_TAG v3.4.0)
  FetchContent_MakeAvailable(Catch2)
  list(APPEND CMAKE_MODULE_PATH ${catch2_SOURCE_DIR}/extras)
endif()
include(Catch)

find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
