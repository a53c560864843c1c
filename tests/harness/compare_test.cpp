#include <harness/compare.hpp>
#include <harness/parallel.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

using harness::compare;
using harness::Tolerance;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("equal arrays compare equal, even with an exact tolerance", "[harness][compare]") {
  const float got[] = {1, 2, 3};
  const double ref[] = {1, 2, 3};
  const auto c = compare(got, ref, 3, Tolerance::exact());
  REQUIRE(c.ok());
  REQUIRE(c.count == 3);
  REQUIRE(c.max_abs_error == 0);
}

TEST_CASE("an element passes when |out - ref| <= atol + rtol * |ref|", "[harness][compare]") {
  const double ref[] = {100.0};
  const Tolerance tol{{0.5}, 0.01};  // allows 0.5 + 1.0 = 1.5
  const float inside[] = {101.5f}, outside[] = {101.6f};
  REQUIRE(compare(inside, ref, 1, tol).ok());
  REQUIRE_FALSE(compare(outside, ref, 1, tol).ok());
}

TEST_CASE("per-element absolute tolerances apply to their own element", "[harness][compare]") {
  const double ref[] = {0, 0};
  const float got[] = {0.5f, 0.5f};
  const auto c = compare(got, ref, 2, Tolerance{{1.0, 0.1}, 0.0});
  REQUIRE(c.failures == 1);
  REQUIRE(c.first.at(0).index == 1);
}

TEST_CASE("NaN never passes where a number is expected, whatever the tolerance", "[harness][compare]") {
  const double ref[] = {1.0};
  const float nan[] = {std::numeric_limits<float>::quiet_NaN()};
  REQUIRE_FALSE(compare(nan, ref, 1, Tolerance{{1e30}, 1e30}).ok());
}

TEST_CASE("infinities must match exactly and NaN is expected only as NaN", "[harness][compare]") {
  const double ref[] = {kInf, -kInf, kNaN};
  const float right[] = {INFINITY, -INFINITY, NAN};
  REQUIRE(compare(right, ref, 3, Tolerance{{1e30}, 1.0}).ok());
  const float wrong[] = {-INFINITY, 3e38f, 0.0f};
  const auto c = compare(wrong, ref, 3, Tolerance{{1e30}, 1.0});
  REQUIRE(c.failures == 3);
  const double finite[] = {1.0};
  const float inf[] = {INFINITY};
  REQUIRE_FALSE(compare(inf, finite, 1, Tolerance{{1e30}, 1e30}).ok());
}

TEST_CASE("the first mismatches are reported with index, value and expectation", "[harness][compare]") {
  std::vector<float> got(100, 1.0f);
  std::vector<double> ref(100, 1.0);
  for (int i : {7, 20, 21, 22, 50, 60, 99}) got[i] = 2.0f;
  const auto c = compare(got.data(), ref.data(), got.size(), Tolerance::exact(), 5);
  REQUIRE(c.failures == 7);
  REQUIRE(c.first.size() == 5);
  REQUIRE(c.first[0].index == 7);
  REQUIRE(c.first[0].got == 2.0);
  REQUIRE(c.first[0].expected == 1.0);
  REQUIRE(c.first[4].index == 50);
  const auto text = c.describe("output 'y'", Tolerance::exact());
  REQUIRE(text.find("7 of 100 elements differ") != std::string::npos);
  REQUIRE(text.find("first at [7]: got 2, expected 1") != std::string::npos);
}

TEST_CASE("a comparison split over the cores reports what one pass would, in index order", "[harness][compare]") {
  // Long enough for parallel_chunks to use every core (two on CI): mismatches at the ends of the array, around each
  // chunk boundary, and more of them than are kept in the first chunk alone.
  const std::size_t n = (std::size_t{1} << 22) + 7;
  const std::size_t chunks = harness::parallel_chunk_count(n, 1 << 20);
  std::vector<float> got(n, 1.0f);
  std::vector<double> ref(n, 1.0);
  std::vector<std::size_t> wrong = {0, 1, 2, n - 1};
  for (std::size_t k = 1; k < chunks; ++k)
    for (std::size_t i : {n * k / chunks - 1, n * k / chunks}) wrong.push_back(i);
  std::sort(wrong.begin(), wrong.end());
  wrong.erase(std::unique(wrong.begin(), wrong.end()), wrong.end());
  for (std::size_t i : wrong) got[i] = 3.0f;
  got[n / 2 + 1] = std::numeric_limits<float>::quiet_NaN();
  wrong.insert(std::upper_bound(wrong.begin(), wrong.end(), n / 2 + 1), n / 2 + 1);
  const auto c = compare(got.data(), ref.data(), n, Tolerance::exact(), 6);
  REQUIRE(c.count == n);
  REQUIRE(c.failures == wrong.size());
  REQUIRE(c.max_abs_error == 2.0);  // the NaN counts as a failure but has no finite error
  REQUIRE(c.first.size() == std::min<std::size_t>(6, wrong.size()));
  for (std::size_t k = 0; k < c.first.size(); ++k) REQUIRE(c.first[k].index == wrong[k]);
}

TEST_CASE("parallel_chunks covers every index once, in contiguous chunks, and rethrows a chunk's exception",
          "[harness][parallel]") {
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, (std::size_t{1} << 21) + 3}) {
    std::vector<int> seen(n, 0);
    std::vector<std::pair<std::size_t, std::size_t>> ranges(harness::parallel_chunk_count(n, 1 << 20));
    const std::size_t used = harness::parallel_chunks(n, 1 << 20, [&](std::size_t k, std::size_t b, std::size_t e) {
      ranges[k] = {b, e};
      for (std::size_t i = b; i < e; ++i) ++seen[i];
    });
    REQUIRE(used == ranges.size());
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }));
    REQUIRE(ranges.front().first == 0);
    REQUIRE(ranges.back().second == n);
    for (std::size_t k = 1; k < used; ++k) REQUIRE(ranges[k].first == ranges[k - 1].second);
  }
  const std::size_t n = std::size_t{1} << 22;
  const std::size_t last = harness::parallel_chunk_count(n, 1 << 20) - 1;
  REQUIRE_THROWS_WITH(harness::parallel_chunks(n, 1 << 20,
                                               [&](std::size_t k, std::size_t, std::size_t) {
                                                 if (k == last) throw std::runtime_error("chunk failed");
                                               }),
                      "chunk failed");
}

TEST_CASE("integer outputs compare exactly", "[harness][compare]") {
  const std::int32_t got[] = {1, -1, 5};
  const double ref[] = {1, -1, 4};
  REQUIRE(compare(got, ref, 3, Tolerance::exact()).failures == 1);
}

TEST_CASE("the sum tolerance grows with the length and the magnitudes of the sum", "[harness][compare]") {
  REQUIRE(harness::sum_tolerance(1000, 1000.0) < harness::sum_tolerance(4000, 1000.0));
  REQUIRE(harness::sum_tolerance(1000, 1000.0) < harness::sum_tolerance(1000, 2000.0));
  REQUIRE(harness::sum_tolerance(100, 0.0) == 0.0);
  // 6 sqrt(n) u sum|x|: for n = 2^20 and sum|x| = 2^20, 6 * 2^10 * 2^-24 * 2^20 = 384.
  REQUIRE(harness::sum_tolerance(1u << 20, double(1u << 20)) == 384.0);
}

TEST_CASE("a sum that drops one integer term fails at the test sizes", "[harness][compare]") {
  // Products of integers in [-4, 4] \ {0}: |x y| <= 16. Up to n = 3000 the tolerance stays under 1.
  for (std::size_t n : {31u, 1025u, 3000u}) {
    CAPTURE(n);
    const double sum_abs = 16.0 * n;  // the largest it can be
    const double tol = harness::sum_tolerance(n, sum_abs);
    CHECK(tol < 1.0);
  }
}

TEST_CASE("ordered_sum over the cores equals one loop in index order, its peak included", "[harness][parallel]") {
  // A walk that drifts upward through every chunk, with jumps inside chunks, then falls far below zero near the end:
  // its peak depends on the sum of every chunk before the last, which no chunk's own view of its terms shows.
  const std::size_t n = (std::size_t{1} << 22) + 7;
  const std::size_t chunks = harness::parallel_chunk_count(n, 1 << 20);
  std::vector<double> terms(n);
  for (std::size_t i = 0; i < n; ++i) terms[i] = (i % 3 == 0) ? -1.0 : 1.0;  // drifts upward
  terms[n / 3] = -5000;
  terms[n / 3 + chunks] = 7000;
  terms[n - 2] = -3e6;
  double value = 0, abs = 0, peak = 0;
  for (double t : terms) {
    value += t;
    abs += std::fabs(t);
    peak = std::max(peak, std::fabs(value));
  }
  const harness::OrderedSum s = harness::ordered_sum(n, [&](std::size_t i) { return terms[i]; });
  REQUIRE(s.value == value);
  REQUIRE(s.abs == abs);
  REQUIRE(s.peak == peak);
  // The largest |prefix sum| is the last one (about -1.6e6): a peak taken from each chunk's own prefix sums, without
  // the chunks before it, would be at most a chunk's drift (n / chunks / 3, under 0.75e6) plus its jumps.
  REQUIRE(peak > 1.5e6);
  const harness::OrderedSum empty = harness::ordered_sum(0, [](std::size_t) { return 1.0; });
  REQUIRE((empty.value == 0 && empty.abs == 0 && empty.peak == 0));
}
