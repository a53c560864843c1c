// Known-wrong fixtures of the shuffle stages. warp_atomic: a shuffle loop that starts at offset 8, so lanes 16..31
// never reach lane 0. block_atomic: every lane of warp 0 does the final atomicAdd, not just lane 0; after
// __shfl_down_sync only lane 0 holds the total, and the other lanes add their partial sums on top of it.
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

__global__ void warp_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);  // BUG: from 16
  if (threadIdx.x % 32 == 0 && i < n) atomicAdd(result, v);
}

__global__ void block_atomic_kernel(const float* x, float* result, std::int64_t n) {
  __shared__ float slots[kThreads / 32];
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kThreads / 32 ? slots[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    atomicAdd(result, v);  // BUG: only lane 0 holds the block's total
  }
}

void launch_warp_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  warp_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}
void launch_block_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  block_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_block_atomic);
