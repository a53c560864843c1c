// CPU tests of lab 03's references: they run in CI, where there is no GPU to compare against.
#include "cpu_reference.hpp"
#include "warp_shuffles.hpp"

#include <catch2/catch_test_macros.hpp>

#include <numeric>

using namespace lab03;

namespace {
std::vector<float> iota(std::size_t n) {  // 1, 2, 3, ...
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}
}  // namespace

TEST_CASE("the repetition weight is 1 + 2 + ... + reps", "[lab03][cpu]") {
  REQUIRE(cpu::repetition_weight(1) == 1);
  REQUIRE(cpu::repetition_weight(3) == 6);
  REQUIRE(cpu::repetition_weight(64) == 2080);
}

TEST_CASE("warps are formed inside blocks, so a block of 33 has a one-lane warp", "[lab03][cpu]") {
  // 70 elements in blocks of 33: block 0 = warps (32 lanes, 1 lane), block 1 = (32, 1), block 2 = 4 elements.
  REQUIRE(cpu::warps_with_elements(70, 33) == 5);
  const auto s = cpu::warp_sums(iota(70), 33, 1);
  REQUIRE(s.size() == 5);
  REQUIRE(s[0] == 32 * 33 / 2);             // elements 1..32
  REQUIRE(s[1] == 33);                      // element 33 alone
  REQUIRE(s[2] == (34 + 65) * 32 / 2);      // 34..65
  REQUIRE(s[3] == 66);
  REQUIRE(s[4] == 67 + 68 + 69 + 70);
  REQUIRE(cpu::warp_sums(iota(70), 33, 3)[1] == 6 * 33);  // three repetitions: weight 6
  REQUIRE(cpu::warps_with_elements(1, 1024) == 1);
  REQUIRE(cpu::warps_with_elements(1025, 1024) == 33);
  REQUIRE_THROWS(cpu::warp_sums(iota(4), 0, 1));
}

TEST_CASE("the all-reduce gives every lane its warp's sum plus the broadcast lanes", "[lab03][cpu]") {
  // One warp of 3 lanes (values 1, 2, 3), 2 repetitions: weight 3, sum 6; g = 0 broadcasts lanes (0 + 5) % 3 = 2
  // and (0 + 10) % 3 = 1, contributing 1 * 3 + 2 * 2 = 7.
  REQUIRE(broadcast_source(0, 1, 3) == 2);
  REQUIRE(broadcast_source(0, 2, 3) == 1);
  const auto y = cpu::warp_allreduce(iota(3), 32, 2);
  REQUIRE(y == std::vector<double>{3 * 6 + 7, 3 * 6 + 7, 3 * 6 + 7});
}

TEST_CASE("the test kernel's division-free step gives every repetition's broadcast source", "[lab03][cpu]") {
  for (int lanes = 1; lanes <= 32; ++lanes)
    for (const std::int64_t g : {std::int64_t{0}, std::int64_t{7}, std::int64_t{31}, std::int64_t{1} << 33}) {
      int source = broadcast_source(g, 0, lanes);
      for (int r = 1; r <= 70; ++r) {
        source = next_broadcast_source(source, lanes);
        CAPTURE(lanes, g, r);
        REQUIRE(source == broadcast_source(g, r, lanes));
      }
    }
}

TEST_CASE("the inclusive scan restarts at every warp", "[lab03][cpu]") {
  const auto y = cpu::warp_scans(iota(35), 64, 1);
  REQUIRE(y[0] == 1);
  REQUIRE(y[1] == 3);
  REQUIRE(y[31] == 32 * 33 / 2);
  REQUIRE(y[32] == 33);  // lane 0 of the second warp
  REQUIRE(y[34] == 33 + 34 + 35);
}

TEST_CASE("block sums cover whole blocks and the short last one", "[lab03][cpu]") {
  const auto s = cpu::block_sums(iota(5), 2, 2);
  REQUIRE(s == std::vector<double>{3 * 3, 3 * 7, 3 * 5});
}
