// Lab 06: bank conflicts -- the reference solution (the "reference" implementation the grade is measured against).
//
// A transpose reads and writes 4 bytes per element and computes nothing: its floor is the time to move those bytes
// in full 128-byte warp accesses, which is what the ceiling (a copy with the same tiling) measures.
//   1. transpose_tiled: a 32 x 32 tile staged in shared memory, read from `in` by rows and written to `out` by rows,
//      so both global sides are coalesced. The tile itself is read by column: lane x reads tile[x][j], 32 words 32
//      words apart, all in bank j % 32: one load takes 32 shared-memory passes. This is the reference of exercise 1,
//      the textbook step; exercise 2 removes the conflicts.
//   2. transpose_padded: the same, with 33 words per tile row. Word (x, j) is then in bank (33 x + j) % 32 =
//      (x + j) % 32: the 32 lanes hit 32 different banks, and the column read takes one pass. The row writes into
//      the tile stay conflict-free (consecutive words).
#include "transpose.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kRows = 8;

dim3 tiles_over(std::int64_t rows, std::int64_t cols) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
}

template <int kPad>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                      std::int64_t cols) {
  __shared__ float tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (r0 + j < rows && c < cols) tile[ty + j][tx] = in[(r0 + j) * cols + c];
  __syncthreads();  // the tile's columns were written by all 8 warps
  const std::int64_t out_c = blockIdx.y * static_cast<std::int64_t>(kTile) + tx;   // an `in` row
  const std::int64_t out_r0 = blockIdx.x * static_cast<std::int64_t>(kTile) + ty;  // an `in` column
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (out_r0 + j < cols && out_c < rows) out[(out_r0 + j) * rows + out_c] = tile[tx][ty + j];
}

void launch_transpose_tiled(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_tile_kernel<0><<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

void launch_transpose_padded(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_tile_kernel<1><<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("transpose_tiled", lab06::TransposeLauncher, launch_transpose_tiled);
REGISTER_LAUNCHER("transpose_padded", lab06::TransposeLauncher, launch_transpose_padded);
