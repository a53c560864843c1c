// What every GPU test of this folder needs before it runs: compute-sanitizer, and a GPU that the lab binary sees.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <variant>

#include <harness/exit_codes.hpp>

#include "grader/process.hpp"
#include "grader/sanitize.hpp"

/// compute-sanitizer's path (grader::find_compute_sanitizer, from PATH and CUDA_HOME), or the test's exit code, said
/// why on stderr: 111 (skipped) without the tool or without a GPU, as the lab does (1 without the tool where
/// COURSE_REQUIRE_GPU=1), 1 when `lab info` fails otherwise.
inline std::variant<std::filesystem::path, int> sanitizer_and_gpu(const std::string& lab) {
  const char* path = std::getenv("PATH");
  const char* cuda_home = std::getenv("CUDA_HOME");
  const char* require = std::getenv("COURSE_REQUIRE_GPU");
  const auto sanitizer = grader::find_compute_sanitizer(path ? path : "", cuda_home ? cuda_home : "");
  if (!sanitizer) {
    std::cerr << "no compute-sanitizer on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin\n";
    return require && std::string(require) == "1" ? 1 : harness::exit_code::kNoDevice;
  }
  grader::ProcessOptions info;
  info.argv = {lab, "info"};
  info.timeout_s = 60;
  const auto probe = grader::run_process(info);
  if (probe.exit_code != 0) {
    std::cerr << lab << " info: exit " << probe.exit_code << " " << probe.err;
    return probe.exit_code == harness::exit_code::kNoDevice ? harness::exit_code::kNoDevice : 1;
  }
  return *sanitizer;
}
