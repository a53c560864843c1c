// Experiment (issue 15): where lab 02 block_sums' gap between the stub and the reference comes from, at the timed
// shape (2^28 floats, one sum per 256). Variants of the block tree, each one change from its neighbour, timed in the
// same rounds: the run-time `%` (the stub's `tid % (2 * stride)`), the loop bound known only at run time
// (`blockDim.x`, so the loop is not unrolled), and interleaved against sequential addressing (divergence). Every
// variant's sums are checked against one loop on the host. Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > block-sums-decomposition.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../rounds.cuh"

constexpr std::int64_t kN = std::int64_t{1} << 28;
constexpr int kSegment = 256;

enum class Addressing { kInterleavedModulo, kInterleavedMask, kSequential };

// One block per 256 elements, as lab 02 launches it. `kConstantBound`: the loop's bound is kSegment (known when
// compiling: unrolled, and `%` by a power of two becomes a mask); otherwise blockDim.x, as in the stub.
template <Addressing kAddressing, bool kConstantBound>
__global__ void block_sums(const float* __restrict__ x, float* __restrict__ sums, std::int64_t n) {
  __shared__ float s[kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kSegment) + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  const int size = kConstantBound ? kSegment : static_cast<int>(blockDim.x);
  if constexpr (kAddressing == Addressing::kSequential) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      if (tid < stride) s[tid] += s[tid + stride];
      __syncthreads();
    }
  } else {
    for (int stride = 1; stride < size; stride *= 2) {
      const bool adds = kAddressing == Addressing::kInterleavedModulo ? tid % (2 * stride) == 0
                                                                       : (tid & (2 * stride - 1)) == 0;
      if (adds) s[tid] += s[tid + stride];
      __syncthreads();
    }
  }
  if (tid == 0) sums[blockIdx.x] = s[0];
}

struct Variant {
  std::string name, what;
  void (*kernel)(const float*, float*, std::int64_t);
  std::vector<float> ms;
};

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::int64_t blocks = kN / kSegment;
  float *x = nullptr, *sums = nullptr, *flush = nullptr;
  const std::size_t flush_bytes = std::size_t{512} << 20;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&sums, blocks * sizeof(float)));
  CHECK(cudaMalloc(&flush, flush_bytes));
  // Small integers (i % 7 - 3): every order of additions gives the same exact sum, so each variant is checked exactly.
  std::vector<float> host(kN);
  for (std::int64_t i = 0; i < kN; ++i) host[i] = static_cast<float>(i % 7 - 3);
  CHECK(cudaMemcpy(x, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> expected(blocks, 0.0f);
  for (std::int64_t b = 0; b < blocks; ++b)
    for (int k = 0; k < kSegment; ++k) expected[b] += host[b * kSegment + k];

  using A = Addressing;
  std::vector<Variant> v = {
      {"stub", "interleaved, tid % (2 * stride), bound blockDim.x (the shipped stub)",
       block_sums<A::kInterleavedModulo, false>},
      {"interleaved_mask", "interleaved, (tid & (2 * stride - 1)) == 0, bound blockDim.x",
       block_sums<A::kInterleavedMask, false>},
      {"interleaved_unrolled", "interleaved, the test as a mask, bound 256 (unrolled)",
       block_sums<A::kInterleavedMask, true>},
      {"sequential_runtime_bound", "sequential addressing, bound blockDim.x",
       block_sums<A::kSequential, false>},
      {"reference", "sequential addressing, bound 256 (unrolled: the reference)", block_sums<A::kSequential, true>},
  };
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::vector<float> got(blocks);
  for (auto& c : v) {  // warm-up, and each variant's sums checked once
    CHECK(cudaMemsetAsync(sums, 0xff, blocks * sizeof(float), s));
    c.kernel<<<static_cast<unsigned>(blocks), kSegment, 0, s>>>(x, sums, kN);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(got.data(), sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::int64_t b = 0; b < blocks; ++b)
      if (got[b] != expected[b]) {
        std::fprintf(stderr, "%s: wrong sum %lld: %g, expected %g\n", c.name.c_str(), static_cast<long long>(b),
                     got[b], expected[b]);
        return 2;
      }
  }
  constexpr int kRounds = 30;
  time_rounds(v, kRounds, s, flush, flush_bytes,
              [&](const Variant& c) { c.kernel<<<static_cast<unsigned>(blocks), kSegment, 0, s>>>(x, sums, kN); });
  const double reference_ms = median(v.back().ms);
  std::printf("{\"gpu\": \"%s\", \"n\": %lld, \"segment\": %d, \"rounds\": %d, \"variants\": [\n", prop.name,
              static_cast<long long>(kN), kSegment, kRounds);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Spread t = spread(v[i].ms);
    std::printf("  {\"name\": \"%s\", \"what\": \"%s\", \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
                "\"times_reference\": %.3f}%s\n",
                v[i].name.c_str(), v[i].what.c_str(), t.median_ms, t.min_ms, t.max_ms, t.median_ms / reference_ms,
                i + 1 < v.size() ? "," : "");
  }
  std::printf("]}\n");
  return 0;
}
