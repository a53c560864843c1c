// CPU tests of lab 04's reference and of the tolerance it is checked with: they run in CI, without a GPU.
#include "cpu_reference.hpp"

#include <harness/compare.hpp>
#include <harness/random.hpp>

#include <catch2/catch_test_macros.hpp>

using namespace lab04;

TEST_CASE("the sum and the sum of magnitudes are exact for small integers", "[lab04][cpu]") {
  const auto s = cpu::sum({1, -2, 3, -4});
  REQUIRE(s.value == -2);
  REQUIRE(s.abs == 10);
  REQUIRE(cpu::sum({}).value == 0);
}

TEST_CASE("at the small test sizes the tolerance cannot hide one dropped element", "[lab04][cpu]") {
  // Inputs are nonzero integers in [-4, 4]: dropping one changes the sum by at least 1. Up to the largest small
  // test size the tolerance stays below 1 for every seed the course uses.
  for (std::size_t n : {1, 2, 31, 33, 1025, 4099, 8191}) {
    for (std::uint64_t seed : {1, 2, 3, 20261121, 77}) {
      CAPTURE(n, seed);
      const auto s = cpu::sum(harness::random_ints(n, seed, -4, 4));
      CHECK(harness::sum_tolerance(n, s.abs) < 1.0);
    }
  }
}
