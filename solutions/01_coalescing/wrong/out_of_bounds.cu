// Known-wrong fixture: a grid rounded up to whole blocks and no bounds check, so the last block writes past the end
// of the output. The values inside the array are right: only the guard zones around each buffer can catch it.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void scale_kernel(const float* x, float* y, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  y[i] = alpha * x[i];  // BUG: no `if (i < n)`
}
void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, alpha);
  CUDA_CHECK_LAUNCH();
}

__global__ void column_sums_kernel(const float* a, float* sums, std::int64_t rows, std::int64_t cols) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float s = 0.0f;
  for (std::int64_t r = 0; r < rows; ++r) s += c < cols ? a[r * cols + c] : 0.0f;
  sums[c] = s;  // BUG: columns past `cols` are written too
}
void launch_column_sums(const float* a, float* sums, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  column_sums_kernel<<<static_cast<unsigned>((cols + 255) / 256), 256, 0, stream>>>(a, sums, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
REGISTER_LAUNCHER("column_sums", lab01::ColumnSumsLauncher, launch_column_sums);
