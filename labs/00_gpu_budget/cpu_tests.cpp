// CPU tests of lab 00's references and of the budget arithmetic the sheet teaches: they run in CI, where there is no
// GPU to compare against. The occupancy arithmetic is checked by hand on H100 numbers, and against the CUDA toolkit's
// own occupancy calculator (cuda_occupancy.h, host code: the arithmetic cudaOccupancyMaxActiveBlocksPerMultiprocessor
// does).
#include "cpu_reference.hpp"
#include "gpu_budget.hpp"

#include <cuda_occupancy.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

using namespace lab00;

TEST_CASE("scale multiplies every element in double precision", "[lab00][cpu]") {
  REQUIRE(cpu::scale({1.0f, -2.0f, 0.5f}, 3.0f) == std::vector<double>{3.0, -6.0, 1.5});
  REQUIRE(cpu::scale({}, 3.0f).empty());
}

TEST_CASE("mix depends on the value, the index and every round, and stays exact in a float", "[lab00][cpu]") {
  const float a = mix(5.0f, 7, 64);
  CHECK(a == mix(5.0f, 7, 64));
  CHECK(a != mix(6.0f, 7, 64));
  CHECK(a != mix(5.0f, 8, 64));
  CHECK(a != mix(5.0f, 7, 63));
  CHECK(mix(5.0f, 7, 0) != mix(5.0f, 7, 1));
  for (int rounds : {0, 1, 64}) {
    CAPTURE(rounds);
    const float h = mix(-1048576.0f, 1000002, rounds);
    CHECK(h >= 0.0f);
    CHECK(h < 16777216.0f);  // 24 bits: every value is an exact float
    CHECK(h == static_cast<float>(static_cast<std::uint32_t>(h)));
  }
  const auto all = cpu::mix_all({1.0f, 1.0f, -3.0f}, 64);
  REQUIRE(all.size() == 3);
  CHECK(all[0] == mix(1.0f, 0, 64));
  CHECK(all[1] == mix(1.0f, 1, 64));
  CHECK(all[0] != all[1]);  // the same value at two indices hashes apart: no table of values stands in for the work
}

TEST_CASE("occupancy on an H100, worked by hand", "[lab00][cpu][occupancy]") {
  using cpu::BlockUsage;
  SECTION("few registers, no shared memory: the thread limit, every warp slot full") {
    const auto o = cpu::occupancy(BlockUsage{.threads = 256, .registers_per_thread = 32});
    CHECK(o.blocks == 8);  // 2048 threads / 256
    CHECK(o.warps == 64);
    CHECK(o.fraction == 1.0);
    CHECK(o.limited_by == "threads");
  }
  SECTION("64 registers per thread: 2048 per warp, 8 warps per quarter of the register file, 32 warps") {
    const auto o = cpu::occupancy(BlockUsage{.threads = 256, .registers_per_thread = 64});
    CHECK(o.blocks == 4);
    CHECK(o.warps == 32);
    CHECK(o.fraction == 0.5);
    CHECK(o.limited_by == "registers");
  }
  SECTION("registers round up to 256 per warp: 33 and 40 registers cost the same as 40") {
    // 33 x 32 = 1056 -> 1280 per warp; 16384 / 1280 = 12 warps per quarter, 48 warps; 6 blocks of 8 warps.
    const auto o33 = cpu::occupancy(BlockUsage{.threads = 256, .registers_per_thread = 33});
    const auto o40 = cpu::occupancy(BlockUsage{.threads = 256, .registers_per_thread = 40});
    CHECK(o33.blocks == 6);
    CHECK(o40.blocks == 6);
    CHECK(o33.warps == 48);
  }
  SECTION("the stub of exercise 2: 100 KiB of shared memory per block of 256 threads") {
    // 102400 + 1024 reserved = 103424 per block; 233472 / 103424 = 2 blocks, 16 warps, a quarter of the slots.
    const auto o = cpu::occupancy(BlockUsage{.threads = 256, .registers_per_thread = 16,
                                             .dynamic_shared_bytes = 100 * 1024});
    CHECK(o.blocks == 2);
    CHECK(o.warps == 16);
    CHECK(o.fraction == 0.25);
    CHECK(o.limited_by == "shared memory");
  }
  SECTION("tiny blocks: the 32-block limit") {
    const auto o = cpu::occupancy(BlockUsage{.threads = 32, .registers_per_thread = 16});
    CHECK(o.blocks == 32);
    CHECK(o.warps == 32);
    CHECK(o.limited_by == "blocks");
  }
  SECTION("the launch rule of exercise 1: one block of 128 threads per SM is 4 warps, 6.25%") {
    CHECK(4.0 / 64 == 0.0625);
    const auto o = cpu::occupancy(BlockUsage{.threads = 128, .registers_per_thread = 255});
    CHECK(o.blocks == 2);  // 255 x 32 -> 8192 per warp; 2 warps per quarter, 8 warps: 2 blocks even at 255
  }
  SECTION("what cannot launch") {
    CHECK(cpu::occupancy(BlockUsage{.threads = 1025}).blocks == 0);
    CHECK(cpu::occupancy(BlockUsage{.threads = 1024, .registers_per_thread = 65}).blocks == 0);  // 66560 > 65536
    CHECK(cpu::occupancy(BlockUsage{.threads = 32, .dynamic_shared_bytes = 232449}).blocks == 0);
    CHECK(cpu::occupancy(BlockUsage{.threads = 32, .registers_per_thread = 256}).blocks == 0);
    CHECK_THROWS(cpu::occupancy(BlockUsage{.threads = 0}));
  }
}

namespace {
// An H100 SXM (sm_90) as the toolkit's calculator describes one.
cudaOccDeviceProp h100_prop() {
  cudaOccDeviceProp p;
  p.computeMajor = 9;
  p.computeMinor = 0;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = 2048;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.numSms = 132;
  p.sharedMemPerBlockOptin = 227 * 1024;
  p.reservedSharedMemPerBlock = 1024;
  return p;
}
}  // namespace

TEST_CASE("occupancy agrees with the toolkit's occupancy calculator on an H100", "[lab00][cpu][occupancy]") {
  const cudaOccDeviceProp prop = h100_prop();
  const int threads = GENERATE(32, 64, 96, 128, 160, 256, 384, 512, 640, 768, 1024);
  const int registers = GENERATE(0, 16, 24, 32, 33, 40, 48, 56, 64, 72, 96, 128, 168, 255);
  const long shared = GENERATE(0L, 1024L, 4096L, 16384L, 48 * 1024L, 100 * 1024L, 160 * 1024L, 227 * 1024L);
  CAPTURE(threads, registers, shared);
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = 1024;
  attributes.numRegs = registers;
  attributes.sharedSizeBytes = 0;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = 227 * 1024;
  cudaOccDeviceState state;
  cudaOccResult expected{};
  REQUIRE(cudaOccMaxActiveBlocksPerMultiprocessor(&expected, &prop, &attributes, &state, threads,
                                                  static_cast<size_t>(shared)) == CUDA_OCC_SUCCESS);
  const auto got = cpu::occupancy(
      cpu::BlockUsage{.threads = threads, .registers_per_thread = registers, .dynamic_shared_bytes = shared});
  CHECK(got.blocks == expected.activeBlocksPerMultiprocessor);
}

TEST_CASE("Little's law: bytes in flight are bandwidth times latency", "[lab00][cpu]") {
  // 3.35 TB/s (an H100 SXM's HBM3, the vendor's figure) for 700 ns: about 2.3 MB across the GPU.
  CHECK(cpu::bytes_in_flight(3.35e12, 700e-9) == 3.35e12 * 700e-9);
  CHECK(cpu::bytes_in_flight(1e12, 1e-6) == 1e6);
}

TEST_CASE("waves count a partial last wave as a whole one", "[lab00][cpu][waves]") {
  // 132 SMs x 2 blocks of 1024 threads = 264 block slots.
  CHECK(cpu::waves(264, 132, 2) == 1);
  CHECK(cpu::wave_efficiency(264, 132, 2) == 1.0);
  CHECK(cpu::waves(265, 132, 2) == 2);  // the stub's grid: one wave and one block
  CHECK(cpu::wave_efficiency(265, 132, 2) == 265.0 / 528);
  CHECK(cpu::waves(1, 132, 2) == 1);
  CHECK(cpu::waves(0, 132, 2) == 0);
  CHECK(cpu::wave_efficiency(0, 132, 2) == 0);
  CHECK(cpu::waves(65536, 132, 8) == 63);  // 2^24 elements in blocks of 256: 62.06 waves, the last 6% full
  CHECK_THROWS(cpu::waves(10, 0, 2));
}
