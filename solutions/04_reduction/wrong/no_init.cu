// Known-wrong fixture: every stage right except that the launcher never sets *result to 0 before the atomics add
// into it. Whatever was there (the harness's NaN poison; in real code, the last call's sum) is added too.
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

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

__global__ void atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(result, x[i]);
}
__global__ void grid_stride_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    sum += x[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

// BUG in every launcher: no cudaMemsetAsync(result, 0, ...) first.
void launch_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}
void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  grid_stride_kernel<<<1024, kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_grid_stride);
