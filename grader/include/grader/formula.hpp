#pragma once
/// @file formula.hpp
/// @brief The grade formula: one exercise's points from its test counts and timings (documented in formula.cpp).
#include <harness/median.hpp>

#include <optional>
#include <string>

namespace grader {

/// The standard error of a median's logarithm (harness/median.hpp): the referee and the grader share it.
using harness::median_log_error;

/// A performance fraction read from a metric of the timed run (the manifest's `graded_by`): the student's and the
/// reference's values, each 0 at the baseline and higher when better, with their standard errors.
struct MetricInputs {
  std::string name;  ///< the manifest's stem ("overlap"), for messages
  double student = 0, reference = 0;
  double student_error = 0, reference_error = 0;
  double full_marks_at = 0.8;  ///< full marks at this share of the reference's value
  double zero_at = 0;          ///< no points at or below this value
};

/// What the formula needs to know about one graded exercise.
struct ScoreInputs {
  double correctness_points = 0;  ///< the manifest's maximum
  double performance_points = 0;  ///< the manifest's maximum
  int tests_passed = 0;
  int tests_total = 0;            ///< from the check run's plan line; 0 if there was none
  bool timed_run_correct = false; ///< a timed run happened and the student's output was right before and after it
  double student_ms = 0;          ///< medians from the same timed run
  double reference_ms = 0;
  double baseline_ms = 0;
  double full_marks_at = 1.1;     ///< from the manifest
  double zero_at_most = 0;        ///< from the manifest: t_b counts as min(t_b, zero_at_most * t_r); 0: as t_b
  double zero_margin = 0;         ///< from the manifest: t_b counts as t_b / (1 + zero_margin) (before the cap)
  /// How well each median is known: the standard error of its logarithm (median_log_error()); 0: exactly.
  double student_log_error = 0, reference_log_error = 0, baseline_log_error = 0;
  /// The robust spread of one sample (percent) of the reference's and the baseline's runs: whether this run's time
  /// scale is wide enough to grade on (0: not known, taken as quiet).
  double reference_noise_pct = 0, baseline_noise_pct = 0;
  /// The student's and the reference's own CUDA event medians (0: not reported). Each median above is bounded by the
  /// referee's clock (docs/protocol.md); these say how much of it was the runner's overhead, not the kernel.
  double student_event_ms = 0, reference_event_ms = 0;
  /// Set where the manifest grades the exercise by a metric instead of the times.
  std::optional<MetricInputs> metric{};
};

/// The points an exercise earned.
struct Score {
  double correctness = 0;    ///< correctness points earned
  double perf_fraction = 0;  ///< f in [0, 1]
  double performance = 0;    ///< performance points earned: performance_points * f
  double total = 0;          ///< correctness + performance
  /// The run's resolution of f: the standard deviation the medians' errors give it (0 where f is 0 or 1 beyond
  /// two of them, or was not measured), and the scale's width, t_b / t_r of this run (0 when not timed).
  double perf_fraction_sd = 0;
  double window = 0;
  /// Why this run cannot grade performance ("" when it can): its time scale is too narrow for its noise, or the
  /// reference reached too little of the graded metric. f is then 0 and the grader marks the run invalid.
  std::string ungraded{};
  /// How much the referee's clock moved f: f less the f of a student time whose overhead over its own CUDA events is
  /// the reference's (t_s's events times t_r / t_r's events). Negative where the student's runner was charged more
  /// than the reference's, positive the other way round; 0 where graded by a metric, ungraded, or events are missing.
  double host_charge = 0;
};

/// A performance fraction known to within this standard deviation counts as resolved by its run (issue: f to about
/// 0.05); the grader says so in a message where a run's noise leaves f less sure than that.
inline constexpr double kResolvedFractionSd = 0.05;

/// A time scale is too narrow to grade on when t_b is less than this much above the full-marks time (with full
/// marks at 1.1x, a window t_b / t_r under 1.21: one percent of time would move more than a tenth of the points) ...
inline constexpr double kNarrowestScale = 1.1;
/// ... or when its width in logarithms, ln(t_b / full), is under this many times the per-sample noise of the
/// reference or the baseline: the "noise above a fifth of the window".
inline constexpr double kNoiseSpans = 5;
/// A metric-graded exercise cannot be graded where the reference reaches less than this of its metric (lab 07: a
/// machine whose copies and kernels did not overlap for the reference either).
inline constexpr double kLeastReferenceMetric = 0.25;
/// After sampling longer (kResolveRetimes), a performance fraction less sure than this is not graded: noise would
/// decide the points.
inline constexpr double kUngradableSd = 0.15;

/// A timed run whose host clock moved f by more than this (Score::host_charge, either way) is timed again: the charge
/// is meant for work a runner hides from its events, which it hides again in every run, while a fair runner's
/// overhead grows with a disturbance of its host (another process on its core, a late wake-up), which a new run with
/// new runner processes seldom meets again.
inline constexpr double kHostChargeTolerance = 0.02;

/// The grade formula. The one place points are computed; see formula.cpp for the exact rules.
Score score_exercise(const ScoreInputs& in);

}  // namespace grader
