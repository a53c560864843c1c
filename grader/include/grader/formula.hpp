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
};

/// The points an exercise earned.
struct Score {
  double correctness = 0;    ///< correctness points earned
  double perf_fraction = 0;  ///< f in [0, 1]
  double performance = 0;    ///< performance points earned: performance_points * f
  double total = 0;          ///< correctness + performance
};

/// The grade formula. The one place points are computed; see formula.cpp for the exact rules.
Score score_exercise(const ScoreInputs& in);

}  // namespace grader
