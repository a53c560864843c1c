// Known-wrong fixture: vector loads with no code for the remainder. Right whenever the size is a multiple of the
// vector width or strip, wrong otherwise: the tests must include such sizes to reject it.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void scale_kernel(const float4* x, float4* y, std::int64_t n4, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n4) y[i] = make_float4(alpha * x[i].x, alpha * x[i].y, alpha * x[i].z, alpha * x[i].w);
}
void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  const std::int64_t n4 = n / 4;  // BUG: the last n % 4 elements are never written
  if (n4 == 0) return;
  scale_kernel<<<static_cast<unsigned>((n4 + 255) / 256), 256, 0, stream>>>(
      reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n4, alpha);
  CUDA_CHECK_LAUNCH();
}

__global__ void dot_kernel(const float4* x, const float4* y, float* result, std::int64_t n4) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n4) atomicAdd(result, x[i].x * y[i].x + x[i].y * y[i].y + x[i].z * y[i].z + x[i].w * y[i].w);
}
void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  const std::int64_t n4 = n / 4;  // BUG: the last n % 4 products are dropped
  if (n4 == 0) return;
  dot_kernel<<<static_cast<unsigned>((n4 + 255) / 256), 256, 0, stream>>>(
      reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(y), result, n4);
  CUDA_CHECK_LAUNCH();
}

constexpr std::int64_t kStrip = 64;
__global__ void column_sums_kernel(const float* a, float* sums, std::int64_t full_strips, std::int64_t cols) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (c >= cols || blockIdx.y >= full_strips) return;
  float s = 0.0f;
  for (std::int64_t r = blockIdx.y * kStrip; r < (blockIdx.y + 1) * kStrip; ++r) s += a[r * cols + c];
  atomicAdd(&sums[c], s);
}
void launch_column_sums(const float* a, float* sums, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));
  const std::int64_t full_strips = rows / kStrip;  // BUG: the last rows % 64 rows are never added
  if (full_strips == 0) return;
  column_sums_kernel<<<dim3(static_cast<unsigned>((cols + 255) / 256), static_cast<unsigned>(full_strips)), 256, 0,
                       stream>>>(a, sums, full_strips, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
REGISTER_LAUNCHER("column_sums", lab01::ColumnSumsLauncher, launch_column_sums);
