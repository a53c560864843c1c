// CPU tests of lab 05's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>

using namespace lab05;

TEST_CASE("matmul multiplies row-major matrices", "[lab05][cpu]") {
  // A (2 x 3) = 1 2 3    B (3 x 2) =  1 -1    A * B =  1+0+3  -1+4+3  =   4   6
  //             4 5 6                 0  2             4+0+6  -4+10+6      10  12
  //                                   1  1
  const auto c = cpu::matmul({1, 2, 3, 4, 5, 6}, {1, -1, 0, 2, 1, 1}, 2, 2, 3);
  REQUIRE(c == std::vector<double>{4, 6, 10, 12});
  REQUIRE_THROWS(cpu::matmul({1, 2, 3}, {1, 2}, 1, 1, 3));
}

TEST_CASE("matmul with k = 1 is the outer product", "[lab05][cpu]") {
  const auto c = cpu::matmul({2, -3}, {1, 4, 5}, 2, 3, 1);
  REQUIRE(c == std::vector<double>{2, 8, 10, -3, -12, -15});
}

TEST_CASE("matmul_at agrees with matmul at the requested elements", "[lab05][cpu]") {
  const std::int64_t m = 5, n = 7, k = 3;
  std::vector<float> a(m * k), b(k * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  const auto full = cpu::matmul(a, b, m, n, k);
  const std::vector<std::size_t> at = {0, 6, 17, 34};
  const auto some = cpu::matmul_at(a, b, m, n, k, at);
  REQUIRE(some.size() == at.size());
  for (std::size_t i = 0; i < at.size(); ++i) REQUIRE(some[i] == full[at[i]]);
  REQUIRE_THROWS(cpu::matmul_at(a, b, m, n, k, {35}));
}

TEST_CASE("sampled elements cover corners and block-tile edges, sorted and in range", "[lab05][cpu]") {
  const std::int64_t m = 1025, n = 300;
  const auto s = cpu::sample_indices(m, n, 3);
  REQUIRE(std::is_sorted(s.begin(), s.end()));
  REQUIRE(std::adjacent_find(s.begin(), s.end()) == s.end());
  REQUIRE(s.back() < static_cast<std::size_t>(m * n));
  const auto has = [&](std::int64_t i, std::int64_t j) {
    return std::binary_search(s.begin(), s.end(), static_cast<std::size_t>(i * n + j));
  };
  for (auto [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1},
                      {127, 128}, {128, 255}, {1023, 256}, {1024, 299}})
    CHECK(has(i, j));
  for (std::int64_t j = 0; j < n; ++j) REQUIRE(has(m - 1, j));  // whole last row
  for (std::int64_t i = 0; i < m; ++i) REQUIRE(has(i, n - 1));  // whole last column
  // A 1 x 1 output has one element to sample.
  REQUIRE(cpu::sample_indices(1, 1, 1) == std::vector<std::size_t>{0});
}
