#pragma once
/// @file formula.hpp
/// @brief The grade formula: one exercise's points from its test counts and timings (documented in formula.cpp).

namespace grader {

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
  double baseline_margin = 0;     ///< from the manifest: the baseline time counts as t_b / (1 + baseline_margin)
  /// How well each median is known: the standard error of its logarithm (median_log_error()); 0: exactly.
  double student_log_error = 0, reference_log_error = 0, baseline_log_error = 0;
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
};

/// A performance fraction known to within this standard deviation counts as resolved by its run (issue: f to about
/// 0.05); the grader says so in a message where a run's noise leaves f less sure than that.
inline constexpr double kResolvedFractionSd = 0.05;

/// The standard error of the logarithm of a median of `samples` samples whose robust spread is `noise_pct` percent
/// of it: 1.2533 (the median's efficiency against the mean for normal noise) * noise / sqrt(samples). 0 for no
/// samples.
double median_log_error(double noise_pct, double samples);

/// The grade formula. The one place points are computed; see formula.cpp for the exact rules.
Score score_exercise(const ScoreInputs& in);

}  // namespace grader
