#include "grader/formula.hpp"

#include <algorithm>
#include <cmath>

namespace grader {

// The grade formula (the README quotes this comment):
//
//   Correctness points = correctness_points * passed / total (partial credit; 0 when total is 0, i.e. when the
//   check run wrote no plan line).
//
//   Performance fraction f: 0 unless every test passed (passed == total > 0) and the timed run was correct:
//   correctness is a gate. Otherwise, with t_s, t_r and t_b the median times of the student, the reference and the
//   baseline, all measured in the same run, and full = full_marks_at * t_r (full_marks_at defaults to 1.1):
//     f = 1                                  if t_s <= full
//     f = 0                                  if t_s >= t_b
//     f = ln(t_b / t_s) / ln(t_b / full)     otherwise (log scale: each halving of the time earns the same points)
//   Degenerate case: if t_b <= full (the baseline is not slower than the full-marks time), f = 1 if t_s <= full
//   and 0 otherwise. A time that is not a positive finite number gives f = 0.
//   An exercise whose baseline time varies between processes more than timing noise (baseline_margin in its
//   manifest entry, default 0) counts t_b / (1 + baseline_margin) as t_b: the shipped code, timed as the student,
//   must not earn points by drawing a slower baseline (lab 07's pageable copies: 43.8 to 55.9 ms from one process to
//   the next on an H200, results/2026-11-23-h200-53ade6d/grading-overhead.txt).
//
//   Performance points = performance_points * f.
//   f's resolution: with e_s, e_r and e_b the standard errors of ln t_s, ln t_r and ln t_b (median_log_error()),
//   L = ln(t_b / full) and f's derivatives, sd(f)^2 = e_s^2 / L^2 + ((ln(t_s / full) e_b)^2 + (ln(t_b / t_s) e_r)^2)
//   / L^4: how far the noise of this run could move f. It is reported beside f, never subtracted from it.
//   Exercise score = correctness points + performance points; a lab's score is the sum over its exercises.
//   `grade all` adds a weighted total: sum(weight * score / max_score) / sum(weight), in percent, with each lab's
//   weight from its manifest.
Score score_exercise(const ScoreInputs& in) {
  Score s;
  const int total = std::max(in.tests_total, 0);
  const int passed = std::clamp(in.tests_passed, 0, total);
  s.correctness = total > 0 ? in.correctness_points * passed / total : 0.0;

  const auto valid = [](double t) { return std::isfinite(t) && t > 0; };
  const bool gate = total > 0 && passed == total && in.timed_run_correct;
  if (gate && valid(in.student_ms) && valid(in.reference_ms) && valid(in.baseline_ms) && in.full_marks_at > 0) {
    const double ts = in.student_ms, full = in.full_marks_at * in.reference_ms;
    const double tb = in.baseline_ms / (1 + std::max(0.0, in.baseline_margin));
    if (ts <= full) {
      s.perf_fraction = 1;
    } else if (tb <= full || ts >= tb) {
      s.perf_fraction = 0;
    } else {
      s.perf_fraction = std::clamp(std::log(tb / ts) / std::log(tb / full), 0.0, 1.0);
    }
    s.window = tb / in.reference_ms;
    if (tb > full) {
      const double scale = std::log(tb / full), raw = std::log(tb / ts) / scale;
      const double es = in.student_log_error, er = in.reference_log_error, eb = in.baseline_log_error;
      const double above = std::log(ts / full), below = std::log(tb / ts);
      const double sd = std::sqrt(es * es / (scale * scale) +
                                  (above * above * eb * eb + below * below * er * er) / std::pow(scale, 4));
      // Clamped beyond two standard deviations, f is 0 or 1 whatever the noise did.
      s.perf_fraction_sd = raw - 2 * sd >= 1 || raw + 2 * sd <= 0 ? 0.0 : sd;
    }
  }
  s.performance = in.performance_points * s.perf_fraction;
  s.total = s.correctness + s.performance;
  return s;
}

double median_log_error(double noise_pct, double samples) {
  if (!(samples > 0) || !std::isfinite(noise_pct) || noise_pct < 0) return 0.0;
  return 1.2533 * noise_pct / 100.0 / std::sqrt(samples);
}

}  // namespace grader
