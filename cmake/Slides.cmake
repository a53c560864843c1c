# Slides: two Marp decks per lab, slides/NN_name.md before the lab and slides/NN_name-walkthrough.md after it (every
# slides/NN_*.md is a deck). slides_generate (slides/tools/) expands the decks' directives (code between markers in the
# compiled sources, charts and tables from results/*.json, numbers quoted from the labs' sheets) into build/slides/*.md;
# `make slides` then runs marp-cli for self-contained HTML, and PDF where Chromium is installed. marp-cli comes from npm
# (`npm ci` of the committed slides/package*.json into build/slides-npm, which nothing else touches), so the `slides`
# target stays out of ALL: `make` needs neither node nor network.
add_executable(slides_generate slides/tools/generate.cpp slides/tools/results.cpp slides/tools/figures.cpp)
target_compile_features(slides_generate PRIVATE cxx_std_20)
target_compile_options(slides_generate PRIVATE -Wall -Wextra)
target_link_libraries(slides_generate PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
# grader/sources_hash.hpp (header-only): a cited run's fingerprints against the tree's.
target_include_directories(slides_generate PRIVATE ${PROJECT_SOURCE_DIR}/grader/include)

file(GLOB COURSE_SLIDE_DECKS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/slides/[0-9][0-9]_*.md)
file(GLOB _slide_inputs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/labs/*/stub.cu ${PROJECT_SOURCE_DIR}/labs/*/README.md
     ${PROJECT_SOURCE_DIR}/solutions/*/solution.cu ${PROJECT_SOURCE_DIR}/results/*.json
     ${PROJECT_SOURCE_DIR}/results/*/*.json)
find_program(COURSE_NODE NAMES node nodejs)
find_program(COURSE_NPM NAMES npm)
find_program(COURSE_CHROMIUM NAMES chromium chromium-browser google-chrome)
set(COURSE_SLIDES_DIR ${PROJECT_BINARY_DIR}/slides)
set(_slides_npm ${PROJECT_BINARY_DIR}/slides-npm)
set(_marp ${_slides_npm}/node_modules/@marp-team/marp-cli/marp-cli.js)

if(NOT COURSE_SLIDE_DECKS)
  return()
endif()
set(_slides_md "")
foreach(_deck IN LISTS COURSE_SLIDE_DECKS)
  get_filename_component(_stem ${_deck} NAME_WE)
  list(APPEND _slides_md ${COURSE_SLIDES_DIR}/${_stem}.md)
endforeach()
add_custom_command(OUTPUT ${_slides_md}
  COMMAND slides_generate ${PROJECT_SOURCE_DIR} ${COURSE_SLIDES_DIR} ${COURSE_SLIDE_DECKS}
  DEPENDS slides_generate ${COURSE_SLIDE_DECKS} ${_slide_inputs}
  COMMENT "Expanding the slide decks' code and results into build/slides/" VERBATIM)

if(NOT COURSE_NODE OR NOT COURSE_NPM)
  add_custom_target(slides
    COMMAND ${CMAKE_COMMAND} -E echo "make slides: node and npm are needed for marp-cli (Debian: apt install nodejs npm), then configure again; no HTML was made."
    COMMAND ${CMAKE_COMMAND} -E false
    VERBATIM)
  return()
endif()

add_custom_command(OUTPUT ${_marp}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_slides_npm}
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/slides/package.json
          ${PROJECT_SOURCE_DIR}/slides/package-lock.json ${_slides_npm}/
  COMMAND ${CMAKE_COMMAND} -E echo "slides: npm ci of slides/package-lock.json into build/slides-npm (needs the npm registry once)"
  COMMAND ${COURSE_NPM} ci --prefix ${_slides_npm} --no-audit --no-fund --loglevel=error
  COMMAND ${CMAKE_COMMAND} -E touch ${_marp}
  DEPENDS ${PROJECT_SOURCE_DIR}/slides/package.json ${PROJECT_SOURCE_DIR}/slides/package-lock.json
  COMMENT "Installing marp-cli" VERBATIM)
add_custom_target(slides-npm DEPENDS ${_marp})

# The input first: --theme-set takes a list and would swallow a path written after it. The config turns off
# markdown-it's `breaks`, so a paragraph wrapped in the deck's source is one paragraph on the slide.
set(_slide_style ${PROJECT_SOURCE_DIR}/slides/course.css ${PROJECT_SOURCE_DIR}/slides/marp.config.json)
set(_marp_options --html --allow-local-files --config-file ${PROJECT_SOURCE_DIR}/slides/marp.config.json
    --theme-set ${PROJECT_SOURCE_DIR}/slides/course.css)
set(_slides_out "")
foreach(_md IN LISTS _slides_md)
  get_filename_component(_stem ${_md} NAME_WE)
  add_custom_command(OUTPUT ${COURSE_SLIDES_DIR}/${_stem}.html
    COMMAND ${COURSE_NODE} ${_marp} ${_md} ${_marp_options} -o ${COURSE_SLIDES_DIR}/${_stem}.html
    DEPENDS ${_md} slides-npm ${_slide_style} COMMENT "marp: ${_stem}.html" VERBATIM)
  list(APPEND _slides_out ${COURSE_SLIDES_DIR}/${_stem}.html)
  if(COURSE_CHROMIUM)
    add_custom_command(OUTPUT ${COURSE_SLIDES_DIR}/${_stem}.pdf
      COMMAND ${CMAKE_COMMAND} -E env CHROME_PATH=${COURSE_CHROMIUM} ${COURSE_NODE} ${_marp} ${_md} --pdf
              ${_marp_options} -o ${COURSE_SLIDES_DIR}/${_stem}.pdf
      DEPENDS ${_md} slides-npm ${_slide_style} COMMENT "marp: ${_stem}.pdf" VERBATIM)
    list(APPEND _slides_out ${COURSE_SLIDES_DIR}/${_stem}.pdf)
  endif()
endforeach()
if(COURSE_CHROMIUM)
  add_custom_target(slides DEPENDS ${_slides_out})
else()
  add_custom_target(slides DEPENDS ${_slides_out}
    COMMAND ${CMAKE_COMMAND} -E echo "make slides: HTML in build/slides/; no PDF, since no chromium was found (Debian: apt install chromium)"
    VERBATIM)
endif()
