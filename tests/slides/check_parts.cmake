# Run by ctest (tests/slides/CMakeLists.txt) on the source decks: each lab's deck comes in two parts. NN_name.md is
# shown before the lab (the idea, the napkin math, the stubs) and must not include code from solutions/: the
# reference kernels are the lab's answers. NN_name-walkthrough.md, shown after the lab, may, and must have its part 1
# beside it. Every deck found is checked, so a new deck follows the same rule without being listed.
#   cmake "-DDECKS=/path/01_coalescing.md;/path/01_coalescing-walkthrough.md;..." -P check_parts.cmake
if(NOT DECKS)
  message(FATAL_ERROR "no decks given")
endif()
set(failures "")
foreach(deck IN LISTS DECKS)
  get_filename_component(name ${deck} NAME)
  get_filename_component(dir ${deck} DIRECTORY)
  if(name MATCHES "^(.+)-walkthrough\\.md$")
    if(NOT EXISTS ${dir}/${CMAKE_MATCH_1}.md)
      string(APPEND failures "${name}: a walk-through without its part 1, ${CMAKE_MATCH_1}.md\n")
    endif()
    continue()
  endif()
  # One list element per line: the characters CMake's lists treat specially (; [ ]) are replaced first.
  file(READ ${deck} text)
  string(REGEX REPLACE "[][;]" "_" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "<!--[ \t]*include:[ \t]*(\\./)?solutions/")
      string(APPEND failures "${name}:${n}: a deck shown before the lab includes solutions/ (move the slide to "
                             "the walk-through, or show the stub): ${line}\n")
    endif()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
list(LENGTH DECKS count)
message(STATUS "${count} decks: no solution code before the lab")
