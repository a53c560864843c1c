#include <harness/stats.hpp>

#include <catch2/catch_test_macros.hpp>

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
