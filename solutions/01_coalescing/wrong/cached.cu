// Known-wrong fixture: computes the right answer once, then skips the work on every later call, as a kernel that
// "remembers" its result would. It passes a single check; poisoned outputs before every checked run, and the check
// with fresh inputs after the timed runs, must catch it.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}
void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  static bool computed = false;  // BUG: the result is assumed to still be there
  if (computed) return;
  computed = true;
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

__global__ void dot_kernel(const float* x, const float* y, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(result, x[i] * y[i]);
}
void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  static bool computed = false;  // BUG
  if (computed) return;
  computed = true;
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  dot_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, result, n);
  CUDA_CHECK_LAUNCH();
}

__global__ void column_sums_kernel(const float* a, float* sums, std::int64_t rows, std::int64_t cols) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (std::int64_t r = 0; r < rows; ++r) s += a[r * cols + c];
  sums[c] = s;
}
void launch_column_sums(const float* a, float* sums, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  static bool computed = false;  // BUG
  if (computed) return;
  computed = true;
  column_sums_kernel<<<static_cast<unsigned>((cols + 255) / 256), 256, 0, stream>>>(a, sums, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
REGISTER_LAUNCHER("column_sums", lab01::ColumnSumsLauncher, launch_column_sums);
