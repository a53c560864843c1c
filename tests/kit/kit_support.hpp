#pragma once
// What the student kit's tests share (kit_test.cpp: a lab 1 kit and its Gradescope zip end to end; full_kit_test.cpp:
// the prebuilt objects of a kit of every lab, and its zip): running the build's commands, unpacking what they made,
// what a kit and a zip must hold, and the search for solution text.
#include <grader/process.hpp>

#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kit_test {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `argv`; the configure steps find the dependencies where this build found them (the GPU machine keeps CLI11
/// in .deps). `env` is added to that.
inline grader::ProcessResult run(std::vector<std::string> argv, double timeout_s,
                                 std::vector<std::pair<std::string, std::string>> env = {},
                                 std::size_t capture_limit = 1 << 20) {
  grader::ProcessOptions p;
  p.argv = std::move(argv);
  p.timeout_s = timeout_s;
  p.capture_limit = capture_limit;
  p.env = {{"CMAKE_PREFIX_PATH", COURSE_PREFIX_PATH}, {"COURSE_REQUIRE_GPU", "0"}};
  p.env.insert(p.env.end(), env.begin(), env.end());
  return grader::run_process(p);
}

inline std::string tail(const std::string& text) { return text.substr(text.size() > 4000 ? text.size() - 4000 : 0); }

/// The regular files under `root`, as paths relative to it ('/'-separated).
inline std::vector<std::string> files_under(const fs::path& root) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), root).generic_string());
  return files;
}

/// Unpacks `archive` (tar.gz or zip: cmake's libarchive reads both and keeps the modes) into `into`.
inline void unpack(const fs::path& archive, const fs::path& into) {
  REQUIRE(fs::is_regular_file(archive));
  fs::create_directories(into);
  // cmake -E tar extracts into its working folder, which a shell sets.
  const auto r = run({"sh", "-c", "cd \"$1\" && exec \"$2\" -E tar xf \"$3\"", "sh", into.string(), CMAKE_COMMAND,
                      archive.string()},
                     300);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

/// Nothing of the instructors' folders among `files` (relative paths of a kit or zip): no solutions, experiments,
/// results, slides, scripts or tests, but the lab CPU tests' two sources that every lab compiles.
inline void check_no_instructors_files(const std::vector<std::string>& files) {
  for (const auto& rel : files) {
    CAPTURE(rel);
    for (const char* instructors : {"solutions/", "experiments/", "results/", "slides/", "scripts/", "tests/exploits/"})
      CHECK(rel.rfind(instructors, 0) == std::string::npos);
    CHECK((rel.rfind("tests/", 0) == std::string::npos || rel.rfind("tests/labs/lab_", 0) == 0));
  }
}

/// The Gradescope zip (autograder/bundle.cmake) unpacked in `bundle` is the kit unpacked in `kit`, file for file,
/// plus what Gradescope runs, as the course at `source` has it: setup.sh and run_autograder at its root, executable,
/// and autograder/course.env. Nothing more.
inline void check_bundle_is_kit(const fs::path& bundle, const fs::path& kit, const fs::path& source) {
  auto expected = files_under(kit);
  for (const char* added : {"setup.sh", "run_autograder", "autograder/course.env"}) expected.push_back(added);
  std::sort(expected.begin(), expected.end());
  auto files = files_under(bundle);
  std::sort(files.begin(), files.end());
  REQUIRE(files == expected);
  const auto same = [](const fs::path& a, const fs::path& b) { return read_file(a) == read_file(b); };
  for (const auto& file : files_under(kit)) {
    CAPTURE(file);
    CHECK(same(bundle / file, kit / file));
  }
  CHECK(same(bundle / "setup.sh", source / "autograder" / "setup.sh"));
  CHECK(same(bundle / "run_autograder", source / "autograder" / "run_autograder"));
  CHECK(same(bundle / "autograder" / "course.env", source / "autograder" / "course.env"));
  for (const char* script : {"setup.sh", "run_autograder"}) CHECK(::access((bundle / script).c_str(), X_OK) == 0);
}

/// Every file of the course's folders the kit draws on (labs, harness, grader, build, docs), students' copies left out.
inline std::string shipped_text(const fs::path& source) {
  std::string text;
  for (const char* folder : {"labs", "harness", "grader", "cmake", "docs"})
    for (const auto& entry : fs::recursive_directory_iterator(source / folder))
      if (entry.is_regular_file() && entry.path().filename() != "student.cu") text += read_file(entry.path());
  return text;
}

/// Lines of a solution that no file the kit draws on has (stubs, sheets, the harness's idioms): if one is in the kit,
/// the solution's text is. Long lines only, so braces and short idioms do not count; comments count (they are the
/// solution's too).
inline std::vector<std::string> distinctive_lines(const fs::path& solution, const std::string& shipped) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(solution));
  for (std::string line; std::getline(in, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.size() >= 30 && shipped.find(line) == std::string::npos) lines.push_back(line);
  }
  return lines;
}

/// Every source under the course's solutions/ (references, baselines, known-wrong and hostile fixtures), each with
/// its distinctive lines; for references and baselines, enough of them to notice a copy.
inline std::vector<std::pair<fs::path, std::vector<std::string>>> solution_lines(const fs::path& source) {
  const auto shipped = shipped_text(source);
  std::vector<std::pair<fs::path, std::vector<std::string>>> sources;
  for (const auto& entry : fs::recursive_directory_iterator(source / "solutions"))
    if (entry.is_regular_file() && entry.path().extension() == ".cu")
      sources.emplace_back(entry.path(), distinctive_lines(entry.path(), shipped));
  std::sort(sources.begin(), sources.end());
  for (const auto& [file, lines] : sources) {
    CAPTURE(file);
    if (file.filename() == "solution.cu" || file.filename() == "baseline.cu")
      REQUIRE(lines.size() >= 5);  // fewer would mean the selection broke
  }
  return sources;
}

/// The lines of `solution` (see distinctive_lines) that some file of `tree` holds, as "file: line".
inline std::vector<std::string> leaks(const fs::path& tree, const std::vector<std::string>& files,
                                      const std::vector<std::string>& lines) {
  std::vector<std::string> found;
  for (const auto& file : files) {
    const auto text = read_file(tree / file);
    for (const auto& line : lines)
      if (text.find(line) != std::string::npos) found.push_back(file + ": " + line);
  }
  return found;
}

/// No file of `tree` (its `files`), compiled objects included, holds a line of any solution source of the course.
inline void check_no_solution_text(const fs::path& tree, const std::vector<std::string>& files,
                                   const fs::path& source) {
  for (const auto& [solution, lines] : solution_lines(source)) {
    CAPTURE(solution);
    const auto found = leaks(tree, files, lines);
    CAPTURE(found);
    CHECK(found.empty());
  }
}

}  // namespace kit_test
