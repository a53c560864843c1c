#pragma once
/// @file result_keys.hpp
/// @brief The keys of a lab binary's results (docs/protocol.md), spelled once for all who write or read them: the
/// referee (`labN check` lines, the `labN time` result), the grader's parsers (grader/src/grading/lab_files.cpp) and the
/// timing part of its own results file with the export reader, and the fake lab the grader's tests run. A key typed as
/// a literal on one side only is a drift no compiler sees; one renamed here is renamed on every side.

namespace harness::keys {

// Both streams name what they answer.
inline constexpr char kExercise[] = "exercise";  ///< the exercise a line or result is of
inline constexpr char kImpl[] = "impl";  ///< the implementation timed or checked
inline constexpr char kShape[] = "shape";  ///< the problem's shape, as text
inline constexpr char kSeed[] = "seed";  ///< the seed of the inputs
inline constexpr char kMessage[] = "message";  ///< what went wrong, for a human (empty when nothing did)

// `labN check`: a plan line ({"plan": {"exercise", "impl", "cases"}}) per exercise, then a line per case.
inline constexpr char kPlan[] = "plan";  ///< a plan line's object
inline constexpr char kCases[] = "cases";  ///< how many case lines the plan announces
inline constexpr char kOk[] = "ok";  ///< whether a case passed
inline constexpr char kHint[] = "hint";  ///< what a failed case's wrong elements suggest
// `labN check --tools`: after each tool's cases, {"tool": {"name", "verdict", "message"}}.
inline constexpr char kTool[] = "tool";  ///< a tool line's object: a CUDA tool the runners ran under
inline constexpr char kName[] = "name";  ///< the tool's name (memcheck, racecheck, ...)
inline constexpr char kVerdict[] = "verdict";  ///< kClean, kFound, kHung or kFailed
inline constexpr char kClean[] = "clean";  ///< every front end of the tool exited 0 and every case passed under it
inline constexpr char kFound[] = "found";  ///< a front end exited with exit_code::kSanitizerFound
inline constexpr char kHung[] = "hung";  ///< the tool's cases had not ended at its limit (`--tool-limit`)
inline constexpr char kFailed[] = "failed";  ///< anything else; the message says how it ended

// `labN time`: one object per exercise.
inline constexpr char kSaltSeed[] = "salt_seed";  ///< the seed of the timed rounds' salts
inline constexpr char kWork[] = "work";  ///< what one run must move and compute: bytes and flops
inline constexpr char kBytes[] = "bytes";  ///< bytes one run must move
inline constexpr char kFlops[] = "flops";  ///< floating-point operations one run must do
inline constexpr char kUnit[] = "unit";  ///< GB/s or GFLOP/s
inline constexpr char kCorrect[] = "correct";  ///< the output right before and after the timings
inline constexpr char kRunners[] = "runners";  ///< by contender: student, reference, baseline, ceiling, peers
inline constexpr char kPercentOfCeiling[] = "percent_of_ceiling";  ///< the student rate over the ceiling, %
inline constexpr char kMetrics[] = "metrics";  ///< the lab's extra numbers (overlap, ratios to a library)
inline constexpr char kMetricErrors[] = "metric_errors";  ///< each metric's standard error
inline constexpr char kPhasesS[] = "phases_s";  ///< seconds the run spent in each phase
inline constexpr char kRunnerOverheadMs[] = "runner_overhead_ms";  ///< the overhead the clock bound allows
inline constexpr char kStudentOnly[] = "student_only";  ///< whether the student was timed alone (no performance points)
inline constexpr char kFreshInputsEveryRound[] = "fresh_inputs_every_round";  ///< new inputs every round

// One contender's entry in `runners` (the grader's results file keeps the same names, each by contender).
inline constexpr char kMedianMs[] = "median_ms";  ///< the graded median, bounded by the referee's clock
inline constexpr char kMinMs[] = "min_ms";  ///< the fastest sample
inline constexpr char kMaxMs[] = "max_ms";  ///< the slowest sample
inline constexpr char kNoisePct[] = "noise_pct";  ///< robust relative spread of the samples, in percent
inline constexpr char kSamples[] = "samples";  ///< how many samples
inline constexpr char kRate[] = "rate";  ///< in the exercise's unit
inline constexpr char kEventMedianMs[] = "event_median_ms";  ///< a runner process's own CUDA events' median
inline constexpr char kHostGapMs[] = "host_gap_ms";          ///< the referee's clock less those events, median
inline constexpr char kProgram[] = "program";  ///< the runner program that ran it (the course's two share one)
inline constexpr char kWhat[] = "what";                      ///< the ceiling's: what it measures

}  // namespace harness::keys
