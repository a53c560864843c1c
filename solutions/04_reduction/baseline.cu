// Lab 04: the reduction staircase -- the baseline (instructors' file, not the student's): the zero of each stage's
// performance scale. Stage k's baseline is stage k-1's reference kernel, word for word (stage 1's is stage 1 itself),
// so a stage earns points only for its own step. It is kept out of stub.cu, which must not hand over the previous
// stage's answer: every stub starts from stage 1's kernel (cmake/AddLab.cmake, issue 15).
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;  // the warp's total, in lane 0
}

// The block's total, in thread 0, for blocks of kThreads threads: warp sums, one shared slot per warp, one more warp
// sum. Every thread of the block must call it (it has a barrier).
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

/// A grid for the grid-stride stages: enough blocks to fill every SM (8 blocks of 256 threads each), no more than
/// the work needs.
unsigned grid_for(std::int64_t items) {
  static const int sms = [] {
    int device = 0, count = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  const std::int64_t needed = (items + kThreads - 1) / kThreads;
  const std::int64_t enough = std::int64_t{sms} * 8;
  return static_cast<unsigned>(needed < enough ? (needed > 0 ? needed : 1) : enough);
}

// ---- 1. atomic ------------------------------------------------------------------------------------------------------
// One thread per element, one atomicAdd per element: 2^28 atomics on one address, which the L2 serializes.
__global__ void atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(result, x[i]);
}

void launch_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. warp_atomic -------------------------------------------------------------------------------------------------
// Stage 1's kernel.
// One thread per element, one atomicAdd per element: 2^28 atomics on one address, which the L2 serializes.
__global__ void warp_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(result, x[i]);
}

void launch_warp_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  warp_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. block_atomic ------------------------------------------------------------------------------------------------
// Stage 2's reference kernel.
// One thread per element; the warp adds its 32 values with shuffles and lane 0 does one atomicAdd: 32x fewer
// atomics. Threads past n add 0 instead of leaving, so every warp is whole and the full mask is right.
__global__ void block_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = warp_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x % 32 == 0 && i < n) atomicAdd(result, v);
}

void launch_block_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  block_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 4. grid_stride -------------------------------------------------------------------------------------------------
// Stage 3's reference kernel.
// One thread per element; the block adds its 256 values (warp sums, then one warp over the 8 slots) and thread 0
// does one atomicAdd: 256x fewer atomics than stage 1.
__global__ void grid_stride_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = block_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(result, v);
}

void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  grid_stride_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 5. vectorized --------------------------------------------------------------------------------------------------
// Stage 4's reference kernel.
// A fixed grid of a few blocks per SM; each thread adds elements t, t + stride, ... in a register (adjacent threads,
// adjacent words: every load is coalesced), then one block sum and one atomicAdd per block: a thousand atomics in
// all, and no block launched per 256 elements.
__global__ void vectorized_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  // One load in flight per thread (no unrolling): enough threads keep the memory busy only up to a point, and
  // measured on an H200 an unrolled scalar loop already matched the float4 one, leaving stage 5 nothing to teach.
#pragma unroll 1
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    sum += x[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

void launch_vectorized(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  vectorized_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_block_atomic);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_vectorized);
