// The grade formula (grader/src/grading/formula.cpp): correctness shares, the correctness gate and the log-scaled
// performance fraction between full marks (1.1x the reference) and the baseline.

#include <cmath>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/formula.hpp"

using Catch::Matchers::WithinAbs;
using grader::score_exercise;
using grader::ScoreInputs;

namespace {

// 4 correctness and 6 performance points; reference 1 ms, baseline 10 ms: full marks at or below 1.1 ms.
ScoreInputs passing(double student_ms) {
  ScoreInputs in;
  in.correctness_points = 4;
  in.performance_points = 6;
  in.tests_passed = in.tests_total = 27;
  in.timed_run_correct = true;
  in.student_ms = student_ms;
  in.reference_ms = 1.0;
  in.baseline_ms = 10.0;
  in.full_marks_at = 1.1;
  return in;
}

}  // namespace

TEST_CASE("performance earns full marks at or below 1.1x the reference time", "[grader][formula]") {
  const double student_ms = GENERATE(0.5, 1.0, 1.1);
  CAPTURE(student_ms);
  const auto s = score_exercise(passing(student_ms));
  CHECK(s.perf_fraction == 1.0);
  CHECK(s.performance == 6.0);
  CHECK(s.correctness == 4.0);
  CHECK(s.total == 10.0);
}

TEST_CASE("performance earns nothing at or above the baseline time", "[grader][formula]") {
  const double student_ms = GENERATE(10.0, 12.0, 1000.0);
  CAPTURE(student_ms);
  const auto s = score_exercise(passing(student_ms));
  CHECK(s.perf_fraction == 0.0);
  CHECK(s.performance == 0.0);
  CHECK(s.total == 4.0);
}

TEST_CASE("performance is log-scaled between full marks and the baseline", "[grader][formula]") {
  SECTION("the geometric midpoint of full marks and the baseline earns half") {
    const auto s = score_exercise(passing(std::sqrt(1.1 * 10.0)));
    CHECK_THAT(s.perf_fraction, WithinAbs(0.5, 1e-12));
    CHECK_THAT(s.performance, WithinAbs(3.0, 1e-12));
  }
  SECTION("2 ms earns ln(10/2) / ln(10/1.1)") {
    const auto s = score_exercise(passing(2.0));
    CHECK_THAT(s.perf_fraction, WithinAbs(std::log(5.0) / std::log(10.0 / 1.1), 1e-12));
    CHECK_THAT(s.perf_fraction, WithinAbs(0.729152, 1e-6));
  }
  SECTION("full_marks_at moves the full-marks time") {
    auto in = passing(1.5);
    in.full_marks_at = 1.5;
    CHECK(score_exercise(in).perf_fraction == 1.0);
    in.full_marks_at = 1.0;
    CHECK_THAT(score_exercise(in).perf_fraction, WithinAbs(std::log(10 / 1.5) / std::log(10.0), 1e-12));
  }
}

TEST_CASE("a failed test or a wrong timed run gates the performance points", "[grader][formula]") {
  SECTION("one failed test") {
    auto in = passing(1.0);
    in.tests_passed = 26;
    const auto s = score_exercise(in);
    CHECK(s.perf_fraction == 0.0);
    CHECK(s.performance == 0.0);
    CHECK_THAT(s.correctness, WithinAbs(4.0 * 26 / 27, 1e-12));
  }
  SECTION("timed run incorrect") {
    auto in = passing(1.0);
    in.timed_run_correct = false;
    const auto s = score_exercise(in);
    CHECK(s.perf_fraction == 0.0);
    CHECK(s.total == 4.0);
  }
  SECTION("no tests at all") {
    auto in = passing(1.0);
    in.tests_passed = in.tests_total = 0;
    const auto s = score_exercise(in);
    CHECK(s.total == 0.0);
  }
}

TEST_CASE("a baseline no slower than the full-marks time cannot grade performance", "[grader][formula]") {
  auto in = passing(1.1);
  in.baseline_ms = GENERATE(1.05, 1.1);  // full = 1.1 ms: below it, and exactly it
  CAPTURE(in.baseline_ms);
  const auto s = score_exercise(in);
  CHECK(s.perf_fraction == 0.0);  // not 1 for a student who happened to come out under 1.1 ms
  CHECK(s.correctness == 4.0);
  CHECK_THAT(s.ungraded, Catch::Matchers::ContainsSubstring("cannot grade this exercise's performance"));
}

TEST_CASE("a run whose time scale is too narrow for its noise hands out no performance points",
          "[grader][formula][resolution]") {
  // Reference 1 ms, full marks at 1.1 ms: lab 07's pipelines measured a baseline 1.22x the reference on one H100.
  auto in = passing(1.15);
  in.baseline_ms = 1.2;  // t_b / full = 1.09 < kNarrowestScale
  const auto narrow = score_exercise(in);
  CHECK(narrow.perf_fraction == 0.0);
  CHECK(narrow.performance == 0.0);
  CHECK_THAT(narrow.ungraded, Catch::Matchers::ContainsSubstring("1.20x the reference's time"));
  CHECK_THAT(narrow.window, WithinAbs(1.2, 1e-12));  // still reported

  // A wider scale (1.5x: ln(1.5 / 1.1) = 0.31) is graded while the noise is under a fifth of it ...
  in.baseline_ms = 1.5;
  in.reference_noise_pct = 5.0;
  in.baseline_noise_pct = 1.0;
  const auto graded = score_exercise(in);
  CHECK(graded.ungraded.empty());
  CHECK(graded.perf_fraction > 0.5);
  // ... and not once the reference's or the baseline's runs are noisier than that.
  for (double ScoreInputs::*noisy : {&ScoreInputs::reference_noise_pct, &ScoreInputs::baseline_noise_pct}) {
    auto loud = in;
    loud.*noisy = 7.0;
    const auto s = score_exercise(loud);
    CHECK(s.perf_fraction == 0.0);
    CHECK_THAT(s.ungraded, Catch::Matchers::ContainsSubstring("7.0% noise"));
  }
  // A student's own noise is not the scale's: it widens f's spread instead.
  auto own = in;
  own.student_log_error = 0.001;
  CHECK(score_exercise(own).ungraded.empty());
}

TEST_CASE("a performance fraction noise would decide is not graded", "[grader][formula][resolution]") {
  auto in = passing(std::sqrt(1.3 * 1.1));  // halfway up a 1.3x window
  in.baseline_ms = 1.3;
  in.student_log_error = in.reference_log_error = in.baseline_log_error = 0.03;
  const auto s = score_exercise(in);
  CHECK(s.perf_fraction_sd > grader::kUngradableSd);
  CHECK(s.perf_fraction == 0.0);
  CHECK_THAT(s.ungraded, Catch::Matchers::ContainsSubstring("noise would decide"));
  in.student_log_error = in.reference_log_error = in.baseline_log_error = 0.01;  // sampled longer
  const auto resolved = score_exercise(in);
  CHECK(resolved.ungraded.empty());
  CHECK_THAT(resolved.perf_fraction, WithinAbs(0.5, 1e-9));
}

TEST_CASE("an exercise graded by a metric earns its share of the reference's value", "[grader][formula][metric]") {
  // Lab 07's pipelines: overlap 0 for the sequential baseline, the reference's 0.95 on an H100; full marks at 0.8 of it.
  auto in = passing(1.5);
  in.baseline_ms = 1.6;  // a time window far too narrow to grade on: the metric decides, not the times
  in.metric = grader::MetricInputs{"overlap", 0.38, 0.95, 0, 0, 0.8};
  auto s = score_exercise(in);
  CHECK(s.ungraded.empty());
  CHECK_THAT(s.perf_fraction, WithinAbs(0.38 / (0.8 * 0.95), 1e-12));
  CHECK_THAT(s.performance, WithinAbs(6 * 0.5, 1e-12));
  in.metric->student = 0.8 * 0.95;  // at the full-marks share, and beyond it
  CHECK(score_exercise(in).perf_fraction == 1.0);
  in.metric->student = 0.99;
  CHECK(score_exercise(in).perf_fraction == 1.0);
  in.metric->student = -0.1;  // slower than the sequential baseline
  CHECK(score_exercise(in).perf_fraction == 0.0);

  SECTION("its spread comes from the metric's errors") {
    in.metric->student = 0.38;
    in.metric->student_error = 0.02;
    in.metric->reference_error = 0.03;
    const double full = 0.8 * 0.95;
    const double expected = std::hypot(0.02 / full, 0.38 * 0.03 / (full * 0.95));
    CHECK_THAT(score_exercise(in).perf_fraction_sd, WithinAbs(expected, 1e-12));
    in.metric->student_error = INFINITY;  // a lab binary that gave no error: not gradable
    CHECK_THAT(score_exercise(in).ungraded, Catch::Matchers::ContainsSubstring("noise would decide"));
  }
  SECTION("a reference that shows too little of it cannot grade it") {
    in.metric->reference = 0.2;
    s = score_exercise(in);
    CHECK(s.perf_fraction == 0.0);
    CHECK_THAT(s.ungraded, Catch::Matchers::ContainsSubstring("the reference reached overlap 0.20"));
    in.metric->reference = NAN;
    CHECK_FALSE(score_exercise(in).ungraded.empty());
  }
  SECTION("correctness still gates it") {
    in.timed_run_correct = false;
    CHECK(score_exercise(in).perf_fraction == 0.0);
    CHECK(score_exercise(in).ungraded.empty());
  }
}

TEST_CASE("correctness points are shared among the tests", "[grader][formula]") {
  auto in = passing(1.0);
  in.tests_total = 6;
  in.tests_passed = GENERATE(0, 1, 3, 6);
  CAPTURE(in.tests_passed);
  CHECK_THAT(score_exercise(in).correctness, WithinAbs(4.0 * in.tests_passed / 6, 1e-12));

  in.tests_passed = 9;  // more passes than planned tests cannot earn more than the points
  CHECK(score_exercise(in).correctness == 4.0);
}

TEST_CASE("times that are not positive finite numbers earn no performance points", "[grader][formula]") {
  const double bad = GENERATE(0.0, -1.0, NAN, INFINITY);
  CAPTURE(bad);
  auto in = passing(bad);
  CHECK(score_exercise(in).perf_fraction == 0.0);
  in = passing(1.0);
  in.reference_ms = bad;
  CHECK(score_exercise(in).perf_fraction == 0.0);
  CHECK(score_exercise(in).correctness == 4.0);
}

TEST_CASE("zero_at_most fixes the scale's zero to the reference: a host's baseline does not move f",
          "[grader][formula]") {
  // Lab 07's pageable copies: the same code took 4.2 to 8.5 times the pinned reference from one process and one host
  // to the next, so a kernel at 3x the reference earned whatever the baseline's process drew.
  auto in = passing(3.0);
  in.zero_at_most = 4;
  const double at_four = std::log(4 / 3.0) / std::log(4 / 1.1);
  for (const double baseline_ms : {4.2, 6.0, 8.5}) {
    CAPTURE(baseline_ms);
    in.baseline_ms = baseline_ms;
    in.baseline_noise_pct = 40;  // the baseline's noise no longer narrows the scale: the zero is the reference's
    in.baseline_log_error = 0.2;
    const auto s = score_exercise(in);
    CHECK(s.ungraded.empty());
    CHECK_THAT(s.perf_fraction, WithinAbs(at_four, 1e-12));
    CHECK_THAT(s.window, WithinAbs(4.0, 1e-12));
    CHECK(s.perf_fraction_sd == 0);  // no student or reference error given: only the baseline's, which is moot
  }
  in.baseline_ms = 8.5;
  in.zero_at_most = 0;  // without it, the same kernel's f follows the baseline
  CHECK(score_exercise(in).perf_fraction > at_four + 0.2);
  in.zero_at_most = 4;
  in.student_ms = 4.2;  // the baseline's own code, above the fixed zero, earns nothing however slow the baseline drew
  CHECK(score_exercise(in).perf_fraction == 0.0);
  in.baseline_ms = 3.5;  // a host whose baseline beats the cap: the measured baseline stays the zero
  in.baseline_noise_pct = 0;
  in.student_ms = 3.5;
  CHECK(score_exercise(in).perf_fraction == 0.0);
  CHECK_THAT(score_exercise(in).window, WithinAbs(3.5, 1e-12));
  in.student_ms = 1.1;  // full marks stay where they were
  CHECK(score_exercise(in).perf_fraction == 1.0);
}

TEST_CASE("zero_margin moves the zero below the baseline: its own code handed in earns nothing in a faster process",
          "[grader][formula]") {
  // Lab 01's column_sums (a window near 4x): the stub handed in as the student ran 0.93 to 1.08 times the baseline's
  // own process.
  auto in = passing(4.0 / 1.08);  // the stub, in a process 8% faster than the baseline's
  in.baseline_ms = 4.0;
  CHECK(score_exercise(in).perf_fraction > 0.05);  // without the margin it earns points by chance
  in.zero_margin = 0.1;
  auto s = score_exercise(in);
  CHECK(s.perf_fraction == 0.0);
  CHECK_THAT(s.window, WithinAbs(4.0 / 1.1, 1e-12));
  in.student_ms = 2.0;  // a real gain is graded on the scale from baseline / 1.1 to full marks
  CHECK_THAT(score_exercise(in).perf_fraction, WithinAbs(std::log(4 / 1.1 / 2.0) / std::log(4 / 1.1 / 1.1), 1e-12));
  in.student_ms = 1.1;
  CHECK(score_exercise(in).perf_fraction == 1.0);
  in.zero_at_most = 3;  // a cap below the margined baseline still wins
  CHECK_THAT(score_exercise(in).window, WithinAbs(3.0, 1e-12));
}

TEST_CASE("a metric's zero_at: no points at or below it, the scale from it to full marks", "[grader][formula][metric]") {
  // Lab 07's pipelines: the sequential baseline handed in drew overlaps up to 0.05 from its process.
  auto in = passing(1.5);
  in.baseline_ms = 1.6;
  in.metric = grader::MetricInputs{"overlap", 0.05, 0.95, 0, 0, 0.8};
  CHECK(score_exercise(in).perf_fraction > 0.05);  // without zero_at the baseline's own code earns by chance
  in.metric->zero_at = 0.1;
  CHECK(score_exercise(in).perf_fraction == 0.0);
  in.metric->student = 0.38;
  const double span = 0.8 * 0.95 - 0.1;
  CHECK_THAT(score_exercise(in).perf_fraction, WithinAbs((0.38 - 0.1) / span, 1e-12));
  in.metric->student = 0.8 * 0.95;
  CHECK(score_exercise(in).perf_fraction == 1.0);
  SECTION("its spread is taken over the narrower span") {
    in.metric->student = 0.38;
    in.metric->student_error = 0.02;
    in.metric->reference_error = 0.03;
    CHECK_THAT(score_exercise(in).perf_fraction_sd,
               WithinAbs(std::hypot(0.02 / span, (0.38 - 0.1) * 0.8 * 0.03 / (span * span)), 1e-12));
  }
  SECTION("a reference whose full-marks share is not above zero_at cannot grade") {
    in.metric->zero_at = 0.8 * 0.95;
    CHECK_FALSE(score_exercise(in).ungraded.empty());
    CHECK(score_exercise(in).perf_fraction == 0.0);
  }
}

TEST_CASE("a median's log error comes from its noise and its sample count", "[grader][formula][resolution]") {
  CHECK_THAT(grader::median_log_error(1.0, 16), WithinAbs(1.2533 * 0.01 / 4, 1e-12));
  CHECK(grader::median_log_error(1.0, 64) < grader::median_log_error(1.0, 16));  // more samples, a surer median
  CHECK(grader::median_log_error(2.0, 0) == 0);
  CHECK(grader::median_log_error(-1.0, 10) == 0);
}

TEST_CASE("f's resolution: the spread the medians' errors give it, and the window of the run",
          "[grader][formula][resolution]") {
  // Halfway up the log scale of a narrow window (baseline 1.3x the reference: lab 07's pipelines are about 1.2x).
  auto in = passing(std::sqrt(1.3 * 1.1));
  in.baseline_ms = 1.3;
  // Lab 07's noise: about 3.5% a sample, ten samples: 1.2533 * 0.035 / sqrt(10) = 0.014 on each median's log.
  in.student_log_error = 0.014;
  in.reference_log_error = 0.012;
  in.baseline_log_error = 0.016;
  const auto s = score_exercise(in);
  CHECK_THAT(s.perf_fraction, WithinAbs(0.5, 1e-9));
  CHECK_THAT(s.window, WithinAbs(1.3, 1e-12));
  // f's derivatives by finite differences in each log time, combined with the errors: what the formula says.
  const auto f_at = [&](double ds, double dr, double db) {
    auto moved = in;
    moved.student_ms *= std::exp(ds);
    moved.reference_ms *= std::exp(dr);
    moved.baseline_ms *= std::exp(db);
    return score_exercise(moved).perf_fraction;
  };
  const double h = 1e-6;
  const double fs = (f_at(h, 0, 0) - f_at(-h, 0, 0)) / (2 * h), fr = (f_at(0, h, 0) - f_at(0, -h, 0)) / (2 * h),
               fb = (f_at(0, 0, h) - f_at(0, 0, -h)) / (2 * h);
  const double expected = std::sqrt(fs * fs * 0.014 * 0.014 + fr * fr * 0.012 * 0.012 + fb * fb * 0.016 * 0.016);
  CHECK_THAT(s.perf_fraction_sd, WithinAbs(expected, 1e-6));
  CHECK(s.perf_fraction_sd > grader::kResolvedFractionSd);  // such noise on a 1.18x scale: f is not resolved

  // The same errors on a wide window (baseline 10x): f is known to about a hundredth.
  auto wide = in;
  wide.baseline_ms = 10.0;
  wide.student_ms = std::sqrt(10.0 * 1.1);
  CHECK(score_exercise(wide).perf_fraction_sd < 0.02);
  // Far beyond full marks or the baseline, f is 1 or 0 whatever the noise: no spread.
  auto fast = in;
  fast.student_ms = 0.5;
  CHECK(score_exercise(fast).perf_fraction_sd == 0);
  auto slow = in;
  slow.student_ms = 3.0;
  CHECK(score_exercise(slow).perf_fraction_sd == 0);
  // Just past full marks, the noise could have put it on either side: it has a spread though f is clamped to 1.
  auto edge = in;
  edge.student_ms = 1.1 * 1.001;
  CHECK(score_exercise(edge).perf_fraction_sd > 0);
  // No errors given (an older lab binary reports no samples): exact.
  CHECK(score_exercise(passing(2.0)).perf_fraction_sd == 0);
}

TEST_CASE("the host clock's charge is how far f moved from the student's own events, either way",
          "[grader][formula]") {
  // The fake scale: reference 1 ms, baseline 10 ms, full marks at 1.1 ms. The student's clock says 3.3 ms.
  const auto f = [](double t) { return std::log(10 / t) / std::log(10 / 1.1); };
  auto in = passing(3.3);
  // No event times reported (an older lab binary): nothing to compare.
  CHECK(score_exercise(in).host_charge == 0);

  SECTION("the student's runner charged: its events say 2 ms, the reference's clock and events agree") {
    in.student_event_ms = 2.0;
    in.reference_event_ms = 1.0;
    const auto s = score_exercise(in);
    CHECK_THAT(s.perf_fraction, WithinAbs(f(3.3), 1e-12));  // the clock's time still grades
    CHECK_THAT(s.host_charge, WithinAbs(f(3.3) - f(2.0), 1e-12));
    CHECK(s.host_charge < -grader::kHostChargeTolerance);
  }
  SECTION("the reference's runner charged: its clock 1.2x its events, the student's agree") {
    in.student_event_ms = 3.3;
    in.reference_event_ms = 1.0 / 1.2;
    const auto s = score_exercise(in);
    CHECK_THAT(s.host_charge, WithinAbs(f(3.3) - f(3.3 * 1.2), 1e-12));
    CHECK(s.host_charge > grader::kHostChargeTolerance);
  }
  SECTION("both charged alike: the common overhead moves nothing") {
    in.student_event_ms = 3.3 / 1.1;
    in.reference_event_ms = 1.0 / 1.1;
    CHECK_THAT(score_exercise(in).host_charge, WithinAbs(0, 1e-12));
  }
  SECTION("within full marks either way: f is 1 by both clocks") {
    in.student_ms = 1.08;
    in.student_event_ms = 0.9;
    in.reference_event_ms = 1.0;
    CHECK(score_exercise(in).host_charge == 0);
  }
  SECTION("graded by a metric, or not graded: no charge") {
    in.student_event_ms = 2.0;
    in.reference_event_ms = 1.0;
    auto by_metric = in;
    by_metric.metric = grader::MetricInputs{"overlap", 0.5, 0.9, 0.01, 0.01, 0.8};
    CHECK(score_exercise(by_metric).host_charge == 0);
    auto narrow = in;
    narrow.baseline_ms = 1.15;  // under kNarrowestScale x full: ungraded
    narrow.student_ms = 1.12;
    CHECK(score_exercise(narrow).host_charge == 0);
  }
}
