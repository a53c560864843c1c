#pragma once
// What the tests that run a README's commands as typed share (tests/readme/front_door_test.cpp for the course's README,
// tests/kit/kit_test.cpp for the student kit's): the commands read from the README itself, and whether a GPU is there.
#include <grader/process.hpp>

#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace readme {

/// The command lines of the first ```sh block under `heading`, comments and blank lines dropped.
inline std::vector<std::string> commands(const std::filesystem::path& readme, const std::string& heading) {
  std::ifstream in(readme);
  std::vector<std::string> lines;
  bool in_section = false, in_block = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## " + heading;
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = line == "```sh";
      continue;
    }
    if (!in_block) continue;
    const auto hash = line.find(" #");
    if (hash != std::string::npos) line.erase(hash);
    line.erase(line.find_last_not_of(" \t") + 1);
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

/// True when nvidia-smi lists a GPU: then the commands grade for real instead of ending with the no-GPU line.
inline bool gpu_visible() {
  const auto r = grader::run_process({.argv = {"nvidia-smi", "-L"}, .timeout_s = 30});
  return r.started && r.exit_code == 0 && r.out.find("GPU ") != std::string::npos;
}

/// How `./grade lab1`, the last of the two commands, must end (the shell echoed "@@exit 1 <code>" after it): with a
/// GPU, graded with its results file; without one, the grader's one no-GPU line, exit code 3, and nothing after it.
inline void check_grade_ended(const std::string& out, const std::string& err, bool gpu) {
  if (gpu) {
    CHECK(err.find("@@exit 1 0") != std::string::npos);
    CHECK(out.find("results: grade-results.json") != std::string::npos);
  } else {
    CHECK(err.find("@@exit 1 3") != std::string::npos);
    std::smatch m;
    REQUIRE(std::regex_search(err, m, std::regex("grade: grading needs an NVIDIA GPU[^\n]*\n@@exit 1 3")));
    CHECK(m.str().find("no CUDA GPU is visible") != std::string::npos);
  }
}

}  // namespace readme
