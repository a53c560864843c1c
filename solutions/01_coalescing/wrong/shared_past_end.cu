// expect: accepted (decided on the GPU: compute-sanitizer memcheck must report it)
// Known-wrong fixture for `grade --sanitize`: the reference's dot, whose block reduction lets lanes 0..8 read the
// per-warp slots, one too many, and "makes that safe" by zeroing the ninth slot first. warp_sums has kThreads / 32 =
// 8 floats, so thread 0 writes warp_sums[8], one float past the end of the block's shared memory. The answer stays
// right (lane 8 reads back the 0, from shared memory that the hardware's allocation granularity gives the block
// anyway), so every correctness check passes and the guard zones, which only see global memory, see nothing.
// compute-sanitizer's memcheck knows the block's shared-memory size and reports an invalid __shared__ write.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    sum += x[i] * y[i];
  __shared__ float warp_sums[kThreads / 32];
  if (threadIdx.x == 0) warp_sums[kThreads / 32] = 0.0f;  // BUG: one past the end (slots 0..7)
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = warp_sum(threadIdx.x <= kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f);  // BUG: <= reads slot 8 too
    if (threadIdx.x == 0) atomicAdd(result, sum);
  }
}

void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  dot_kernel<<<static_cast<unsigned>(blocks < 1024 ? blocks : 1024), kThreads, 0, stream>>>(x, y, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
