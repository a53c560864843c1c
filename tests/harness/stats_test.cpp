#include <harness/measures.hpp>
#include <harness/stats.hpp>
#include <harness/timing.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>

TEST_CASE("median of odd and even counts", "[harness][stats]") {
  REQUIRE(harness::median({3, 1, 2}) == 2);
  REQUIRE(harness::median({4, 1, 3, 2}) == 2.5);
  REQUIRE(harness::median({}) == 0);
}

TEST_CASE("summary gives median, extremes and a robust relative noise", "[harness][stats]") {
  const auto s = harness::summarize({10, 10, 10, 10, 1000});
  REQUIRE(s.samples == 5);
  REQUIRE(s.median == 10);
  REQUIRE(s.min == 10);
  REQUIRE(s.max == 1000);
  REQUIRE(s.noise_pct == 0);  // one outlier does not move a MAD-based spread
}

TEST_CASE("noise is 1.4826 MAD over the median, in percent", "[harness][stats]") {
  const auto s = harness::summarize({99, 100, 101});
  // MAD = median(|-1|, 0, 1) = 1 -> 1.4826 * 1 / 100 = 1.4826 %.
  REQUIRE(std::abs(s.noise_pct - 1.4826) < 1e-12);
}

// The sampling policy of time_interleaved() needs no GPU: contenders are any functions returning milliseconds.
namespace {
harness::Sample events(double ms) { return {ms, ms}; }  // a sample whose host clock adds nothing
}  // namespace

TEST_CASE("interleaved timing stops at the floor of samples once its time is spent, not at the minimum",
          "[harness][timing]") {
  harness::TimingOptions options;
  options.max_seconds = 0.05;
  int calls = 0;
  const auto slow = [&] {  // 20 ms a run, noisy: only the time budget ends it
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return events(10.0 + (calls % 2) * 5.0);
  };
  const auto s = harness::time_interleaved({{"slow", slow}}, options);
  REQUIRE(s[0].summary.samples == options.floor_samples);
  REQUIRE(options.floor_samples < options.min_samples);
  REQUIRE(calls == static_cast<int>(options.warmup + options.floor_samples));
}

TEST_CASE("interleaved timing takes the minimum of samples while its time lasts, even when quiet early",
          "[harness][timing]") {
  harness::TimingOptions options;
  options.max_seconds = 60;
  const auto s = harness::time_interleaved({{"quiet", [] { return events(1.0); }}}, options);
  REQUIRE(s[0].summary.samples == options.min_samples);
  // A noisy contender keeps sampling past the minimum until max_samples.
  int k = 0;
  options.max_samples = 40;
  const auto noisy = harness::time_interleaved({{"noisy", [&] { return events(1.0 + 0.1 * (++k % 7)); }}}, options);
  REQUIRE(noisy[0].summary.samples == 40);
}

TEST_CASE("a capped contender sits out once it has its samples, and its noise no longer holds the timing up",
          "[harness][timing]") {
  harness::TimingOptions options;
  options.max_seconds = 60;
  int quiet_calls = 0, noisy_calls = 0;
  harness::Contender quiet{"student", [&] { return ++quiet_calls, events(1.0); }};
  harness::Contender noisy{"baseline", [&] { return events(1.0 + 0.3 * (++noisy_calls % 3)); }, 5};
  const auto s = harness::time_interleaved({quiet, noisy}, options);
  CHECK(s[1].summary.samples == 5);
  CHECK(noisy_calls == static_cast<int>(options.warmup + 5));
  // Without the cap the noisy one would keep both sampling to max_samples (200).
  CHECK(s[0].summary.samples == options.min_samples);
  CHECK(quiet_calls == static_cast<int>(options.warmup + options.min_samples));
}

TEST_CASE("a warm contender gets no warm-up run; the rounds' hooks still run around the warm-up round",
          "[harness][timing]") {
  harness::TimingOptions options;
  options.max_seconds = 60;
  int warm_calls = 0, cold_calls = 0, rounds = 0;
  harness::Contender warm{"student", [&] { return ++warm_calls, events(1.0); }, 0, true};
  harness::Contender cold{"ceiling", [&] { return ++cold_calls, events(1.0); }};
  const auto s = harness::time_interleaved({warm, cold}, options, [&] { ++rounds; });
  CHECK(warm_calls == static_cast<int>(options.min_samples));
  CHECK(cold_calls == static_cast<int>(options.warmup + options.min_samples));
  CHECK(rounds == static_cast<int>(options.warmup + options.min_samples));
  CHECK(s[0].summary.samples == options.min_samples);
  // Trimmed: the cold contender's warm-up runs are in its record, apart from the samples, and not summarized.
  CHECK(s[0].warmup.empty());
  CHECK(s[1].warmup.size() == options.warmup);
  CHECK(s[1].samples.size() == options.min_samples);
}

TEST_CASE("a record keeps both clocks of every sample, and the warm-up runs apart from what is summarized",
          "[harness][timing]") {
  harness::TimingOptions options;
  options.max_seconds = 60;
  options.min_samples = options.max_samples = 10;  // the times below are all different: noise would ask for more
  int calls = 0;
  // The first call is the warm-up (100 ms: a cold start); then event times 1, 2, 3, ... with the host clock 0.5 ms
  // behind each.
  harness::Contender c{"ceiling", [&] {
                         const double ms = calls++ == 0 ? 100.0 : static_cast<double>(calls - 1);
                         return harness::Sample{ms, ms + 0.5};
                       }};
  const auto s = harness::time_interleaved({c}, options);
  REQUIRE(s[0].warmup.size() == 1);
  CHECK(s[0].warmup[0].event_ms == 100.0);
  REQUIRE(s[0].samples.size() == options.min_samples);
  for (std::size_t i = 0; i < s[0].samples.size(); ++i) {
    CHECK(s[0].samples[i].event_ms == static_cast<double>(i + 1));
    CHECK(s[0].samples[i].wall_ms == static_cast<double>(i + 1) + 0.5);
    CHECK(s[0].gap_ms()[i] == 0.5);
  }
  CHECK(s[0].summary.max == static_cast<double>(options.min_samples));  // the 100 ms warm-up is not in it
  CHECK_FALSE(s[0].host_bound_overhead_ms);  // course code in the referee is graded by its events
}

TEST_CASE("bounding by the host clock grades the runners named, with the course runners' overhead",
          "[harness][timing][stats]") {
  harness::TimingOptions options;
  options.max_seconds = 60;
  options.min_samples = options.max_samples = 10;
  // Every contender's kernel takes 1 ms by its events; the course runners answer 0.2 ms after their events, the
  // student's host clock says 3 ms (its event times forged), the ceiling's host clock includes a 5 ms flush.
  const auto with_gap = [](double gap) { return [gap] { return harness::Sample{1.0, 1.0 + gap}; }; };
  auto records = harness::time_interleaved(
      {{"student", with_gap(2.0)}, {"reference", with_gap(0.2)}, {"baseline", with_gap(0.2)},
       {"ceiling", with_gap(5.0)}},
      options);
  for (const auto& r : records) CHECK(r.summary.median == 1.0);  // before the bound: events alone
  const double overhead =
      harness::bound_by_host_clock(records, {"student", "reference", "baseline"}, {"reference", "baseline"});
  CHECK_THAT(overhead, Catch::Matchers::WithinAbs(0.2, 1e-12));
  CHECK_THAT(records[0].summary.median, Catch::Matchers::WithinAbs(3.0 - 0.2, 1e-12));  // the forgery gains 0.2 ms
  CHECK(records[1].summary.median == 1.0);  // a fair runner keeps its events
  CHECK(records[3].summary.median == 1.0);  // not named: not bounded
  CHECK(records[0].host_bound_overhead_ms == overhead);
  CHECK_FALSE(records[3].host_bound_overhead_ms);
  CHECK_THROWS_AS(harness::bound_by_host_clock(records, {"nobody"}, {"reference"}), std::logic_error);
}

TEST_CASE("the clock bound takes the course runners' largest overhead, so a fair runner is graded by its events",
          "[harness][stats]") {
  // The H200 case of commit 195e816: the same kernel in three runner processes, 1.15 ms of events each; the
  // reference's process answers 0.19 ms after its events, the baseline's and the student's 0.37 ms.
  const std::vector<double> event(11, 1.15);
  std::vector<double> reference_gaps(11, 0.19), baseline_gaps(3, 0.37), student_wall(11, 1.15 + 0.37);
  const double overhead = harness::runner_overhead({reference_gaps, baseline_gaps});
  CHECK(overhead == 0.37);
  CHECK(harness::summarize(harness::clock_bounded(event, student_wall, overhead)).median == 1.15);
  // With the reference's gap alone the same fair runner was graded 0.18 ms slower than its kernel.
  const double reference_only = harness::runner_overhead({reference_gaps});
  CHECK(harness::summarize(harness::clock_bounded(event, student_wall, reference_only)).median > 1.3);

  SECTION("a forged event time gains at most the overhead") {
    const std::vector<double> forged(11, 0.0), wall(11, 1.15 + 0.19);
    CHECK(harness::summarize(harness::clock_bounded(forged, wall, overhead)).median >= 1.15 + 0.19 - overhead);
  }
  SECTION("the 90th percentile, not the largest gap: one descheduled command does not widen the bound") {
    std::vector<double> gaps(20, 0.2);
    gaps.back() = 5.0;
    CHECK(harness::runner_overhead({gaps}) == 0.2);
    CHECK(harness::runner_overhead({gaps, {0.3, 5.0, 0.3}}) == 0.3);  // the baseline's three: their median
  }
}

TEST_CASE("a metric's error adds each median's error, moved one contender at a time, in quadrature",
          "[harness][stats][metrics]") {
  // Lab 07's overlap: (sequential - t) / (sequential - ceiling), with the baseline as the sequential pipeline.
  const auto overlap = [](const harness::Medians& m) {
    const double seq = m.at("baseline"), slowest = m.at("ceiling");
    return std::map<std::string, double>{{"overlap_student", (seq - m.at("student")) / (seq - slowest)}};
  };
  const harness::Medians medians{{"student", 8.0}, {"baseline", 10.0}, {"ceiling", 6.0}, {"reference", 6.5}};
  const harness::Medians errors{{"student", 0.01}, {"baseline", 0.02}, {"ceiling", 0.03}};
  const auto e = harness::metric_errors(overlap, medians, errors);
  // The partial derivatives by hand: d/dt = -1 / (B - C), d/dB = (t - C) / (B - C)^2, d/dC = (B - t) / (B - C)^2,
  // each times the median (a log error is a relative one).
  const double dt = -1.0 / 4 * 8.0 * 0.01, dB = 2.0 / 16 * 10.0 * 0.02, dC = 2.0 / 16 * 6.0 * 0.03;
  CHECK_THAT(e.at("overlap_student"), Catch::Matchers::WithinRel(std::sqrt(dt * dt + dB * dB + dC * dC), 0.05));
  // The reference's error does not reach a metric that does not read it; none given, none found.
  CHECK(harness::metric_errors(overlap, medians, {{"reference", 0.5}}).at("overlap_student") == 0);
  // A metric that blows up where a median moves has no bound.
  const harness::Medians flat{{"student", 8.0}, {"baseline", 6.0}, {"ceiling", 6.0}};
  CHECK(std::isinf(harness::metric_errors(overlap, flat, {{"student", 0.01}}).at("overlap_student")));
}
