#pragma once
// What grading one lab's exercises shares between its steps (lab_run.cpp runs the checks and orders the steps):
// the lab and how it is graded (LabContext), how a lab binary runs, how a run that went wrong reads, and each step
// after the checks: the sanitizer runs (sanitizer_runs.cpp), the concept checks (concept_runs.cpp), and the timed
// runs with the score (timed_runs.cpp). Internal to grader_core.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/lab_files.hpp"
#include "grader/manifest.hpp"
#include "grader/lab_run.hpp"
#include "grader/process.hpp"

namespace grader::lab_run {

// The lab binary opens this path; the grader hands it fd 3, a pipe (docs/protocol.md).
inline constexpr const char* kResultsPath = "/dev/fd/3";

// Untimed runs (checks, sanitizer runs) that go at once, at most this many at a time: each, with its runner, holds
// a CUDA context of its own (some hundred MB of GPU memory each), and a GPU smaller than the course's may be grading
// every lab.
inline constexpr std::size_t kUntimedRunsAtOnce = 12;

// How every lab binary runs: clean environment, fresh directory under `dir_parent`, limits, results on fd 3, and
// `work_queues` hardware work queues for its CUDA contexts and its runners' (Manifest::work_queues).
ProcessOptions lab_process(std::vector<std::string> argv, double timeout_s, const std::filesystem::path& dir_parent,
                           int work_queues = Manifest{}.work_queues);

// A seed nobody can predict: a submission that recognizes the public seeds' inputs gains nothing.
std::uint64_t fresh_seed();

std::string stderr_hint(const ProcessResult& run);

/// Records why an exercise stopped short; returns false so a step can `return fail(...)`.
bool fail(ExerciseResult& x, Status status, std::string message);

// The verdict on a run that did not end with exit 0 or 112, the two codes after which the results file is read.
// `done` says how far the run got, e.g. "3 of 27 tests passed".
std::optional<std::pair<Status, std::string>> abnormal_end(const ProcessResult& run, std::string_view what,
                                                           std::string_view done, double timeout_s,
                                                           const std::string& impl, const std::string& exercise);

std::string untrusted(const ProcessResult& run, std::string_view what);

// One lab being graded: what every step reads, and how each starts a run of the lab binary.
struct LabContext {
  LabContext(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options, double check_timeout_s,
             double time_timeout_s);

  void tell(const std::string& what) const;
  ProcessOptions process(std::vector<std::string> argv, double timeout_s) const;
  ProcessResult launch(std::vector<std::string> argv, double timeout_s) const;

  const LabEntry& lab;
  const Manifest& manifest;
  const GradeOptions& options;
  double check_timeout_s, time_timeout_s;
  std::string binary;
  std::filesystem::path work;
};

// The steps after the checks: the sanitizer runs, then finish() for each exercise, which measures its
// concepts after its timed run. Each file says why its step runs as it does.

// `grade --sanitize` (sanitizer_runs.cpp): the manifest's compute-sanitizer tools over every exercise of `xs` whose
// check passed; passed[i] becomes false where a run stopped exercise i. In two halves, so that several labs' first
// runs go at once: plan_sanitizer() chooses the exercises and makes the lab-wide run (every tool, for two exercises
// or more), finish_sanitizer() reads its results and makes the runs of one exercise each where those leave a
// question.
struct SanitizerPlan {
  std::vector<std::size_t> chosen;       // the exercises whose check passed
  std::vector<ProcessOptions> lab_wide;  // one run of every tool over all of `chosen`, or none
};
SanitizerPlan plan_sanitizer(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                             const std::vector<bool>& passed);
void finish_sanitizer(const LabContext& ctx, std::vector<ExerciseResult>& xs, std::vector<bool>& passed,
                      const SanitizerPlan& plan, const std::vector<ProcessResult>& lab_wide);

// `grade --concepts` (concept_runs.cpp): every concept check of the exercise, after a check that passed.
void measure_concepts(const LabContext& ctx, ExerciseResult& x, const ExerciseSpec& spec);

// A `time` run's result for one exercise, and what it was asked for.
struct TimedRun {
  TimePlan plan;
  ProcessResult run;
};

// The first timed runs of the exercises `which` of `xs` (passed; those with performance points first, then those
// timed for the report only) in one `labN time` (timed_runs.cpp): those whose result came through whole, by index
// into `xs`; the others are timed alone. One exercise: its own run, whatever it says.
std::map<std::size_t, TimedRun> time_together(const LabContext& ctx, std::vector<ExerciseResult>& xs,
                                              const std::vector<std::size_t>& which);

// The exercises of `xs` whose first timed runs may be one run, in its order: those `passed` (their check passed) and
// graded by their time, then those timed for the report only (the student alone), which then cost no referee and
// runner of their own.
std::vector<std::size_t> timed_order(const std::vector<ExerciseResult>& xs, const std::vector<bool>& passed);
// A lab's checks and its first timed runs in one referee (`labN time --check-seeds`, timed_runs.cpp): the run that
// checks every exercise of `xs` at `check_seeds`, as the lab's check run would, then times those whose every case
// passed as time_together() would, after the timed turn (its descriptor is host_link::kTurnFd: the caller gives the
// run its turn_lock and shared hold, host_lock.hpp's SharedHolds). Its limit is the check's and the time's. nullopt
// where the first timed runs cannot be one run (a salt seed to replay), or where the lab's timed runs take the host
// link's turns (a batch's lab 07: its own time run, claimed and in turns per exercise).
struct ChecksThenTime {
  ProcessOptions process;
  std::uint64_t seed = 0;  // of the timed runs
};
std::optional<ChecksThenTime> checks_then_time(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                                               const std::vector<std::uint64_t>& check_seeds);
// The first timed runs that such a run made, of the exercises `which` (those whose check it decided and passed),
// read from its time lines (lab_files.hpp, split_checks_from_times()) as time_together() reads its run's; their
// seconds (those after its turn) are theirs.
std::map<std::size_t, TimedRun> read_checks_then_time(const LabContext& ctx, std::vector<ExerciseResult>& xs,
                                                      const std::vector<std::size_t>& which,
                                                      const ChecksThenTime& plan, const ProcessResult& run,
                                                      const std::string& time_lines);
// Timed run, score and concept checks of an exercise whose check and sanitizer runs ended (timed_runs.cpp); `first`,
// when given, is its first timed run, from time_together().
ExerciseResult finish(const LabContext& ctx, ExerciseResult x, const ExerciseSpec& spec, bool passed,
                      const TimedRun* first = nullptr);

}  // namespace grader::lab_run
