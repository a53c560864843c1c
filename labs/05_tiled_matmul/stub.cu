// Lab 05: tiled matmul -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped. The zero of the performance scale is the baseline,
// solutions/05_tiled_matmul/baseline.cu (not shipped): for exercise 1 this file's naive kernel, for exercise k the
// reference of exercise k-1.
//
// Build and grade, from the build directory:   make lab5 && ./grade lab5
// Check correctness only, with Catch2's report: ./lab5 check --impl student
// Time one exercise against the reference and cuBLAS: ./lab5 time --impl student --exercise naive
// The exercise sheet is labs/05_tiled_matmul/README.md.
//
// C = A * B in FP32, row-major, A m x k, B k x n. Every launcher below is correct and starts as the same naive kernel;
// each exercise asks for the next step of the classic optimization sequence: bring YOUR answer to the previous
// exercise into the next slot and take one step. An exercise's points are measured from the previous exercise's
// reference, so each slot pays for its own step. The ceiling of all three
// is cuBLAS SGEMM (FP32, no tensor cores) at 4096^3, measured in the same run. Keep the launcher names and
// signatures: matmul.hpp is the contract. Do not use tensor cores (wmma, mma, TF32): the exercise is FP32 on CUDA
// cores, and so is the ceiling.
//
//   1. naive             threadIdx.x walks rows of C: the 32 lanes of a warp read A at 32 rows (32 different
//                        lines) and write C in a column. Map threadIdx.x to the column so a warp reads 32 adjacent
//                        words of a row of B and writes a row segment of C.
//   2. smem_tiled        every thread reads its whole row of A and column of B from global memory, 2k loads for 2k
//                        flops. Stage 32 x 32 tiles of A and B in shared memory so each loaded value is used 32
//                        times. Two __syncthreads per tile: after the stores, and before the next tile overwrites.
//   3. register_blocked  each thread computes one element, with two shared-memory loads per multiply-add. Let each
//                        thread compute a small tile of C (8 x 8) from values held in registers: a block of 256
//                        threads then covers 128 x 128 of C and does 64 multiply-adds per 16 values it loads.
//
// Sizes that are not multiples of your tiles are tested (k = 1, 1025 x 1023 x 1025, ...): handle the edges.
#include "matmul.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32;

[[maybe_unused]] dim3 blocks_over(std::int64_t rows, std::int64_t cols) {  // x over columns, y over rows
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
}

// ---- 1. naive ------------------------------------------------------------------------------------------------
// threadIdx.x walks rows: lane t reads a[(row0 + t) * k + p], 32 words k * 4 bytes apart, one line each.
// slide-begin: naive
__global__ void naive_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  const std::int64_t col = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}
// slide-end: naive

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile));
  naive_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. smem_tiled -------------------------------------------------------------------------------------------
// The starting point: the naive kernel. Bring your coalesced kernel of exercise 1 here and tile it.
void launch_smem_tiled(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                       cudaStream_t stream) {
  launch_naive(a, b, c, m, n, k, stream);
}

// ---- 3. register_blocked -------------------------------------------------------------------------------------
// The starting point: the naive kernel. Bring your tiled kernel of exercise 2 here and block it in registers.
void launch_register_blocked(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k, cudaStream_t stream) {
  launch_naive(a, b, c, m, n, k, stream);
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
REGISTER_LAUNCHER("smem_tiled", lab05::MatmulLauncher, launch_smem_tiled);
REGISTER_LAUNCHER("register_blocked", lab05::MatmulLauncher, launch_register_blocked);
