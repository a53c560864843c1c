// Known-wrong fixture: the tile transpose without the __syncthreads() between filling the tile and reading it by
// column. Each column of the tile was written by all 8 warps of the block; a warp that reads it early gets what the
// previous block on that SM left in shared memory. The inputs are distinct random floats, so any stale word shows.
#include "transpose.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kRows = 8;

template <int kPad>
__global__ void transpose_tile_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
  for (int j = 0; j < kTile; j += kRows)
    if (r0 + j < rows && c < cols) tile[ty + j][tx] = in[(r0 + j) * cols + c];
  // BUG: no __syncthreads(): tile[tx][ty + j] was written by warp tx % 8, not by this one
  const std::int64_t out_c = blockIdx.y * static_cast<std::int64_t>(kTile) + tx;
  const std::int64_t out_r0 = blockIdx.x * static_cast<std::int64_t>(kTile) + ty;
  for (int j = 0; j < kTile; j += kRows)
    if (out_r0 + j < cols && out_c < rows) out[(out_r0 + j) * rows + out_c] = tile[tx][ty + j];
}

dim3 tiles_over(std::int64_t rows, std::int64_t cols) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
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
