// Known-wrong fixture: "the conflicts come from reading tile[lane][k], so read tile[k][lane]": with the indices
// swapped the walk is conflict-free (32 consecutive words at every k) but lane t now sums column t of the tile, 32
// rows of one column, instead of row t. Every word it reads was written (zeros past the edges), so the result is
// fixed by the inputs. Only a 1 x 1 matrix, whose row and column are one element, is sure to pass: with one column
// and several rows, lane 1 sums the zeros of column 1 where row 1 holds a nonzero integer.
#include "row_sums.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kWarpsPerBlock = 8;

__global__ void row_sums_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tiles[kWarpsPerBlock][kTile][kTile];
  const int lane = threadIdx.x % kTile, warp = threadIdx.x / kTile;
  float(*tile)[kTile] = tiles[warp];
  const std::int64_t row0 = (blockIdx.x * static_cast<std::int64_t>(kWarpsPerBlock) + warp) * kTile;
  if (row0 >= rows) return;
  const int n = rows - row0 < kTile ? static_cast<int>(rows - row0) : kTile;
  float sum = 0.0f;
  for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
    const bool in_cols = c0 + lane < cols;
    const float* p = in + row0 * cols + c0 + lane;
#pragma unroll
    for (int i = 0; i < kTile; ++i, p += cols) tile[i][lane] = i < n && in_cols ? *p : 0.0f;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += tile[k][lane];  // BUG: column `lane` of the tile, not row `lane`
    __syncwarp();
  }
  if (lane < n) out[row0 + lane] = sum;
}

void launch_row_sums(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  constexpr int kRowsPerBlock = kWarpsPerBlock * kTile;
  const auto blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  row_sums_kernel<<<blocks, kRowsPerBlock, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("row_sums", lab06::RowSumsLauncher, launch_row_sums);
