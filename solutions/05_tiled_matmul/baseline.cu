// Lab 05: tiled matmul -- the baseline (instructors' file, not the student's): the zero of each exercise's
// performance scale. Exercise 1's baseline is the uncoalesced naive kernel of stub.cu; exercise k's (k > 1) is
// exercise k-1's reference kernel as the stubs shipped it (the same code without `__restrict__`), so an exercise earns
// points only for its own step. Those kernels are kept out of stub.cu, which must not hand over an earlier exercise's
// answer (cmake/AddLab.cmake, issue 15).
#include "matmul.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32;

dim3 blocks_over(std::int64_t rows, std::int64_t cols) {  // x over columns, y over rows
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
}

// ---- 1. naive ------------------------------------------------------------------------------------------------
// threadIdx.x walks rows: lane t reads a[(row0 + t) * k + p], 32 words k * 4 bytes apart, one line each.
__global__ void naive_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  const std::int64_t col = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile));
  naive_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. smem_tiled -------------------------------------------------------------------------------------------
// Coalesced, but every operand comes from global memory (through L1/L2) once per multiply-add. Blocks of 32 x 8
// threads, as in the reference of exercise 1.
constexpr int kCoalescedRows = 8;

__global__ void coalesced_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                                 std::int64_t k) {
  const std::int64_t row = static_cast<unsigned>(blockIdx.y * kCoalescedRows + threadIdx.y);
  const std::int64_t col = static_cast<unsigned>(blockIdx.x * kTile + threadIdx.x);
  if (row >= m || col >= n) return;
  float sum = 0.0f;
#pragma unroll 8
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

void launch_smem_tiled(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                       cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((m + kCoalescedRows - 1) / kCoalescedRows));
  coalesced_kernel<<<grid, dim3(kTile, kCoalescedRows), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. register_blocked -------------------------------------------------------------------------------------
// 32 x 32 tiles in shared memory, one element of C per thread: two shared loads per multiply-add.
__global__ void smem_tiled_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                                  std::int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  float sum = 0.0f;
  for (std::int64_t p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : 0.0f;  // zeros past the edges add nothing
    bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) sum += as[ty][p] * bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

void launch_register_blocked(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k, cudaStream_t stream) {
  smem_tiled_kernel<<<blocks_over(m, n), dim3(kTile, kTile), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
REGISTER_LAUNCHER("smem_tiled", lab05::MatmulLauncher, launch_smem_tiled);
REGISTER_LAUNCHER("register_blocked", lab05::MatmulLauncher, launch_register_blocked);
