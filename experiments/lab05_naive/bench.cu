// Experiment (issue 15): what limits lab 05's coalesced naive kernel at the timed shape (4096^3), and why two runs of
// the same k loop in PTX runs in 26 or 46 ms. Most variants below are the reference's loop (one thread per element of
// C, threadIdx.x along the columns, the k loop unrolled by 8) with one thing changed: how row and column are computed,
// the block shape, the unrolling, or the warps each SM may hold (dynamic shared memory the kernel never touches caps
// the resident blocks); then the shipped stub and the stub with only its thread map fixed.
// All are timed in the same rounds, each run after a 512 MiB L2 flush, with every round's time kept so that a
// bimodal kernel shows as a wide spread rather than hiding in a median. Each variant's C is checked bit for bit
// against the reference's (every variant adds the same products in the same order). Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > naive.json
//   ./bench once    each variant launched once, no timing: for `ncu --kernel-name regex:naive ./bench once`
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../rounds.cuh"

constexpr std::int64_t kDim = 4096;  // m = n = k, the timed shape

// The reference's kernel (solutions/05_tiled_matmul/solution.cu), with the block shape and unrolling as parameters,
// and kWide: row and column computed in 64-bit arithmetic, as the reference did up to commit 8e73167, instead of in
// 32 bits and then widened. The k loop is the same PTX either way; ptxas schedules it differently (see README.md).
template <int kBx, int kBy, int kUnroll, bool kWide = false>
__global__ void naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::int64_t row = kWide ? blockIdx.y * static_cast<std::int64_t>(kBy) + threadIdx.y
                                 : static_cast<unsigned>(blockIdx.y * kBy + threadIdx.y);
  const std::int64_t col = kWide ? blockIdx.x * static_cast<std::int64_t>(kBx) + threadIdx.x
                                 : static_cast<unsigned>(blockIdx.x * kBx + threadIdx.x);
  if (row >= m || col >= n) return;
  float sum = 0.0f;
#pragma unroll kUnroll
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

// The stub's kernel (labs/05_tiled_matmul/stub.cu: no __restrict__, no pragma), with threadIdx.x along the rows
// (kCoalesced false, as shipped) or along the columns (true: the smallest fix a student can make, in 32 x 32 blocks).
template <bool kCoalesced>
__global__ void naive_stub(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                           std::int64_t k) {
  const unsigned along_rows = kCoalesced ? threadIdx.y : threadIdx.x;
  const unsigned along_cols = kCoalesced ? threadIdx.x : threadIdx.y;
  const unsigned block_rows = kCoalesced ? blockIdx.y : blockIdx.x;
  const unsigned block_cols = kCoalesced ? blockIdx.x : blockIdx.y;
  const std::int64_t row = block_rows * static_cast<std::int64_t>(32) + along_rows;
  const std::int64_t col = block_cols * static_cast<std::int64_t>(32) + along_cols;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}


struct Variant {
  std::string name, what;
  void (*kernel)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
  int bx, by;
  int blocks_per_sm_cap;    // 0: as many as registers and threads allow
  bool swap_grid = false;  // the stub's grid: x over rows
  std::vector<float> ms;
  int resident_warps = 0;  // per SM, from the occupancy calculator
  int registers = 0;       // per thread, as ptxas allocated them (cudaFuncGetAttributes)
};

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
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
  std::reverse(host.begin(), host.end());
  CHECK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));

  std::vector<Variant> v = {
      {"reference", "32 x 8 blocks, unrolled by 8, row and column in 32 bits (the reference)", naive<32, 8, 8>, 32, 8,
       0},
      {"wide_indices", "the reference with row and column in 64-bit arithmetic (the reference up to 8e73167)",
       naive<32, 8, 8, true>, 32, 8, 0},
      {"no_unroll", "32 x 8 blocks, #pragma unroll 1", naive<32, 8, 1>, 32, 8, 0},
      {"unroll_16", "32 x 8 blocks, unrolled by 16", naive<32, 8, 16>, 32, 8, 0},
      {"b32x32", "32 x 32 blocks, unrolled by 8", naive<32, 32, 8>, 32, 32, 0},
      {"b32x4", "32 x 4 blocks, unrolled by 8", naive<32, 4, 8>, 32, 4, 0},
      {"b16x16", "16 x 16 blocks, unrolled by 8 (half-warp rows: two rows of A per warp)", naive<16, 16, 8>, 16, 16,
       0},
      {"half_occupancy", "the reference with at most 4 blocks (32 warps) per SM", naive<32, 8, 8>, 32, 8, 4},
      {"quarter_occupancy", "the reference with at most 2 blocks (16 warps) per SM", naive<32, 8, 8>, 32, 8, 2},
      {"eighth_occupancy", "the reference with at most 1 block (8 warps) per SM", naive<32, 8, 8>, 32, 8, 1},
      {"stub", "the shipped stub: threadIdx.x along the rows, 32 x 32 blocks", naive_stub<false>, 32, 32, 0, true},
      {"stub_coalesced", "the stub with threadIdx.x along the columns, nothing else changed", naive_stub<true>, 32, 32,
       0},
  };
  // Shared memory per block that leaves room for `cap` blocks of an SM's usable shared memory and no more.
  const auto smem_for = [&](int cap) -> std::size_t {
    if (cap == 0) return 0;
    return prop.sharedMemPerMultiprocessor / static_cast<std::size_t>(cap + 1) + 1024;
  };
  for (auto& x : v) {
    const std::size_t smem = smem_for(x.blocks_per_sm_cap);
    CHECK(cudaFuncSetAttribute(x.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, x.kernel, x.bx * x.by, smem));
    x.resident_warps = blocks * x.bx * x.by / 32;
    cudaFuncAttributes attributes{};
    CHECK(cudaFuncGetAttributes(&attributes, x.kernel));
    x.registers = attributes.numRegs;
  }
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const auto launch = [&](const Variant& x) {
    dim3 grid(static_cast<unsigned>((kDim + x.bx - 1) / x.bx), static_cast<unsigned>((kDim + x.by - 1) / x.by));
    if (x.swap_grid) std::swap(grid.x, grid.y);
    x.kernel<<<grid, dim3(x.bx, x.by), smem_for(x.blocks_per_sm_cap), s>>>(a, b, c, kDim, kDim, kDim);
    CHECK(cudaGetLastError());
  };
  // Warm-up, and each variant's C checked once.
  if (const std::size_t i = first_differing(v, s, c, bytes, launch); i < v.size()) {
    std::fprintf(stderr, "%s: C differs from the reference's\n", v[i].name.c_str());
    return 2;
  }
  if (once) return 0;
  constexpr int kRounds = 15;
  time_rounds(v, kRounds, s, flush, flush_bytes, launch);
  const double reference_ms = median(v.front().ms);
  const double flops = 2.0 * kDim * kDim * kDim;
  std::printf("{\"gpu\": \"%s\", \"sms\": %d, \"dim\": %lld, \"rounds\": %d, \"variants\": [\n", prop.name,
              prop.multiProcessorCount, static_cast<long long>(kDim), kRounds);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Spread t = spread(v[i].ms);
    const double med = t.median_ms;
    std::printf("  {\"name\": \"%s\", \"what\": \"%s\", \"registers\": %d, \"resident_warps_per_sm\": %d, "
                "\"median_ms\": %.3f, "
                "\"min_ms\": %.3f, \"max_ms\": %.3f, \"gflops\": %.0f, \"times_reference\": %.3f, \"ms\": [",
                v[i].name.c_str(), v[i].what.c_str(), v[i].registers, v[i].resident_warps, med, t.min_ms, t.max_ms,
                flops / (med * 1e6), med / reference_ms);
    for (std::size_t r = 0; r < v[i].ms.size(); ++r) std::printf("%s%.3f", r ? ", " : "", v[i].ms[r]);
    std::printf("]}%s\n", i + 1 < v.size() ? "," : "");
  }
  std::printf("]}\n");
  return 0;
}
