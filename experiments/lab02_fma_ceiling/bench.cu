// Experiment (issue 30): why lab 02's compute ceiling (labs/02_divergence/support/fma_ceiling.cu: 2^24 threads, each
// a chain of 512 dependent FMAs, 256 threads a block) runs about a quarter slower than the FP32 peak the sheet's
// napkin math takes (every scheduler issuing one warp-wide FFMA every clock at the boost clock).
// Variants, timed in the same 30 rounds (no flush: nothing is loaded):
//   shipped     the ceiling's kernel as the lab ships it: the step count a run-time argument
//   unrolled    the same chain with the step count known at compile time and the loop unrolled whole: only FFMAs
//   ilp4        four independent chains of 128 steps per thread (the same FMAs), the count a run-time argument
//   clocked     `shipped` with each block's first thread reading the SM's cycle counter and the global timer around
//               its chain: the clock the SMs ran at during this kernel
// Prints JSON: each variant's median, extremes and FP32 rate; the boost clock the device reports and the clock
// measured; the resident warps per scheduler (occupancy API).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > lab02_fma_ceiling.json
//   ./bench once    each variant launched once, no timing: for ncu (profile.sh)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../rounds.cuh"

namespace {

constexpr std::int64_t kThreads = std::int64_t{1} << 24;
constexpr int kSteps = 512;
constexpr int kBlock = 256;
constexpr float kScale = 0.999f, kShift = 0.125f;  // lab 02's kEvenScale, kEvenShift

__device__ __forceinline__ float start_value() { return static_cast<float>(threadIdx.x % 16) - 8.0f; }

__global__ void shipped(float* out, std::int64_t n, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  float v = start_value();
  for (int k = 0; k < iterations; ++k) v = fmaf(v, kScale, kShift);
  out[t] = v;
}

__global__ void unrolled(float* out, std::int64_t n) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  float v = start_value();
#pragma unroll
  for (int k = 0; k < kSteps; ++k) v = fmaf(v, kScale, kShift);
  out[t] = v;
}

__global__ void ilp4(float* out, std::int64_t n, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  float v0 = start_value(), v1 = v0 + 1.0f, v2 = v0 + 2.0f, v3 = v0 + 3.0f;
  for (int k = 0; k < iterations / 4; ++k) {
    v0 = fmaf(v0, kScale, kShift);
    v1 = fmaf(v1, kScale, kShift);
    v2 = fmaf(v2, kScale, kShift);
    v3 = fmaf(v3, kScale, kShift);
  }
  out[t] = v0 + v1 + v2 + v3;
}

__global__ void clocked(float* out, std::int64_t n, int iterations, long long* cycles, unsigned long long* ns) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  long long c0 = 0;
  unsigned long long g0 = 0;
  if (threadIdx.x == 0) {
    c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  }
  float v = start_value();
  for (int k = 0; k < iterations; ++k) v = fmaf(v, kScale, kShift);
  out[t] = v;
  if (threadIdx.x == 0) {
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    cycles[blockIdx.x] = clock64() - c0;
    ns[blockIdx.x] = g1 - g0;
  }
}

struct Variant {
  const char* name;
  std::vector<float> ms;
};

}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  const unsigned blocks = static_cast<unsigned>(kThreads / kBlock);
  float* out = nullptr;
  long long* cycles = nullptr;
  unsigned long long* ns = nullptr;
  CHECK(cudaMalloc(&out, kThreads * sizeof(float)));
  CHECK(cudaMalloc(&cycles, blocks * sizeof(long long)));
  CHECK(cudaMalloc(&ns, blocks * sizeof(unsigned long long)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  std::vector<Variant> variants = {{"shipped", {}}, {"unrolled", {}}, {"ilp4", {}}, {"clocked", {}}};
  const auto launch = [&](Variant& v) {
    const std::string name = v.name;
    if (name == "shipped") shipped<<<blocks, kBlock, 0, stream>>>(out, kThreads, kSteps);
    if (name == "unrolled") unrolled<<<blocks, kBlock, 0, stream>>>(out, kThreads);
    if (name == "ilp4") ilp4<<<blocks, kBlock, 0, stream>>>(out, kThreads, kSteps);
    if (name == "clocked") clocked<<<blocks, kBlock, 0, stream>>>(out, kThreads, kSteps, cycles, ns);
    CHECK(cudaGetLastError());
  };
  if (once) {
    for (auto& v : variants) launch(v);
    CHECK(cudaStreamSynchronize(stream));
    return 0;
  }
  for (int w = 0; w < 3; ++w)
    for (auto& v : variants) launch(v);  // warm-up: clocks up, modules loaded
  void* flush = nullptr;  // time_rounds() writes it before each run; a small one (nothing here is loaded)
  CHECK(cudaMalloc(&flush, 1 << 20));
  time_rounds(variants, 30, stream, flush, 1 << 20, launch);

  std::vector<long long> c(blocks);
  std::vector<unsigned long long> g(blocks);
  CHECK(cudaMemcpy(c.data(), cycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g.data(), ns, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  double sum_c = 0, sum_g = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    sum_c += static_cast<double>(c[b]);
    sum_g += static_cast<double>(g[b]);
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int boost_khz = 0, blocks_per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&boost_khz, cudaDevAttrClockRate, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, shipped, kBlock, 0));
  const double flops = 2.0 * kSteps * static_cast<double>(kThreads);
  const double lanes = prop.multiProcessorCount * 128.0;  // FP32 lanes: 4 schedulers x 32 on sm_90
  const double measured_ghz = sum_c / sum_g;
  std::printf("{\n  \"gpu\": \"%s\", \"sms\": %d, \"boost_clock_ghz\": %.3f, \"measured_clock_ghz\": %.3f,\n",
              prop.name, prop.multiProcessorCount, boost_khz * 1e-6, measured_ghz);
  std::printf("  \"warps_per_scheduler\": %d, \"flops\": %.4g,\n", blocks_per_sm * kBlock / 32 / 4, flops);
  std::printf("  \"peak_ms_at_boost\": %.4f, \"peak_ms_at_measured_clock\": %.4f,\n  \"variants\": [\n",
              flops / (2.0 * lanes * boost_khz * 1e3) * 1e3, flops / (2.0 * lanes * measured_ghz * 1e9) * 1e3);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Spread s = spread(variants[i].ms);
    std::printf("    {\"name\": \"%s\", \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"tflops\": %.2f}%s\n",
                variants[i].name, s.median_ms, s.min_ms, s.max_ms, flops / (s.median_ms * 1e-3) * 1e-12,
                i + 1 < variants.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
  return 0;
}
