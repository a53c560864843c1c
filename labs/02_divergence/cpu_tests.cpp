// CPU tests of lab 02's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"
#include "divergence.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>

using namespace lab02;

TEST_CASE("branch paths follow the parity of the element index", "[lab02][cpu]") {
  // One step from 2: even 2 * 0.999f + 0.125f, odd 2 * (-0.999f) + 0.5f.
  const double even = 2.0 * static_cast<double>(kEvenScale) + static_cast<double>(kEvenShift);
  const double odd = 2.0 * static_cast<double>(kOddScale) + static_cast<double>(kOddShift);
  REQUIRE(cpu::branch_element(2.0f, 0, 1).value == even);
  REQUIRE(cpu::branch_element(2.0f, 7, 1).value == odd);
  REQUIRE(cpu::branch_element(2.0f, 1000, 1).value == even);
  // Zero steps leave x alone; the largest magnitude includes the start.
  REQUIRE(cpu::branch_element(-3.0f, 5, 0).value == -3.0);
  REQUIRE(cpu::branch_element(-3.0f, 5, 0).max_abs == 3.0);
  // Two steps compose.
  const auto two = cpu::branch_element(1.0f, 0, 2);
  const double one = 1.0 * static_cast<double>(kEvenScale) + static_cast<double>(kEvenShift);
  REQUIRE(two.value == one * static_cast<double>(kEvenScale) + static_cast<double>(kEvenShift));
  REQUIRE(two.max_abs == std::max(1.0, std::max(one, two.value)));
}

TEST_CASE("segment sums add consecutive segments and keep the short last one", "[lab02][cpu]") {
  const auto s = cpu::segment_sums({1, -2, 3, 4, -5}, 2);
  REQUIRE(s.size() == 3);
  REQUIRE(s[0].value == -1);
  REQUIRE(s[0].abs == 3);
  REQUIRE(s[1].value == 7);
  REQUIRE(s[2].value == -5);
  REQUIRE(s[2].abs == 5);
  REQUIRE(cpu::segment_sums({}, 256).empty());
  REQUIRE_THROWS(cpu::segment_sums({1}, 0));
}

TEST_CASE("large outputs are sampled at both ends and at every lane in between", "[lab02][cpu]") {
  REQUIRE(cpu::sample_indices(33).size() == 33);
  const auto s = cpu::sample_indices(1000003);
  REQUIRE(std::is_sorted(s.begin(), s.end()));
  REQUIRE(s.front() == 0);
  REQUIRE(s.back() == 1000002);
  REQUIRE(std::adjacent_find(s.begin(), s.end()) == s.end());  // no index twice
  bool lanes[32] = {};
  for (auto i : s) lanes[i % 32] = true;
  REQUIRE(std::all_of(std::begin(lanes), std::end(lanes), [](bool b) { return b; }));
}
