// Lab 05: tiled matmul -- the reference solution (the "reference" implementation the grade is measured against).
//
// C = A * B, FP32 on CUDA cores, row-major. At 4096^3 the product is 137 GFLOP on 201 MB: compute-bound by far, so
// the question at each step is how many instructions and memory accesses each multiply-add costs.
//   1. naive: one thread per element of C, threadIdx.x along the columns. A warp reads one word of A (a broadcast)
//      and 32 adjacent words of B per multiply-add, and writes a row segment of C.
//   2. smem_tiled: 32 x 32 tiles of A and B staged in shared memory; each value loaded from global memory serves 32
//      multiply-adds. Still two shared-memory loads per multiply-add, which is what limits it.
//   3. register_blocked: 128 x 256 tiles of C per block of 256 threads, k in slices of 16; each thread accumulates a
//      16 x 8 tile of C in registers, from 16 values of A and 8 of B per k: 128 FMAs per 6 shared-memory float4
//      loads. A is stored transposed in shared memory so a thread's values of A are contiguous (float4 loads), and
//      cp.async fills a 3-slice pipeline straight from global memory while the block multiplies. The exercise's
//      simpler design (128 x 128 x 8, 8 x 8 per thread, the next slice staged in registers) reaches about 90% of
//      cuBLAS, inside the 1.1x of full marks (the lab's sheet).
#include "matmul.hpp"

#include <harness/launcher.hpp>

#include <climits>
#include <stdexcept>

namespace {

// ---- 1. naive ------------------------------------------------------------------------------------------------
constexpr int kTile = 32;

dim3 blocks_over(std::int64_t rows, std::int64_t cols, int tile) {  // x over columns, y over rows
  return dim3(static_cast<unsigned>((cols + tile - 1) / tile), static_cast<unsigned>((rows + tile - 1) / tile));
}

// Blocks of 32 x 8 threads, the loop unrolled by 8, and a latency lesson: the kernel waits on its loads (L1 and L2
// hits), so its speed is the loads each SM has in flight (experiments/lab05_naive: a quarter of the resident warps
// takes four times as long). Row and column are computed in 32 bits and then widened. The k loop is the same PTX as
// with 64-bit arithmetic, but with 64-bit row and column ptxas issued 4 of the 16 loads of an unrolled trip before the
// first FFMA that waits, against 8 here (both at 32 registers per thread, two of them holding row and column through
// the loop in the 64-bit kernel): at 4096^3 on the course's H200, 46 ms against 26 (the lab's sheet, "Why the naive
// kernel waits").
constexpr int kNaiveRows = 8;

// slide-begin: naive
__global__ void naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::int64_t row = static_cast<unsigned>(blockIdx.y * kNaiveRows + threadIdx.y);  // 32-bit: see above
  const std::int64_t col = static_cast<unsigned>(blockIdx.x * kTile + threadIdx.x);
  if (row >= m || col >= n) return;
  float sum = 0.0f;
#pragma unroll 8
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}
// slide-end: naive

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((m + kNaiveRows - 1) / kNaiveRows));
  naive_kernel<<<grid, dim3(kTile, kNaiveRows), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. smem_tiled -------------------------------------------------------------------------------------------
// as[ty][p] is the same word for a whole warp (a broadcast); bs[p][tx] is 32 consecutive words (32 banks).
__global__ void smem_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::int64_t m, std::int64_t n, std::int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  float sum = 0.0f;
  // slide-begin: smem_tiled
  for (std::int64_t p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : 0.0f;  // zeros past the edges add nothing
    bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : 0.0f;
    __syncthreads();  // the tile is complete before anyone reads it
#pragma unroll
    for (int p = 0; p < kTile; ++p) sum += as[ty][p] * bs[p][tx];
    __syncthreads();  // everyone is done with the tile before the next iteration overwrites it
  }
  // slide-end: smem_tiled
  if (row < m && col < n) c[row * n + col] = sum;
}

void launch_smem_tiled(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                       cudaStream_t stream) {
  smem_tiled_kernel<<<blocks_over(m, n, kTile), dim3(kTile, kTile), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. register_blocked -------------------------------------------------------------------------------------
// The shape cuBLAS itself picks for FP32 SGEMM on the H200 (ncu names its kernel at 4096^3: 256 x 128 x 8 tiles in a
// 3-stage pipeline, one 256-thread block per SM; experiments/lab05_register_blocked times this kernel beside it).
// A block computes 128 rows x 256 columns of C, 8 warps as 2 x 4, each warp 64 x 64, each lane 16 x 8 in registers:
// 128 FMAs per k for 6 float4 loads from shared memory. Shared memory holds kStages k-slices of 16; cp.async copies
// each straight from global memory (no registers in between) while the block computes on the slice two back, so the
// global latency hides behind 2 x 16 x 128 FMAs per thread, and one barrier per slice suffices. Before changing the
// fast path, compare its PTX with the bench's pl_128x256x16_s3_t16x8_256t1b_pfz (nvcc -ptx): a version that only
// computed its copy addresses differently ran at 92% of cuBLAS instead of 98% (lab 05's sheet, "The reference").
constexpr int kBM = 128, kBN = 256, kBK = 16;
constexpr int kThreads = 256;
constexpr int kLanesM = 4, kLanesN = 8;  // a warp's 32 lanes over its 64 x 64 tile
constexpr int kTM = 16, kTN = 8;         // a lane's tile: rows in 4 groups of 4, 16 apart; columns 2 x 4, 32 apart
constexpr int kStepM = 4 * kLanesM, kStepN = 4 * kLanesN;
// A's slice is stored transposed, as[k][row], so a lane's 4 rows of one group are one float4. The pitch is 132, not
// 128: it keeps each row of as 16-byte aligned and spreads the copies of one warp (16 k x 2 rows) over the banks.
constexpr int kLdA = kBM + 4;
constexpr int kStageFloats = kBK * kLdA + kBK * kBN;  // A's slice, then B's
// Shared memory for kStages slices: 3 take 74,496 bytes (an opt-in above 48 KB; Hopper and Ampere allow it), 2 take
// 49,664 (Turing's most is 64 KB).
constexpr int stage_bytes(int stages) { return stages * kStageFloats * static_cast<int>(sizeof(float)); }
constexpr int kACopies = kBM * kBK / kThreads, kARowStep = kThreads / kBK;      // 8 copies of 4 bytes, 16 rows apart
constexpr int kBCopies = kBK * kBN / 4 / kThreads, kBRowStep = kThreads / (kBN / 4);  // 4 of 16 bytes, 4 k apart
static_assert(2 * 64 == kBM && 4 * 64 == kBN && kLanesM * kLanesN == 32, "2 x 4 warps of 64 x 64");
static_assert(kTM == 4 * (64 / kStepM) && kTN == 4 * (64 / kStepN), "a lane's groups cover its warp's tile");

// cp.async (compute capability 8.0 and up): a copy from global to shared memory that does not pass through registers;
// commit closes a group of them, and wait_group<N> waits until at most N groups are still on their way. A 4-byte copy
// with a source size of 0 writes a zero and reads nothing (the edges of the checked kernel). Built for an older GPU
// (Turing), each copy is a load and a store, done before the barrier that follows it.
__device__ __forceinline__ void copy4(float* dst, const float* src) {
#if __CUDA_ARCH__ >= 800
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(src));
#else
  *dst = __ldg(src);
#endif
}
__device__ __forceinline__ void copy4_or_zero(float* dst, const float* src, bool valid) {
#if __CUDA_ARCH__ >= 800
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(src), "r"(valid ? 4 : 0));
#else
  *dst = valid ? __ldg(src) : 0.0f;
#endif
}
__device__ __forceinline__ void copy16(float* dst, const float* src) {
#if __CUDA_ARCH__ >= 800
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src));
#else
  *reinterpret_cast<float4*>(dst) = __ldg(reinterpret_cast<const float4*>(src));
#endif
}
__device__ __forceinline__ void copies_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int kPending>
__device__ __forceinline__ void copies_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

// kChecked = false: m a multiple of 128, n of 256, k of 16 (16-byte copies and float4 stores, no bounds tests; 4096^3
// takes this path). kChecked = true: any shape, 4-byte copies with zero fill and guarded stores, the same schedule.
template <bool kChecked, int kStages>
__global__ void __launch_bounds__(kThreads, 1)
    register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                            int n, int k) {
  extern __shared__ float4 smem4[];  // float4: the dynamic buffer is 16-byte aligned
  float* const smem = reinterpret_cast<float*>(smem4);
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;

  // Copy map. A: thread tid copies column p0 + tid % 16 of rows tid / 16 + 16 j into as[k][row] (a warp reads 2 rows
  // x 64 contiguous bytes). B: thread tid copies the float4 at column (tid % 64) * 4 of rows tid / 64 + 4 j (a warp
  // reads 512 contiguous bytes).
  const int a_kk = tid % kBK, a_r = tid / kBK;
  const int b_k = tid / (kBN / 4), b_c = (tid % (kBN / 4)) * 4;
  const float* const a_src = a + static_cast<std::int64_t>(row0 + a_r) * k + a_kk;  // 64-bit arithmetic once
  const float* const b_src = b + static_cast<std::int64_t>(b_k) * n + col0 + b_c;
  const auto copy_slice = [&](int stage, int p0) {
    float* const as = smem + stage * kStageFloats;
    float* const bs = as + kBK * kLdA;
#pragma unroll
    for (int j = 0; j < kACopies; ++j) {
      float* const to = &as[a_kk * kLdA + a_r + j * kARowStep];
      const float* const from = a_src + static_cast<std::int64_t>(j) * kARowStep * k + p0;
      if constexpr (!kChecked) {
        copy4(to, from);
      } else {
        const bool inside = row0 + a_r + j * kARowStep < m && p0 + a_kk < k;
        copy4_or_zero(to, inside ? from : a, inside);
      }
    }
#pragma unroll
    for (int j = 0; j < kBCopies; ++j) {
      float* const to = &bs[(b_k + j * kBRowStep) * kBN + b_c];
      const float* const from = b_src + static_cast<std::int64_t>(p0 + j * kBRowStep) * n;
      if constexpr (!kChecked) {
        copy16(to, from);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const bool inside = p0 + b_k + j * kBRowStep < k && col0 + b_c + e < n;
          copy4_or_zero(to + e, inside ? from + e : b, inside);
        }
      }
    }
  };

  // This lane's place: its rows start at a_off (+ 16 g), its columns at b_off (+ 32 g), within the block's tile.
  const int warp = tid / 32, lane = tid % 32;
  const int a_off = (warp / 4) * 64 + (lane / kLanesN) * 4;
  const int b_off = (warp % 4) * 64 + (lane % kLanesN) * 4;
  float acc[kTM][kTN] = {};

  // slide-begin: register_blocked_loop
  const int slices = kChecked ? (k + kBK - 1) / kBK : k / kBK;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {  // the first slices on their way before any computing
    if (s < slices) copy_slice(s, s * kBK);
    copies_commit();
  }
  for (int s = 0; s < slices; ++s) {
    copies_wait<kStages - 2>();  // this thread's copies of slice s have landed ...
    __syncthreads();             // ... everyone's have, and everyone is done with slice s - 1
    // Refill the stage of slice s - 1 (nobody reads it any more) with slice s + kStages - 1.
    const int next = s + kStages - 1;
    if (next < slices) copy_slice(next % kStages, next * kBK);
    copies_commit();

    const float* const as = smem + (s % kStages) * kStageFloats;
    const float* const bs = as + kBK * kLdA;
    // Two register sets of fragments: step p + 1's are read from shared memory while step p's FMAs run. Odd rows walk
    // the columns backwards, so consecutive FMAs share an operand.
    float ra[2][kTM], rb[2][kTN];
    const auto fetch = [&](int p, int set) {
#pragma unroll
      for (int g = 0; g < kTM / 4; ++g)
        *reinterpret_cast<float4*>(&ra[set][4 * g]) =
            *reinterpret_cast<const float4*>(&as[p * kLdA + a_off + kStepM * g]);
#pragma unroll
      for (int g = 0; g < kTN / 4; ++g)
        *reinterpret_cast<float4*>(&rb[set][4 * g]) =
            *reinterpret_cast<const float4*>(&bs[p * kBN + b_off + kStepN * g]);
    };
    fetch(0, 0);
#pragma unroll
    for (int p = 0; p < kBK; ++p) {
      if (p + 1 < kBK) fetch(p + 1, (p + 1) % 2);
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int jj = 0; jj < kTN; ++jj) {
          const int j = i % 2 ? kTN - 1 - jj : jj;
          acc[i][j] = fmaf(ra[p % 2][i], rb[p % 2][j], acc[i][j]);
        }
    }
  }
  // slide-end: register_blocked_loop

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int r = row0 + a_off + kStepM * (i / 4) + i % 4;
    float* const out = c + static_cast<std::int64_t>(r) * n + col0 + b_off;
#pragma unroll
    for (int g = 0; g < kTN / 4; ++g) {
      if constexpr (!kChecked) {
        *reinterpret_cast<float4*>(&out[kStepN * g]) =
            make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
      } else if (r < m) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (col0 + b_off + kStepN * g + e < n) out[kStepN * g + e] = acc[i][4 * g + e];
      }
    }
  }
}

template <bool kChecked, int kStages>
void run_register_blocked(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  static const bool opted_in = [] {  // over 48 KB of dynamic shared memory is an opt-in, once per kernel
    CUDA_CHECK(cudaFuncSetAttribute(register_blocked_kernel<kChecked, kStages>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, stage_bytes(kStages)));
    return true;
  }();
  (void)opted_in;
  const dim3 grid(static_cast<unsigned>((n + kBN - 1) / kBN), static_cast<unsigned>((m + kBM - 1) / kBM));
  register_blocked_kernel<kChecked, kStages><<<grid, kThreads, stage_bytes(kStages), stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

/// Three slices in shared memory where the GPU allows a block that much (Ampere and newer), two otherwise (Turing).
bool three_stages_fit() {
  static const bool fit = [] {
    int device = 0, most = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return most >= stage_bytes(3);
  }();
  return fit;
}

void launch_register_blocked(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k, cudaStream_t stream) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) throw std::invalid_argument("register_blocked: extent over 2^31");
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const bool exact = m % kBM == 0 && n % kBN == 0 && k % kBK == 0;
  if (three_stages_fit())
    exact ? run_register_blocked<false, 3>(a, b, c, mi, ni, ki, stream)
          : run_register_blocked<true, 3>(a, b, c, mi, ni, ki, stream);
  else
    exact ? run_register_blocked<false, 2>(a, b, c, mi, ni, ki, stream)
          : run_register_blocked<true, 2>(a, b, c, mi, ni, ki, stream);
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
REGISTER_LAUNCHER("smem_tiled", lab05::MatmulLauncher, launch_smem_tiled);
REGISTER_LAUNCHER("register_blocked", lab05::MatmulLauncher, launch_register_blocked);
