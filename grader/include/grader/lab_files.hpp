#pragma once
/// @file lab_files.hpp
/// @brief What a lab binary's results say (docs/protocol.md): the check results (JSON lines) and the time results (one
/// JSON object) parsed into plain structs, and checked against what the grader asked for.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace grader {

/// One runner's numbers from a timed run.
struct RunnerTiming {
  double median_ms = 0;
  std::optional<double> noise_pct{};  ///< robust relative spread, in percent
  std::optional<double> rate{};       ///< in the exercise's unit (GB/s or GFLOP/s)
  /// A runner's own CUDA event times' median, and the median of the referee's clock around each run less them: its
  /// `median_ms` is bounded by that clock (docs/protocol.md), and these say whether a slow time was the kernel or
  /// the runner's overhead. Empty for the ceiling and the peers, which run in the referee.
  std::optional<double> event_median_ms{}, host_gap_ms{};
  std::optional<double> samples{};  ///< how many samples the median is of
};

/// What `labN time` measured.
struct Timing {
  std::string unit;  ///< "GB/s" or "GFLOP/s"
  RunnerTiming student;
  /// Empty when the run timed the student alone (`--student-only`: an exercise worth no performance points).
  std::optional<RunnerTiming> reference, baseline;
  std::optional<RunnerTiming> ceiling;
  std::string ceiling_what;  ///< what the ceiling measures, e.g. "device-to-device copy"
  std::optional<double> percent_of_ceiling;
  /// Other contenders timed in the same rounds (libraries such as cub::DeviceReduce::Sum): reported, not graded.
  std::map<std::string, RunnerTiming> peers;
  /// The lab's extra numbers (ratios to a library, overlap fractions): reported, and graded where the manifest
  /// says `graded_by`; and the standard error of each, where the lab binary gives one.
  std::map<std::string, double> metrics, metric_errors;
  /// Where the time run spent its seconds (setup, generate, timing, ...): what fast grading has to cut.
  std::map<std::string, double> phases_s;
};

/// The comma-separated seeds of `--seeds` ("11,22,33"), duplicates dropped; throws std::invalid_argument if one
/// is not a non-negative integer or there is none.
std::vector<std::uint64_t> parse_seeds(std::string_view text);

/// What the grader asked one `check` run for.
struct CheckPlan {
  std::string exercise;
  std::string impl;
  std::vector<std::uint64_t> seeds;
};

/// What a check results stream (JSON lines) holds.
struct CheckFile {
  int plans = 0;   ///< plan lines found
  bool has_plan = false;
  int total = 0;   ///< from the plan line(s)
  int cases = 0;   ///< case lines found
  int passed = 0;  ///< case lines with "ok": true
  std::string plan_impl;      ///< the plan's "impl", empty if it names none
  std::map<std::string, std::vector<std::uint64_t>> seeds_by_shape;  ///< the cases found
  std::string first_failure;  ///< "shape 31 seed 1: <message>" of the first failed case
  std::string hint;           ///< the first failed case's `hint` line that has one (docs/protocol.md), else empty
  std::string error;          ///< why the stream is unusable, else empty
};

/// Parses the check results of one exercise. A last line cut off mid-write (no newline, not JSON) is ignored: the
/// process died while writing it.
CheckFile parse_check_results(std::string_view text, std::string_view exercise);

/// The lines of a check results stream of several exercises (`check --exercise a,b`), by the exercise each names
/// (its plan line's "exercise", a case's "exercise"), each exercise's in their order, each line ending in a newline.
/// A last line cut off mid-write is dropped, as parse_check_results() drops it. nullopt when a whole line is not a
/// JSON object or names no exercise: such a stream cannot say whose it is, and each exercise is checked on its own.
std::optional<std::map<std::string, std::string>> split_check_results(std::string_view text);

/// The results of a `time --check-seeds` run (a lab's checks, then the timed runs of the exercises that passed): the
/// check lines, and, from the first whole line that is a timed result (a JSON object that says whether the output was
/// "correct"), the time lines. No timed result: all of it is the check's.
std::pair<std::string, std::string> split_checks_from_times(std::string_view text);

/// Why check results contradict the plan, or "" if they do not: a plan for another implementation, more than one
/// plan, a case count that is not a whole number per seed, a case at a seed not asked for or twice, or (`finished`:
/// the binary ended on its own, so every planned case ran) a shape not checked at every seed.
std::string contradiction(const CheckFile& file, const CheckPlan& plan, bool finished);

/// What the grader asked one `time` run for.
struct TimePlan {
  std::string exercise;
  std::string impl;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> salt_seed;  ///< `time --salt-seed`; empty: the lab binary draws one
  /// Timed for the report only, the student alone (`labN time --student-only`): an exercise worth no performance
  /// points, whose reference and baseline runs would buy nothing (lab 04's atomic stage: 471 ms a run, 8 s a grade).
  bool student_only = false;
};

/// What a time results stream holds.
struct TimeFile {
  std::optional<bool> correct;   ///< empty if the field is missing
  std::string message;
  std::string exercise, impl, shape;  ///< as the binary reported them, empty if missing
  std::optional<std::uint64_t> seed;  ///< empty if missing or not a non-negative integer
  std::optional<std::uint64_t> salt_seed;  ///< the rounds' salt seed it reports; empty if missing
  std::optional<Timing> timing;  ///< empty if the runners are missing or incomplete
  std::string timing_problem;    ///< why `timing` is empty
  std::string error;             ///< why the stream is unusable, else empty
};

/// Parses time results; `student_only`: the reference's and the baseline's entries may be missing.
TimeFile parse_time_results(std::string_view text, bool student_only = false);

/// Why time results contradict the plan, or "" if they do not: another exercise, implementation, seed or (asked for)
/// salt seed, or no shape.
std::string contradiction(const TimeFile& file, const TimePlan& plan);

/// Seeds as the lab binary's `--seeds` takes them: "11,22,33".
std::string join_seeds(const std::vector<std::uint64_t>& seeds);

/// `text` cut to `n` characters, "..." marking a cut.
std::string clip(std::string_view text, std::size_t n);

}  // namespace grader
