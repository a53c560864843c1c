// Known-wrong fixture: loops that only handle whole units. The grid-stride loop runs n / stride full trips for every
// thread and forgets the last n % stride elements (below one grid's worth of elements it sums nothing); the float4
// loop forgets the n % 4 elements after the last whole float4.
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kGrid = 1024;

__device__ float block_sum(float v) {
  __shared__ float slots[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  v = 0.0f;
  if (warp == 0) {
    v = lane < kThreads / 32 ? slots[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

__global__ void grid_stride_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float sum = 0.0f;
  for (std::int64_t k = 0; k < n / stride; ++k) sum += x[t + k * stride];  // BUG: the last n % stride are missed
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

__global__ void vectorized_kernel(const float4* x4, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n / 4; i += stride) {
    const float4 v = x4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  // BUG: no `if (t < n % 4) sum += x[4 * (n / 4) + t];`
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  grid_stride_kernel<<<kGrid, kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}
void launch_vectorized(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  vectorized_kernel<<<kGrid, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_vectorized);
