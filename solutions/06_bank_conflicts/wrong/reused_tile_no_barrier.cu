// expect: accepted (decided on the GPU: compute-sanitizer racecheck must report it)
// Known-wrong fixture for `grade --sanitize`: a padded tile transpose in which each block transposes two tiles, one
// above the other, through the same shared tile, with the barrier between filling the tile and reading it but not
// the one after reading it. A warp that finishes reading the first tile starts writing the second over words that
// slower warps have not read yet: a write-after-read race. The warps of a block rarely drift that far apart, so the
// checks almost never see a wrong element; compute-sanitizer's racecheck reports the hazard every time.
#include "transpose.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kRows = 8, kTilesPerBlock = 2;

__global__ void transpose_two_tiles_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  for (int k = 0; k < kTilesPerBlock; ++k) {
    const std::int64_t tile_row = blockIdx.y * static_cast<std::int64_t>(kTilesPerBlock) + k;
    const std::int64_t r0 = tile_row * kTile + ty;
    for (int j = 0; j < kTile; j += kRows)
      if (r0 + j < rows && c < cols) tile[ty + j][tx] = in[(r0 + j) * cols + c];
    __syncthreads();
    const std::int64_t out_c = tile_row * kTile + tx;
    const std::int64_t out_r0 = blockIdx.x * static_cast<std::int64_t>(kTile) + ty;
    for (int j = 0; j < kTile; j += kRows)
      if (out_r0 + j < cols && out_c < rows) out[(out_r0 + j) * rows + out_c] = tile[tx][ty + j];
    // BUG: no __syncthreads() here, before the next round overwrites the tile
  }
}

void launch_transpose_padded(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const std::int64_t tile_rows = (rows + kTile - 1) / kTile;
  const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile),
                  static_cast<unsigned>((tile_rows + kTilesPerBlock - 1) / kTilesPerBlock));
  transpose_two_tiles_kernel<<<grid, dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("transpose_padded", lab06::TransposeLauncher, launch_transpose_padded);
