// CPU tests of lab 01's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab01;

TEST_CASE("scale multiplies every element in double precision", "[lab01][cpu]") {
  const auto y = cpu::scale({1.0f, -2.0f, 0.5f}, 3.0f);
  REQUIRE(y == std::vector<double>{3.0, -6.0, 1.5});
  REQUIRE(cpu::scale({}, 3.0f).empty());
}

TEST_CASE("dot returns the sum and the sum of magnitudes of the products", "[lab01][cpu]") {
  const auto d = cpu::dot({1, -2, 3}, {4, 5, -6});
  REQUIRE(d.value == 1 * 4 - 2 * 5 - 3 * 6);
  REQUIRE(d.abs == 4 + 10 + 18);
  REQUIRE_THROWS(cpu::dot({1, 2}, {1}));
}

TEST_CASE("column sums add down each column of a row-major matrix", "[lab01][cpu]") {
  // 2 x 3:  1  2  3
  //        -4  5 -6
  const auto s = cpu::column_sums({1, 2, 3, -4, 5, -6}, 2, 3);
  REQUIRE(s.size() == 3);
  REQUIRE(s[0].value == -3);
  REQUIRE(s[1].value == 7);
  REQUIRE(s[2].value == -3);
  REQUIRE(s[0].abs == 5);
  REQUIRE(s[2].abs == 9);
  REQUIRE_THROWS(cpu::column_sums({1, 2, 3}, 2, 2));
}
