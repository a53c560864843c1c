// Experiment (issue 15): lab 04's stages 4 and 5 as one lesson, bytes in flight (Little's law). The grid-stride sum
// of the two stages over the timed 2^28 floats, varied in the three factors of the bytes an SM has on their way:
// the warps resident on each SM (blocks of 256 per SM), the loads each thread issues before its first add (the
// unrolling), and the bytes per load (4 or 16). Timed in the same rounds with a 512 MiB L2 flush before each run, with
// the lab's ceiling as the last variant: a device-to-device copy that moves the same 1 GiB (512 MiB read, 512
// written; a read alone streams a little faster, so the best sums pass 100%). Each sum is checked exactly
// (small integer inputs). Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > bytes-in-flight.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../rounds.cuh"

constexpr std::int64_t kN = std::int64_t{1} << 28;
constexpr int kThreads = 256;

__device__ float block_sum(float v) {
  __shared__ float slots[kThreads / 32];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? slots[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32)
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  return v;
}

// Stage 4's loop (kVector false) or stage 5's (true), unrolled kUnroll times: the loads of kUnroll trips are
// independent of the adds, so the compiler issues them all before the first add.
template <bool kVector, int kUnroll>
__global__ void grid_sum(const float* __restrict__ x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float sum = 0.0f;
  if constexpr (kVector) {
    const auto* x4 = reinterpret_cast<const float4*>(x);
#pragma unroll kUnroll
    for (std::int64_t i = t; i < n / 4; i += stride) {
      const float4 v = x4[i];
      sum += (v.x + v.y) + (v.z + v.w);
    }
    if (t < n % 4) sum += x[n / 4 * 4 + t];
  } else {
#pragma unroll kUnroll
    for (std::int64_t i = t; i < n; i += stride) sum += x[i];
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

struct Variant {
  std::string name, what;
  void (*kernel)(const float*, float*, std::int64_t);  // null: the copy
  int blocks_per_sm, loads_per_thread, bytes_per_load;
  std::vector<float> ms;
};

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t bytes = kN * sizeof(float);
  float *x = nullptr, *copy = nullptr, *result = nullptr, *flush = nullptr;
  const std::size_t flush_bytes = std::size_t{512} << 20;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&copy, bytes));
  CHECK(cudaMalloc(&result, sizeof(float)));
  CHECK(cudaMalloc(&flush, flush_bytes));
  // i % 7 - 3: a thread's partial sums and the block sums stay small integers, exact in float in any order.
  std::vector<float> host(kN);
  double expected = 0;
  for (std::int64_t i = 0; i < kN; ++i) expected += host[i] = static_cast<float>(i % 7 - 3);
  CHECK(cudaMemcpy(x, host.data(), bytes, cudaMemcpyHostToDevice));

  std::vector<Variant> v = {
      {"stage4", "stage 4's reference: 8 blocks per SM, one 4-byte load in flight per thread (#pragma unroll 1)",
       grid_sum<false, 1>, 8, 1, 4},
      {"stage4_half_occupancy", "stage 4's loop, 4 blocks per SM", grid_sum<false, 1>, 4, 1, 4},
      {"stage4_quarter_occupancy", "stage 4's loop, 2 blocks per SM", grid_sum<false, 1>, 2, 1, 4},
      {"scalar_unroll2", "4-byte loads, unrolled by 2, 8 blocks per SM", grid_sum<false, 2>, 8, 2, 4},
      {"scalar_unroll4", "4-byte loads, unrolled by 4, 8 blocks per SM", grid_sum<false, 4>, 8, 4, 4},
      {"scalar_unroll4_quarter_occupancy", "4-byte loads, unrolled by 4, 2 blocks per SM", grid_sum<false, 4>, 2, 4,
       4},
      {"float4_unroll1", "16-byte loads, #pragma unroll 1, 8 blocks per SM", grid_sum<true, 1>, 8, 1, 16},
      {"stage5", "stage 5's reference: 16-byte loads, unrolled by 4, 8 blocks per SM", grid_sum<true, 4>, 8, 4, 16},
      {"stage5_quarter_occupancy", "stage 5's loop, 2 blocks per SM", grid_sum<true, 4>, 2, 4, 16},
      {"copy", "cudaMemcpyAsync device to device of 512 MiB: 1 GiB moved, as the lab's ceiling times it", nullptr, 0, 0, 0},
  };
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const auto launch = [&](const Variant& c) {
    if (c.kernel == nullptr) {
      CHECK(cudaMemcpyAsync(copy, x, bytes / 2, cudaMemcpyDeviceToDevice, s));  // 1 GiB moved: read and written
      return;
    }
    CHECK(cudaMemsetAsync(result, 0, sizeof(float), s));
    c.kernel<<<static_cast<unsigned>(prop.multiProcessorCount * c.blocks_per_sm), kThreads, 0, s>>>(x, result, kN);
    CHECK(cudaGetLastError());
  };
  for (auto& c : v) {  // warm-up, and each sum checked once
    launch(c);
    CHECK(cudaStreamSynchronize(s));
    if (c.kernel == nullptr) continue;
    float got = 0;
    CHECK(cudaMemcpy(&got, result, sizeof(float), cudaMemcpyDeviceToHost));
    if (got != expected) {
      std::fprintf(stderr, "%s: sum %g, expected %g\n", c.name.c_str(), got, expected);
      return 2;
    }
  }
  constexpr int kRounds = 30;
  time_rounds(v, kRounds, s, flush, flush_bytes, launch);
  const double stage4_ms = median(v.front().ms), copy_ms = median(v.back().ms);
  std::printf("{\"gpu\": \"%s\", \"sms\": %d, \"n\": %lld, \"threads_per_block\": %d, \"rounds\": %d, "
              "\"variants\": [\n",
              prop.name, prop.multiProcessorCount, static_cast<long long>(kN), kThreads, kRounds);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Variant& c = v[i];
    const Spread t = spread(c.ms);
    const double med = t.median_ms;
    // Bytes a thread, and an SM, has requested before its first add: the factor Little's law multiplies.
    const int per_thread = c.loads_per_thread * c.bytes_per_load;
    std::printf("  {\"name\": \"%s\", \"what\": \"%s\", \"blocks_per_sm\": %d, \"occupancy_percent\": %.0f, "
                "\"bytes_in_flight_per_thread\": %d, "
                "\"kb_in_flight_per_sm\": %.0f, \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
                "\"read_gbps\": %.0f, \"percent_of_copy\": %.1f, \"times_stage4\": %.3f}%s\n",
                c.name.c_str(), c.what.c_str(), c.blocks_per_sm,
                100.0 * c.blocks_per_sm * kThreads / prop.maxThreadsPerMultiProcessor, per_thread,
                c.blocks_per_sm * kThreads * per_thread / 1024.0, med, t.min_ms, t.max_ms, bytes / (med * 1e6),
                100.0 * copy_ms / med, med / stage4_ms, i + 1 < v.size() ? "," : "");
  }
  std::printf("]}\n");
  return 0;
}
