// CPU tests of lab 06's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"

#include <harness/random.hpp>

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

TEST_CASE("transpose puts every element where the definition says, across several tiles and ragged edges",
          "[lab06][cpu]") {
  // 67 x 45: two full 32 x 32 tiles each way plus a partial tile on both edges, so the tiled loop's bounds are tested.
  const std::int64_t rows = 67, cols = 45;
  std::vector<float> a(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  const auto t = cpu::transpose(a, rows, cols);
  REQUIRE(t.size() == a.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) REQUIRE(t[c * rows + r] == a[r * cols + c]);
}

TEST_CASE("row sums add up each row, whatever its length", "[lab06][cpu]") {
  // 2 x 3:  1 2 3  ->  6
  //         4 5 6      15
  REQUIRE(cpu::row_sums({1, 2, 3, 4, 5, 6}, 2, 3) == std::vector<double>{6, 15});
  REQUIRE(cpu::row_sums({1, 2, 3, 4, 5, 6}, 3, 2) == std::vector<double>{3, 7, 11});
  REQUIRE(cpu::row_sums({1, -2, 3}, 3, 1) == std::vector<double>{1, -2, 3});  // one column: the sums are the values
  REQUIRE(cpu::row_sums({1, -2, 3}, 1, 3) == std::vector<double>{2});
  REQUIRE_THROWS(cpu::row_sums({1, 2, 3}, 2, 2));
}

TEST_CASE("float row sums of integers in [-8, 8] are exact in any order at the tested widths", "[lab06][cpu]") {
  // What lets exercises.cpp compare row_sums bit for bit: every partial sum of a row is an integer of magnitude at
  // most 8 * cols, below 2^24 for the widest tested row (100003 columns), so float adds them without rounding.
  constexpr std::size_t kWidest = 100003;
  const std::vector<float> eights(kWidest, 8.0f);
  float all_eights = 0.0f;
  for (float v : eights) all_eights += v;
  REQUIRE(all_eights == 8.0f * kWidest);  // the worst case: the largest partial sums there are

  const auto row = harness::random_ints(kWidest, 7, -8, 8);
  const double expected = cpu::row_sums(row, 1, static_cast<std::int64_t>(kWidest))[0];
  float forward = 0.0f, backward = 0.0f, lanes[32] = {};
  for (std::size_t c = 0; c < kWidest; ++c) forward += row[c];
  for (std::size_t c = kWidest; c-- > 0;) backward += row[c];
  for (std::size_t c = 0; c < kWidest; ++c) lanes[c % 32] += row[c];  // 32 partial sums, then a tree
  for (int width = 16; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  CHECK(forward == expected);
  CHECK(backward == expected);
  CHECK(lanes[0] == expected);
}
