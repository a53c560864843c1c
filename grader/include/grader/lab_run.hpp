#pragma once
/// @file lab_run.hpp
/// @brief Grades one lab: runs its binary per docs/protocol.md, reads what it wrote, and classifies every failure.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/concepts.hpp"
#include "grader/discovery.hpp"
#include "grader/formula.hpp"
#include "grader/lab_files.hpp"
#include "grader/manifest.hpp"

namespace grader {

/// How grading one exercise went.
enum class Status {
  kOk,         ///< every test passed and the timed run was correct
  kWrong,      ///< a test failed, or the timed run's output was wrong
  kTimeout,    ///< the check or time run hung and was killed
  kCrash,      ///< killed by a signal, or an exit code the protocol does not define
  kCudaError,  ///< exit 110: a CUDA call or launch failed
  kBadOutput,  ///< the results are missing, unparseable, or contradict what the grader asked for
  kMissing,    ///< exit 113: the implementation has no launcher for this exercise
  kNoBinary,   ///< the lab binary is not built
  kInvalidRun, ///< correct, but the reference ran far below its usual % of ceiling: no performance points
  kMemoryError,  ///< --sanitize: memcheck (or initcheck) found a bad memory access: no performance points
  kRace,         ///< --sanitize: racecheck or synccheck found a hazard: no performance points
};

/// The status as printed and stored in JSON: ok, wrong, timeout, crash, cuda-error, bad-output, missing, no-binary,
/// invalid-run, memory-error, race.
std::string_view to_string(Status status);

/// The reference's rate over the ceiling's, in percent; empty when the run lacks either rate.
std::optional<double> reference_percent_of_ceiling(const Timing& timing);

/// The sanity gate on the reference (docs/threat-model.md): a run in which the reference reaches less than this
/// fraction of the % of ceiling its manifest records (`reference_percent_of_ceiling`) is an invalid run, not a grade.
/// Every runner's time is compared with the reference's, so a reference slowed by something else on the GPU (work
/// left running, a throttled or shared GPU) would make every student look fast. The gate is loose because GPUs
/// differ: the manifests record an H100, and on an H200 (more bandwidth, so a faster copy ceiling) the references of
/// the atomics and of lab 2's block_sums reach 0.70x of their H100 standing (results/h100.json, results/h200.json);
/// 0.6 leaves room for that while a reference at half its usual standing or worse is caught.
inline constexpr double kReferenceGateFraction = 0.6;

/// The outcome of one exercise: always filled in, whatever the binary did.
struct ExerciseResult {
  std::string name;
  Status status = Status::kOk;
  std::string message;  ///< one line for a human
  std::string hint;     ///< for a failed check: what the pattern of wrong elements suggests, else empty
  int tests_passed = 0;
  int tests_total = 0;
  std::optional<Timing> timing;  ///< empty when there was no readable timed run
  Score score;
  double correctness_max = 0;
  double performance_max = 0;
  double wall_s = 0;  ///< seconds the lab binary ran for this exercise (check and time): what a grading job costs
  double check_s = 0;  ///< of which the `check` run that decided it (its share of the lab's one run, or its own)
  double time_s = 0;   ///< of which `time`
  double sanitize_s = 0;  ///< of which compute-sanitizer (its share of each lab-wide run, and its own runs)
  std::vector<std::uint64_t> seeds;         ///< the seeds `check` ran with (to reproduce: `grade --seeds`)
  std::optional<std::uint64_t> timed_seed;  ///< the seed `time` ran with, if it ran (`grade --timed-seed`)
  /// the seed of the timed rounds' salts, as `time` reported it (`grade --timed-salt-seed`)
  std::optional<std::uint64_t> timed_salt_seed;
  std::string timed_shape;                  ///< the shape `time` reported, if it ran
  /// How many `time` runs graded it: more than one where the first left f unresolved and the grader sampled longer
  /// (kResolveRetimes); the results are the last run's.
  int timed_runs = 0;
  /// `grade --sanitize`: one entry per compute-sanitizer tool run, "memcheck: clean", "racecheck: <first finding>"
  /// or "synccheck: could not run: <why>"; empty when none ran.
  std::vector<std::string> sanitized;
  /// `grade --concepts`: one entry per concept check of the manifest, measured or skipped; empty when none ran.
  /// Their points are in `score.total` and max_score(); a skipped check counts in neither.
  std::vector<ConceptResult> concepts;

  /// correctness_max + performance_max + the points of the concept checks that were measured.
  double max_score() const {
    double concept_max = 0;
    for (const auto& c : concepts) concept_max += c.points_max;
    return correctness_max + performance_max + concept_max;
  }
};

/// The outcome of one lab for one implementation.
struct LabResult {
  int number = 0;
  std::string id;
  std::string title;
  double weight = 1;
  bool built = true;            ///< false: the binary is missing and every exercise is no-binary
  std::string message;          ///< a lab-level problem (not built), else empty
  double check_timeout_s = 0;   ///< the limits used
  double time_timeout_s = 0;
  double wall_s = 0;            ///< seconds grading the lab took (grade_labs(): since the lab run before it ended)
  double sanitizer_wait_s = 0;  ///< seconds its sanitizer runs waited for the host's turn, with nothing left to time
                                ///< (grade_labs(), a batch)
  std::vector<ExerciseResult> exercises;

  /// Sum of the exercises' scores.
  double score() const;
  /// Sum of the exercises' maximum scores.
  double max_score() const;
};

/// How to grade.
struct GradeOptions {
  std::string impl = "student";          ///< the implementation graded in the student slot
  std::filesystem::path bin_dir;         ///< where `labN` lives
  /// Every run of the lab binary gets a fresh working directory in `work_dir/labN/`, removed after it.
  std::filesystem::path work_dir;
  /// Comma-separated seeds passed to every `check --seeds`; when empty, every check run gets fresh seeds that the
  /// submission cannot know in advance. A malformed list makes grade_lab() throw std::invalid_argument.
  std::string seeds;
  std::optional<std::uint64_t> timed_seed;  ///< passed to every `time --seed`; when empty, a fresh one each run
  std::optional<std::uint64_t> timed_salt_seed;  ///< passed to every `time --salt-seed`; when empty, the binary draws
  std::string exercise;                  ///< grade only this exercise when not empty
  std::optional<double> check_timeout_s; ///< overrides the manifest
  std::optional<double> time_timeout_s;  ///< overrides the manifest
  double kill_grace_s = 2;               ///< between SIGTERM and SIGKILL of a hung run
  std::function<void(const std::string&)> progress;  ///< told what runs next (may be empty)
  /// `grade --sanitize`: compute-sanitizer, run with the manifest's tools after the checks, on each exercise whose
  /// check passed, and before the timing but what a batch's worker times while waiting for the host's turn
  /// (sanitizer_lock; docs/sanitizer.md); empty: no sanitizer runs.
  std::optional<std::filesystem::path> sanitizer;
  /// `grade --concepts`: the tools found, shared by every lab graded (what went wrong with one is said once); null: no
  /// concept checks run (docs/concepts.md).
  std::shared_ptr<ConceptTools> concepts;
  /// Told once about a problem that touches every later exercise (ncu may not read the counters); may be empty.
  std::function<void(const std::string&)> warn;
  /// The lock file of the host link's turns: in a lab whose manifest says `host_link`, each exercise's timed runs
  /// take a turn (`labN time --host-link-turn-fd`, granted by run_process with the run's clock stopped while it
  /// waits), so that no two workers of a batch time copies over the host at once; empty: no turns (one `grade` is
  /// alone on its host).
  std::optional<std::filesystem::path> host_link_lock;
  /// The lock file of the host's sanitizer turns: grade_labs() holds it (flock, waited for outside every run's limit)
  /// while its labs' lab-wide sanitizer runs go, so that the workers of a batch on one host run theirs one worker
  /// after another, and times what it can while another holds it; empty: no turns (one `grade` is alone on its host).
  std::optional<std::filesystem::path> sanitizer_lock;
};

/// What `labN info` answered.
struct InfoOutcome {
  enum class Kind { kOk, kNoGpu, kNoBinary, kFailed } kind = Kind::kFailed;
  nlohmann::json info;  ///< the parsed JSON object when kind is kOk
  std::string message;  ///< the binary's stderr line (no GPU) or what went wrong
};

/// Runs `binary info` with a 30 s limit, in the same clean environment as every other run of a lab binary.
InfoOutcome query_info(const std::filesystem::path& binary);

/// The message for a lab that is not built: "lab2 is not built: run `make lab2` in the build directory".
std::string not_built_message(int lab_number);

/// Grades every exercise of the manifest (or only `options.exercise`), in manifest order. Never throws for anything
/// the binary does; a missing binary gives a result whose exercises all have status no-binary.
///
/// Each run of the binary gets a clean environment (only the variables a lab needs), a fresh working directory,
/// resource limits, and `--results /dev/fd/3`: a pipe that only it and what it starts hold. Its results are read
/// after every process it started is dead, and rejected (bad-output) where they contradict what was asked for.
LabResult grade_lab(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options);

/// One lab for grade_labs(): where it is, its manifest, and how to grade it (kept alive until grade_labs() returns).
struct LabToGrade {
  const LabEntry* lab = nullptr;
  const Manifest* manifest = nullptr;
  GradeOptions options;
};

/// When grade_labs()'s steps ran, in seconds of the host's monotonic clock (CLOCK_MONOTONIC: one clock for every
/// process of the host, so the steps of a batch's workers can be laid side by side and their overlaps read).
struct GradingSteps {
  struct Span {
    double from = 0, to = 0;
  };
  Span checks;                             ///< every lab's check runs at once
  Span sanitizer;                          ///< the lab-wide sanitizer runs, from the turn held; empty if none ran
  /// Each lab's own step (the rest of its sanitizer runs, its timed and concept runs), by lab number, in the order run;
  /// a lab timed while the sanitizer's turn was another worker's has two: those first timed runs, and the rest.
  std::vector<std::pair<int, Span>> labs;
};

/// The host's monotonic clock in seconds: what GradingSteps holds.
double monotonic_seconds();

/// Grades several labs as grade_lab() grades one, with every check of every built lab run at once first; a lab's check
/// run goes on to its first timed runs where it may (`labN time --check-seeds`), its turn granted once every check run
/// has ended, one lab at a time (SharedHolds in grader/host_lock.hpp), so that no timed run shares the GPU; then the
/// lab-wide sanitizer runs, then the rest of each lab's sanitizer, timed and concept runs, lab after lab. On an H200
/// checking every lab at once saved 1 s of the 19 s seven labs' checks took lab by lab (docs/protocol.md). The labs go
/// in order, except where their options give the host link's lock (a batch): there a lab whose manifest says host_link
/// goes first unless another worker has claimed the host link, and then as soon as none has or only such labs are left.
/// With a sanitizer lock in their options (a batch), the lab-wide sanitizer runs wait for the host's sanitizer turn,
/// and while another worker holds it the first timed runs of the labs not yet timed go first (one over the host link
/// only where its claim is free), lab after lab, the turn asked for again after each; an exercise the sanitizer then
/// stops earns nothing from its timed run. `done` (may be empty) is called with each lab's result as soon as it is
/// finished, in the order they ran; the results returned are in the order of `labs`. Each result's wall_s is the time
/// since the lab that ran before it finished (the first's includes every lab's checks and sanitizer runs): they add up
/// to the whole. `steps`, where given, gets when each step ran.
std::vector<LabResult> grade_labs(const std::vector<LabToGrade>& labs, const std::function<void(LabResult&)>& done,
                                  GradingSteps* steps = nullptr);


}  // namespace grader
