// Lab 05: tiled matmul -- the reference solution (the "reference" implementation the grade is measured against).
//
// C = A * B, FP32 on CUDA cores, row-major. At 4096^3 the product is 137 GFLOP on 201 MB: compute-bound by far, so
// the question at each step is how many instructions and memory accesses each multiply-add costs.
//   1. naive: one thread per element of C, threadIdx.x along the columns. A warp reads one word of A (a broadcast)
//      and 32 adjacent words of B per multiply-add, and writes a row segment of C.
//   2. smem_tiled: 32 x 32 tiles of A and B staged in shared memory; each value loaded from global memory serves 32
//      multiply-adds. Still two shared-memory loads per multiply-add, which is what limits it.
//   3. register_blocked: 128 x 128 tiles of C per block of 256 threads, k in steps of 8; each thread accumulates an
//      8 x 8 tile of C in registers, from 8 values of A and 8 of B per k: 64 FMAs per 4 shared-memory float4 loads.
//      A is stored transposed in shared memory so a thread's 8 values of A are contiguous (float4 loads), and the
//      next k-slice is fetched into registers while the current one is multiplied.
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
constexpr int kBM = 128, kBN = 128, kBK = 8;  // block tile of C, and the k-slice staged per step
constexpr int kTM = 8, kTN = 8;              // thread tile of C
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256
static_assert(kBM * kBK == 4 * kThreads && kBK * kBN == 4 * kThreads, "each thread stages one float4 of A and of B");

// A thread's 8 x 8 tile is split in four 4 x 4 quarters, rows {ty*4 .. +3} and {64 + ty*4 .. +3}, columns likewise.
// Then the 16 threads of a half-warp read 16 consecutive float4 of a shared row (conflict-free), where 8 contiguous
// columns per thread would make lanes 4 apart hit the same bank.
__device__ __forceinline__ int quarter(int t, int i) { return (i < 4 ? 0 : 64) + t * 4 + (i & 3); }

// kChecked = false: m and n multiples of 128, k of 8 (float4 loads and stores, no bounds tests; 4096^3 takes this
// path). kChecked = true: any shape, scalar loads with zero fill and guarded stores, the same schedule otherwise.
template <bool kChecked>
__global__ void __launch_bounds__(kThreads, 2)
    register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                            int n, int k) {
  __shared__ __align__(16) float as[kBK][kBM];  // A's slice, transposed: as[p][row]
  __shared__ __align__(16) float bs[kBK][kBN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;

  // Staging: thread tid loads A[row0 + tid / 2][p0 + (tid % 2) * 4 .. +3] (two threads cover one 32-byte sector)
  // and B[p0 + tid / 32][col0 + (tid % 32) * 4 .. +3] (a warp covers 512 contiguous bytes).
  const int a_row = tid / 2, a_col = (tid % 2) * 4;
  const int b_row = tid / 32, b_col = (tid % 32) * 4;
  const auto load_a = [&](int p0) {
    const std::int64_t r = row0 + a_row;
    if constexpr (!kChecked) {
      return *reinterpret_cast<const float4*>(&a[r * k + p0 + a_col]);
    } else {
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = r < m && p0 + a_col + j < k ? a[r * k + p0 + a_col + j] : 0.0f;
      return make_float4(v[0], v[1], v[2], v[3]);
    }
  };
  const auto load_b = [&](int p0) {
    const std::int64_t p = p0 + b_row;
    if constexpr (!kChecked) {
      return *reinterpret_cast<const float4*>(&b[p * n + col0 + b_col]);
    } else {
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = p < k && col0 + b_col + j < n ? b[p * n + col0 + b_col + j] : 0.0f;
      return make_float4(v[0], v[1], v[2], v[3]);
    }
  };

  const int ty = tid / (kBN / kTN), tx = tid % (kBN / kTN);
  float acc[kTM][kTN] = {};
  float4 a_next = load_a(0), b_next = load_b(0);

  // slide-begin: register_blocked_loop
  for (int p0 = 0; p0 < k; p0 += kBK) {
    as[a_col + 0][a_row] = a_next.x;
    as[a_col + 1][a_row] = a_next.y;
    as[a_col + 2][a_row] = a_next.z;
    as[a_col + 3][a_row] = a_next.w;
    *reinterpret_cast<float4*>(&bs[b_row][b_col]) = b_next;
    __syncthreads();  // the slice is complete before anyone reads it

    if (p0 + kBK < k) {  // fetch the next slice now; its latency hides behind the 512 FMAs below
      a_next = load_a(p0 + kBK);
      b_next = load_b(p0 + kBK);
    }

#pragma unroll
    for (int p = 0; p < kBK; ++p) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&as[p][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&as[p][64 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&bs[p][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&bs[p][64 + tx * 4]);
      const float ra[kTM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float rb[kTN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();  // everyone is done with the slice before the next iteration overwrites it
  }
  // slide-end: register_blocked_loop

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const std::int64_t r = row0 + quarter(ty, i);
    if constexpr (!kChecked) {
      float* out = &c[r * n + col0];
      *reinterpret_cast<float4*>(&out[quarter(tx, 0)]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
      *reinterpret_cast<float4*>(&out[quarter(tx, 4)]) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    } else if (r < m) {
#pragma unroll
      for (int j = 0; j < kTN; ++j) {
        const int col = col0 + quarter(tx, j);
        if (col < n) c[r * n + col] = acc[i][j];
      }
    }
  }
}

void launch_register_blocked(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k, cudaStream_t stream) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) throw std::invalid_argument("register_blocked: extent over 2^31");
  const dim3 grid = blocks_over(m, n, kBM);
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  if (m % kBM == 0 && n % kBN == 0 && k % kBK == 0)
    register_blocked_kernel<false><<<grid, kThreads, 0, stream>>>(a, b, c, mi, ni, ki);
  else
    register_blocked_kernel<true><<<grid, kThreads, 0, stream>>>(a, b, c, mi, ni, ki);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
REGISTER_LAUNCHER("smem_tiled", lab05::MatmulLauncher, launch_smem_tiled);
REGISTER_LAUNCHER("register_blocked", lab05::MatmulLauncher, launch_register_blocked);
