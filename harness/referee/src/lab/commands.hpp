#pragma once
// The subcommands of every lab binary (docs/protocol.md). Each returns an exit code from harness/exit_codes.hpp.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace harness {
struct ExerciseSpec;  // problem.hpp
}  // namespace harness

namespace harness::lab_cli {

struct CheckRequest {
  std::string impl = "student";
  std::vector<std::string> exercises;  // empty: every exercise the implementation has
  std::vector<std::uint64_t> seeds{1, 2, 3};
  std::string results;   // JSON-lines file; empty: none
  bool expect_reject = false;
  bool small = false;    // only a few small test shapes (small_shapes in check.cpp): for compute-sanitizer
  std::string sanitizer;           // compute-sanitizer's path, for `tools`
  std::vector<std::string> tools;  // the cases again under each of these tools, the runners through its front end
  double tool_limit_s = 0;  // each tool's cases and report end after this long (its verdict `hung`); 0: no limit
  std::vector<std::string> catch_args;  // passed through to Catch2
};

struct TimeRequest {
  std::string impl = "student";
  std::vector<std::string> exercises;  // timed one after another by the same runners, a result line each
  std::string results;
  double max_seconds = 3.0;  // TimingOptions::max_seconds: sampling goes on past it only to three samples each
  std::size_t min_samples = 10;  // TimingOptions::min_samples: the grader asks for more where f was unresolved
  std::uint64_t seed = 20261121;  // the grader draws a fresh one for every graded run
  // The seed of the rounds' salts (fresh inputs, sampled positions). Empty: drawn from std::random_device after the
  // runners are up, so no submission can know it in advance, and reported as "salt_seed"; given back, it replays
  // every round's inputs.
  std::optional<std::uint64_t> salt_seed;
  std::string shape;  // empty: the exercise's timed shape
  // The implementation alone (and the ceiling and peers): no reference or baseline runner. Each timed output is then
  // checked against the CPU reference instead of the reference's output on fresh inputs.
  bool student_only = false;
  // Exercises of `exercises` timed as with --student-only, for the report, one sample and no last check, while the
  // others of the run are timed against the reference and baseline (the three runners serve both kinds).
  std::vector<std::string> student_only_for;
  // The descriptor of the host link's turns (harness/host_link.hpp), which the grader gives: each exercise's checked
  // and timed runs, whose copies cross between host and GPU, take a turn through it. -1: no turns.
  int host_link_turn_fd = -1;
  // `--check-seeds`: the run first checks its exercises at these seeds, as `check --exercise` would (its lines first in
  // --results), then times those of them whose every case passed: a lab's checks and first timed runs in one referee,
  // one CUDA process a lab fewer. Empty: the timed runs alone.
  std::vector<std::uint64_t> check_seeds;
  // With check_seeds, the descriptor of the timed part's turn (host_link.hpp's protocol), asked once between the
  // checks and the timed runs' runners: `grade` grants it once every check run of its worker has ended and no other
  // lab is being timed, so that no timed run shares the GPU. -1: no turn.
  int timed_turn_fd = -1;
};

/// The exercises `names` names, in that order, each once; nullopt (said on stderr) when one is unknown.
std::optional<std::vector<const ExerciseSpec*>> find_exercises(const std::vector<std::string>& names);

int info();
int list();
/// `failed`, where given, gets the exercises with a case that did not pass.
int check(const CheckRequest& request, const char* argv0, std::set<std::string>* failed = nullptr);
int time(const TimeRequest& request);
/// `time --check-seeds`: check(), then time() of the exercises whose every case passed, after the timed turn.
int check_then_time(const TimeRequest& request, const char* argv0);

/// 0 when a GPU is visible; otherwise prints why and returns the exit code to use (kNoDevice, or kCudaError when
/// COURSE_REQUIRE_GPU=1 asks for a missing GPU to be a failure rather than a skip).
int require_device();

}  // namespace harness::lab_cli
