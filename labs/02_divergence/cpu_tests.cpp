// CPU tests of lab 02's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"
#include "divergence.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

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

TEST_CASE("regroup elements at or above the threshold take the heavy path, the others the light one",
          "[lab02][cpu]") {
  // One step from 16: heavy 16 * kHeavyScale + kHeavyShift, light 16 * kLightScale + kLightShift.
  const double heavy = 16.0 * static_cast<double>(kHeavyScale) + static_cast<double>(kHeavyShift);
  const double light = 16.0 * static_cast<double>(kLightScale) + static_cast<double>(kLightShift);
  SECTION("the threshold itself is heavy") {
    const auto e = cpu::regroup_element(16.0f, 16.0f, 1, 1);
    REQUIRE(e.heavy);
    REQUIRE(e.value == heavy);
  }
  SECTION("below the threshold is light") {
    const auto e = cpu::regroup_element(16.0f, 16.5f, 1, 1);
    REQUIRE_FALSE(e.heavy);
    REQUIRE(e.value == light);
  }
  SECTION("each path takes its own number of steps") {
    const auto h = cpu::regroup_element(3.0f, 1.0f, 7, 2);
    REQUIRE(h.steps == 7);
    REQUIRE(h.value == cpu::fma_chain(3.0f, kHeavyScale, kHeavyShift, 7).value);
    const auto l = cpu::regroup_element(3.0f, 17.0f, 7, 2);
    REQUIRE(l.steps == 2);
    REQUIRE(l.value == cpu::fma_chain(3.0f, kLightScale, kLightShift, 2).value);
    REQUIRE(cpu::regroup_element(-3.0f, 17.0f, 7, 0).value == -3.0);
  }
}

TEST_CASE("regroup results of the test inputs are far apart next to their tolerance", "[lab02][cpu]") {
  // The tests' inputs are the integers 1..16, 4096 heavy steps and 16 light ones. A result computed on the wrong
  // path, or stored at another element's index, must be out of tolerance: the tolerance is 2 * steps * 2^-24 * the
  // largest |v| (exercises.cpp), and every pair of distinct results must be much further apart than that.
  constexpr int kHeavy = 4096, kLight = 16;
  struct Result {
    int x;
    cpu::RegroupElement e;
  };
  std::vector<Result> all;
  double worst_atol = 0;
  for (int x = 1; x <= 16; ++x) {
    for (float threshold : {1.0f, 17.0f}) {  // all heavy, none heavy
      const auto e = cpu::regroup_element(static_cast<float>(x), threshold, kHeavy, kLight);
      worst_atol = std::max(worst_atol, 2.0 * e.steps * 0x1p-24 * e.max_abs);
      all.push_back({x, e});
    }
  }
  REQUIRE(worst_atol < 0.01);
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = a + 1; b < all.size(); ++b) {
      CAPTURE(all[a].x, all[a].e.heavy, all[b].x, all[b].e.heavy);
      CHECK(std::fabs(all[a].e.value - all[b].e.value) > 10 * worst_atol);
    }
  // No element ends where it started (the paths drift towards -1 and 32): a kernel that copies x passes nothing.
  for (const auto& r : all) {
    CAPTURE(r.x, r.e.heavy);
    CHECK(std::fabs(r.e.value - r.x) > 10 * worst_atol);
  }
}

TEST_CASE("the heavy fraction counts the inputs at or above the threshold", "[lab02][cpu]") {
  REQUIRE(cpu::heavy_fraction(16, 1, 16) == 1.0 / 16);
  REQUIRE(cpu::heavy_fraction(1, 1, 16) == 1.0);
  REQUIRE(cpu::heavy_fraction(17, 1, 16) == 0.0);
  REQUIRE(cpu::heavy_fraction(8.5, 1, 16) == 0.5);
  REQUIRE_THROWS(cpu::heavy_fraction(1, 2, 1));
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
