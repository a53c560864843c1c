// Experiment (issue 30): why lab 05's smem_tiled reference (solutions/05_tiled_matmul/solution.cu: 32 x 32 tiles,
// one output per thread) runs faster than the sheet's bound of two shared-memory loads per FMA (one 128-byte
// wavefront per clock per SM against four warp-wide FMAs: 1/8 of the FP32 peak, 16.4 ms on an H200 at 4096^3).
// The suspicion (issue 30): a thread reads as[ty][0..31], 32 consecutive words, so ptxas may merge four of them into
// one 128-bit load, a broadcast that costs one wavefront for four FMAs; bs[p][tx] stays one word a lane.
// Variants, timed in the same 15 rounds, each after a 512 MiB L2 flush, and checked bit for bit against `shipped`:
//   shipped    the reference's kernel as the lab ships it
//   a_scalar   the same with A's tile read through a volatile pointer: one load a word, as the bound assumes
// profile.sh reads the SASS of the shipped solution.cu and of these kernels (LDS by width against FFMA) and ncu's
// shared-memory wavefronts per FFMA. Prints JSON: each variant's median, extremes and FP32 rate.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > lab05_smem_tiled.json
//   ./bench once    each variant launched once, no timing: for ncu (profile.sh)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../rounds.cuh"

namespace {

constexpr std::int64_t kDim = 4096;  // m = n = k, the timed shape
constexpr int kTile = 32;

template <bool kVolatileA>
__global__ void smem_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           std::int64_t m, std::int64_t n, std::int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  float sum = 0.0f;
  for (std::int64_t p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : 0.0f;
    bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : 0.0f;
    __syncthreads();
    if (kVolatileA) {
      const volatile float* arow = as[ty];
#pragma unroll
      for (int p = 0; p < kTile; ++p) sum += arow[p] * bs[p][tx];
    } else {
#pragma unroll
      for (int p = 0; p < kTile; ++p) sum += as[ty][p] * bs[p][tx];
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

struct Variant {
  std::string name;
  void (*kernel)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
  std::vector<float> ms;
};

}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  const std::size_t elems = kDim * kDim, bytes = elems * sizeof(float);
  float *a = nullptr, *b = nullptr, *c = nullptr, *flush = nullptr;
  const std::size_t flush_bytes = std::size_t{512} << 20;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMalloc(&flush, flush_bytes));
  std::vector<float> host(elems);
  for (std::size_t i = 0; i < elems; ++i) host[i] = static_cast<float>((i * 2654435761u) % 17) / 8.0f - 1.0f;
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));
  std::vector<Variant> v = {{"shipped", smem_tiled<false>, {}}, {"a_scalar", smem_tiled<true>, {}}};
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const auto launch = [&](const Variant& x) {
    x.kernel<<<dim3(kDim / kTile, kDim / kTile), dim3(kTile, kTile), 0, s>>>(a, b, c, kDim, kDim, kDim);
    CHECK(cudaGetLastError());
  };
  // Warm-up, and each variant's C checked once.
  if (const std::size_t i = first_differing(v, s, c, bytes, launch); i < v.size()) {
    std::fprintf(stderr, "%s: C differs from shipped's\n", v[i].name.c_str());
    return 2;
  }
  if (once) return 0;
  time_rounds(v, 15, s, flush, flush_bytes, launch);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const double flops = 2.0 * kDim * kDim * kDim;
  std::printf("{\n  \"gpu\": \"%s\", \"shape\": \"%lldx%lldx%lld\",\n  \"variants\": [\n", prop.name,
              static_cast<long long>(kDim), static_cast<long long>(kDim), static_cast<long long>(kDim));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Spread sp = spread(v[i].ms);
    std::printf("    {\"name\": \"%s\", \"median_ms\": %.3f, \"min_ms\": %.3f, \"max_ms\": %.3f, \"tflops\": %.2f}%s\n",
                v[i].name.c_str(), sp.median_ms, sp.min_ms, sp.max_ms, flops / (sp.median_ms * 1e-3) * 1e-12,
                i + 1 < v.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
  return 0;
}
