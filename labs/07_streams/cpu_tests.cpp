// CPU tests of lab 07's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab07;

TEST_CASE("poly computes x^2 + 3x - 1 element by element", "[lab07][cpu]") {
  // x = 0: -1;  x = 1: 1 + 3 - 1 = 3;  x = -2: 4 - 6 - 1 = -3;  x = 8: 64 + 24 - 1 = 87
  REQUIRE(cpu::poly({0, 1, -2, 8}) == std::vector<double>{-1, 3, -3, 87});
  REQUIRE(cpu::poly({}).empty());
}

TEST_CASE("stencil weighs neighbours 1-2-1 with zeros outside the array", "[lab07][cpu]") {
  // x = 1 2 3 4:  y0 = 0 + 2 + 2 = 4, y1 = 1 + 4 + 3 = 8, y2 = 2 + 6 + 4 = 12, y3 = 3 + 8 + 0 = 11
  REQUIRE(cpu::stencil({1, 2, 3, 4}) == std::vector<double>{4, 8, 12, 11});
  REQUIRE(cpu::stencil({5}) == std::vector<double>{10});  // one element: no neighbours
  REQUIRE(cpu::stencil({-1, 1}) == std::vector<double>{-1, 1});
}
