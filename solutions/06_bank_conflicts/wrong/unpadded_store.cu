// Known-wrong fixture: the row_sums tile is padded to 33 words per row, and the walk reads it with that stride, but
// the fill computes a flat index with the unpadded stride 32. Words land 32 apart, the walk reads them 33 apart: lane
// t (t < 31) sums words t .. 31 of row t and words 0 .. t - 1 of row t + 1, lane 31 also words no lane wrote. Only
// lane 0 is right, so only one-row matrices pass. Rows 1 .. 30 of each warp get sums fixed by the inputs, whatever the
// hardware does, and wrong unless the words swapped in happen to add up to the words left out: with two rows and at
// most 32 columns, row 1 simply lacks its nonzero first element.
#include "row_sums.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kWarpsPerBlock = 8;

__global__ void row_sums_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tiles[kWarpsPerBlock][kTile][kTile + 1];
  const int lane = threadIdx.x % kTile, warp = threadIdx.x / kTile;
  float(*tile)[kTile + 1] = tiles[warp];
  float* flat = &tile[0][0];
  const std::int64_t row0 = (blockIdx.x * static_cast<std::int64_t>(kWarpsPerBlock) + warp) * kTile;
  if (row0 >= rows) return;
  const int n = rows - row0 < kTile ? static_cast<int>(rows - row0) : kTile;
  float sum = 0.0f;
  for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
    const bool in_cols = c0 + lane < cols;
    const float* p = in + row0 * cols + c0 + lane;
#pragma unroll
    for (int i = 0; i < kTile; ++i, p += cols)  // BUG: row i of the padded tile starts at word 33 i, not 32 i
      flat[i * kTile + lane] = i < n && in_cols ? *p : 0.0f;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += tile[lane][k];
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
