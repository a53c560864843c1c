// Known-wrong fixture: row_sums that walks every row in whole groups of four and masks the columns past `cols` by
// multiplying with 0. Inside the matrix the masked reads land in the next row (finite, times 0: harmless); in the
// last row they reach past the end of `in`, into the guard zone, and 0 * x is 0 only for finite x. The guard reads
// as NaN as a float (harness/common/src/problem.cpp), so the last sum is NaN whenever cols % 4 != 0.
#include "row_sums.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void row_sums_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (std::int64_t c = 0; c < cols; c += 4)  // BUG: the last group reads up to 3 elements past the row
    for (int j = 0; j < 4; ++j) sum += in[r * cols + c + j] * float(c + j < cols);
  out[r] = sum;
}

void launch_row_sums(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  row_sums_kernel<<<static_cast<unsigned>((rows + 255) / 256), 256, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("row_sums", lab06::RowSumsLauncher, launch_row_sums);
