// CPU tests of lab 06's reference: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace lab06;

TEST_CASE("transpose turns rows into columns of a non-square matrix", "[lab06][cpu]") {
  // 2 x 3:  1 2 3    ->  3 x 2:  1 4
  //         4 5 6                2 5
  //                              3 6
  REQUIRE(cpu::transpose({1, 2, 3, 4, 5, 6}, 2, 3) == std::vector<double>{1, 4, 2, 5, 3, 6});
  REQUIRE(cpu::transpose({1, 2, 3}, 1, 3) == std::vector<double>{1, 2, 3});  // a row becomes a column
  REQUIRE_THROWS(cpu::transpose({1, 2, 3}, 2, 2));
}

TEST_CASE("transposing twice gives the matrix back", "[lab06][cpu]") {
  std::vector<float> a(5 * 7);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  const auto t = cpu::transpose(a, 5, 7);
  const auto back = cpu::transpose(std::vector<float>(t.begin(), t.end()), 7, 5);
  REQUIRE(back == std::vector<double>(a.begin(), a.end()));
}
