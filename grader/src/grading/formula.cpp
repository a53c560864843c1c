#include "grader/formula.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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
//   A time that is not a positive finite number gives f = 0.
//   An exercise whose baseline code runs at a different speed in another process of the same run (zero_margin m in
//   its manifest entry) counts t_b / (1 + m) as t_b: the shipped code, timed as the student, earns nothing when its
//   own process draws the faster time (lab 01's column_sums: its stub's lanes read 4 MiB apart, and how fast that
//   runs moves with the process several times as much as any other exercise's baseline does).
//   An exercise whose baseline time is a property of the host more than of the code (zero_at_most in its manifest
//   entry, a multiple z of the reference's time) counts min(t_b, z * t_r) as t_b: the scale's zero no longer moves
//   with the baseline's process, so neither does a kernel's f, and the shipped code, timed as the student, still
//   earns nothing wherever its time is above z * t_r (lab 07's pinned_memory: a round trip through pageable memory
//   takes what the host's page handling gives the process, 2.5 to 8.5 times the pinned reference; its sheet says
//   more; lab 01's column_sums: its stub's strided reads take about as long on a GPU whose memory is half again as
//   fast, so a zero at the baseline would sit further from the reference there and grade the same kernel higher).
//
//   Graded by a metric instead (the manifest's `graded_by`, lab 07's pipelines): with m_s and m_r the student's and
//   the reference's values of it in the same run (0 at the baseline, higher when better) and k its full_marks_at,
//     f = clamp((m_s - z) / (k m_r - z), 0, 1)       (linear: the metric is already a share of what can be gained)
//   where z is the metric's zero_at (default 0: the value at the baseline): what the baseline's own code drew as the
//   student, so that a value between-process noise gives earns nothing; and sd(f)^2 = (e_s / (k m_r - z))^2 +
//   ((m_s - z) k e_r / (k m_r - z)^2)^2 from the metric's standard errors e_s and e_r.
//   A run where m_r < kLeastReferenceMetric, or where k m_r <= z, cannot grade by the metric (the reference did not
//   show it either).
//
//   A run that cannot tell kernels apart does not hand out points by chance: graded by time, f is 0 and the run is
//   ungraded (the grader marks it invalid-run and says why) when t_b < kNarrowestScale * full (a baseline no slower
//   than the full-marks time included: there is no scale at all), or when the scale's
//   width ln(t_b / full) is under kNoiseSpans times the per-sample noise of the reference or of the baseline; graded
//   either way, when f's standard deviation is above kUngradableSd (after the grader has sampled longer).
//
//   Performance points = performance_points * f.
//   The host clock's charge (Score::host_charge, reported beside f, never added to it): graded by time, with e_s and
//   e_r the student's and the reference's own CUDA event medians, f less f(t'_s) where t'_s = e_s * t_r / e_r, the
//   student's time had its runner's overhead over its events been the reference's. The grader times a run again
//   where it is beyond kHostChargeTolerance (grader/src/grading/timed_runs.cpp).
//   f's resolution: with e_s, e_r and e_b the standard errors of ln t_s, ln t_r and ln t_b (median_log_error()),
//   L = ln(t_b / full) and f's derivatives, sd(f)^2 = e_s^2 / L^2 + ((ln(t_s / full) e_b)^2 + (ln(t_b / t_s) e_r)^2)
//   / L^4: how far the noise of this run could move f. It is reported beside f, never subtracted from it.
//   Exercise score = correctness points + performance points; a lab's score is the sum over its exercises.
//   `grade all` adds a weighted total: sum(weight * score / max_score) / sum(weight), in percent, with each lab's
//   weight from its manifest.
namespace {

// Beyond two standard deviations of a clamp, f is 0 or 1 whatever the noise did: its spread is 0.
double clamped_sd(double raw, double sd) { return raw - 2 * sd >= 1 || raw + 2 * sd <= 0 ? 0.0 : sd; }

// f and its spread from the manifest's metric; `ungraded` says why not where the reference shows too little of it.
void score_by_metric(const MetricInputs& m, Score& s) {
  const double full = m.full_marks_at * m.reference;
  if (!std::isfinite(m.student) || !std::isfinite(m.reference) || !(m.reference >= kLeastReferenceMetric) ||
      !(full > m.zero_at)) {
    s.ungraded = fmt::format("the reference reached {} {:.2f} in this run, under the {:g} needed to grade a share of "
                             "it: this machine cannot grade this exercise's performance",
                             m.name, m.reference, std::max(kLeastReferenceMetric, m.zero_at / m.full_marks_at));
    return;
  }
  const double span = full - m.zero_at, raw = (m.student - m.zero_at) / span;
  s.perf_fraction = std::clamp(raw, 0.0, 1.0);
  const double es = m.student_error / span,
               er = (m.student - m.zero_at) * m.full_marks_at * m.reference_error / (span * span);
  s.perf_fraction_sd = clamped_sd(raw, std::sqrt(es * es + er * er));
}

// f and its spread from the three times; `ungraded` says why not where the scale is too narrow for the noise.
// `capped`: the zero is zero_at_most times the reference, so the baseline's noise does not move it.
void score_by_time(const ScoreInputs& in, double ts, double full, double tb, bool capped, Score& s) {
  const double noisiest = std::max(in.reference_noise_pct, capped ? 0.0 : in.baseline_noise_pct) / 100;
  if (tb < kNarrowestScale * full || std::log(tb / full) < kNoiseSpans * noisiest) {
    s.ungraded = fmt::format("the baseline took {:.2f}x the reference's time in this run, with {:.1f}% noise a sample: "
                             "too narrow a scale to rank a kernel on, so this machine cannot grade this exercise's "
                             "performance",
                             s.window, 100 * noisiest);
    return;
  }
  const double scale = std::log(tb / full), raw = std::log(tb / ts) / scale;
  const auto fraction = [&](double t) { return t <= full ? 1.0 : std::clamp(std::log(tb / t) / scale, 0.0, 1.0); };
  s.perf_fraction = fraction(ts);
  if (in.student_event_ms > 0 && in.reference_event_ms > 0)
    s.host_charge = s.perf_fraction - fraction(in.student_event_ms * in.reference_ms / in.reference_event_ms);
  const double es = in.student_log_error, er = in.reference_log_error, eb = capped ? 0.0 : in.baseline_log_error;
  const double above = std::log(ts / full), below = std::log(tb / ts);
  s.perf_fraction_sd = clamped_sd(
      raw, std::sqrt(es * es / (scale * scale) + (above * above * eb * eb + below * below * er * er) / std::pow(scale, 4)));
}

}  // namespace

Score score_exercise(const ScoreInputs& in) {
  Score s;
  const int total = std::max(in.tests_total, 0);
  const int passed = std::clamp(in.tests_passed, 0, total);
  s.correctness = total > 0 ? in.correctness_points * passed / total : 0.0;

  const auto valid = [](double t) { return std::isfinite(t) && t > 0; };
  const bool gate = total > 0 && passed == total && in.timed_run_correct;
  if (gate && valid(in.student_ms) && valid(in.reference_ms) && valid(in.baseline_ms) && in.full_marks_at > 0) {
    const double ts = in.student_ms, full = in.full_marks_at * in.reference_ms;
    const double cap = in.zero_at_most * in.reference_ms;
    const double margined = in.baseline_ms / (1 + std::max(0.0, in.zero_margin));
    const bool capped = in.zero_at_most > 0 && cap < margined;
    const double tb = capped ? cap : margined;
    s.window = tb / in.reference_ms;
    if (in.metric)
      score_by_metric(*in.metric, s);
    else
      score_by_time(in, ts, full, tb, capped, s);
    if (s.ungraded.empty() && s.perf_fraction_sd > kUngradableSd)
      s.ungraded = fmt::format("the performance fraction came out {:.2f} +- {:.2f}: this run's noise would decide the "
                               "points, so this machine cannot grade this exercise's performance",
                               s.perf_fraction, s.perf_fraction_sd);
    if (!s.ungraded.empty()) s.perf_fraction = s.host_charge = 0;
  }
  s.performance = in.performance_points * s.perf_fraction;
  s.total = s.correctness + s.performance;
  return s;
}

}  // namespace grader
