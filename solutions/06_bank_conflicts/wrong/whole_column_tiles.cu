// Known-wrong fixture: the row_sums walk over 32-column slices stops at the last whole slice (`c0 + 32 <= cols`),
// as if every row were a multiple of 32 long. Right when it is; for any other width the last cols % 32 elements of
// every row are left out (below 32 columns, all of them: every sum is 0), and since the inputs are nonzero integers
// the sums come out wrong for all but the rows whose left-out elements happen to add up to 0.
#include "row_sums.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kWarpsPerBlock = 8;

__global__ void row_sums_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tiles[kWarpsPerBlock][kTile][kTile + 1];
  const int lane = threadIdx.x % kTile, warp = threadIdx.x / kTile;
  float(*tile)[kTile + 1] = tiles[warp];
  const std::int64_t row0 = (blockIdx.x * static_cast<std::int64_t>(kWarpsPerBlock) + warp) * kTile;
  if (row0 >= rows) return;
  const int n = rows - row0 < kTile ? static_cast<int>(rows - row0) : kTile;
  float sum = 0.0f;
  for (std::int64_t c0 = 0; c0 + kTile <= cols; c0 += kTile) {  // BUG: the ragged last slice is never summed
    const float* p = in + row0 * cols + c0 + lane;
#pragma unroll
    for (int i = 0; i < kTile; ++i, p += cols) tile[i][lane] = i < n ? *p : 0.0f;
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
