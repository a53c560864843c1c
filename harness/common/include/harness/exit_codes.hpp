#pragma once
/// @file exit_codes.hpp
/// @brief Exit codes of the lab binaries (`lab1`, `lab2`, ...), the contract between them and the grader.
///
/// CUDA-free on purpose: the grader includes this header without linking the CUDA runtime. The numbers follow
/// gpu-mode's reference-kernels convention (110 CUDA error, 112 test failure, 113 bad spec) so a crash, a wrong
/// answer and a broken setup can never be mistaken for one another.

namespace harness::exit_code {

/// Everything asked for ran and passed.
inline constexpr int kOk = 0;
/// The command line could not be parsed.
inline constexpr int kUsage = 2;
/// A CUDA API call or a kernel launch failed (often a sticky error such as an illegal address in student code).
inline constexpr int kCudaError = 110;
/// No CUDA device is visible. Tests treat this as "skipped" unless `COURSE_REQUIRE_GPU=1`.
inline constexpr int kNoDevice = 111;
/// At least one correctness check failed (or, with `--expect-reject`, a known-wrong fixture was accepted).
inline constexpr int kTestFailure = 112;
/// The request names something that does not exist: an unknown exercise or implementation, or an implementation
/// that registers no launcher for the exercise.
inline constexpr int kBadSpec = 113;
/// An unexpected exception escaped (a bug in the course, not in the submission).
inline constexpr int kInternal = 114;
/// Not the lab binary's: what `labN check --tools` asks compute-sanitizer's front end to exit with when its tool found
/// something (`--error-exitcode`), so that a finding is told from the runner's own exit.
inline constexpr int kSanitizerFound = 86;

}  // namespace harness::exit_code
