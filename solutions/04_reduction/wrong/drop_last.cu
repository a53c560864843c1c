// Known-wrong fixture: an off-by-one bound, `i + 1 < n`, that drops the last element. The sum is off by one small
// integer (at least 1): the test sizes up to 8191, where the tolerance is below 1, catch it; at 2^24 it would hide
// inside the rounding tolerance, which is why small sizes are tested with several seeds.
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
__device__ float block_sum(float v) {
  __shared__ float slots[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  v = 0.0f;
  if (warp == 0) v = warp_sum(lane < kThreads / 32 ? slots[lane] : 0.0f);
  return v;
}

__global__ void atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i + 1 < n) atomicAdd(result, x[i]);  // BUG: i < n
}
__global__ void warp_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = warp_sum(i + 1 < n ? x[i] : 0.0f);  // BUG
  if (threadIdx.x % 32 == 0 && i < n) atomicAdd(result, v);
}
__global__ void block_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = block_sum(i + 1 < n ? x[i] : 0.0f);  // BUG
  if (threadIdx.x == 0) atomicAdd(result, v);
}
__global__ void grid_stride_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i + 1 < n; i += stride)
    sum += x[i];  // BUG: the loop condition
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

unsigned blocks(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

void launch_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  atomic_kernel<<<blocks(n), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}
void launch_warp_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  warp_atomic_kernel<<<blocks(n), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}
void launch_block_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  block_atomic_kernel<<<blocks(n), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}
void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  grid_stride_kernel<<<blocks(n) < 1024 ? blocks(n) : 1024, kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_block_atomic);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
