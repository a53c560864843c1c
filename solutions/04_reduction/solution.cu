// Lab 04: the reduction staircase -- the reference solution (the "reference" implementation the grade is measured
// against). Each stage is the classic step; baseline.cu registers the kernels of stages 1-4 as the baselines of
// stages 2-5, so a stage's baseline is exactly the previous stage's reference.
//
// Napkin math at 2^28 floats on an H200 (shared/anchors): 1 GiB must be read, 0.24 ms at cub's 4.5 TB/s. Stage 1
// does 2^28 atomics on one address (~0.5 s); stage 2 divides them by 32, stage 3 by 256; stage 4 removes the
// per-256-element block and is near the memory system; stage 5 issues 16-byte loads to reach it.
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
// slide-begin: block_sum
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
// slide-end: block_sum

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
// One thread per element; the warp adds its 32 values with shuffles and lane 0 does one atomicAdd: 32x fewer
// atomics. Threads past n add 0 instead of leaving, so every warp is whole and the full mask is right.
// slide-begin: warp_atomic
__global__ void warp_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = warp_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x % 32 == 0 && i < n) atomicAdd(result, v);
}
// slide-end: warp_atomic

void launch_warp_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  warp_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. block_atomic ------------------------------------------------------------------------------------------------
// One thread per element; the block adds its 256 values (warp sums, then one warp over the 8 slots) and thread 0
// does one atomicAdd: 256x fewer atomics than stage 1.
__global__ void block_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = block_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(result, v);
}

void launch_block_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  block_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 4. grid_stride -------------------------------------------------------------------------------------------------
// A fixed grid of a few blocks per SM; each thread adds elements t, t + stride, ... in a register (adjacent threads,
// adjacent words: every load is coalesced), then one block sum and one atomicAdd per block: a thousand atomics in
// all, and no block launched per 256 elements.
// slide-begin: grid_stride
__global__ void grid_stride_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  // One 4-byte load in flight per thread (no unrolling): stage 4 is about blocks and atomics, and stage 5 about bytes
  // in flight, which an unrolled scalar loop would already bring (experiments/lab04_bytes_in_flight measures both).
#pragma unroll 1
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    sum += x[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}
// slide-end: grid_stride

void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  grid_stride_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 5. vectorized --------------------------------------------------------------------------------------------------
// The grid-stride loop over float4s: one 16-byte load per thread per trip moves four times the bytes per
// instruction, and unrolling keeps several loads in flight per thread. The n % 4 tail elements go to the first
// threads.
// slide-begin: vectorized
__global__ void vectorized_kernel(const float4* __restrict__ x4, const float* __restrict__ x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  float sum = 0.0f;
#pragma unroll 4
  for (std::int64_t i = t; i < n4; i += stride) {
    const float4 v = x4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  if (t < n - 4 * n4) sum += x[4 * n4 + t];
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}
// slide-end: vectorized

void launch_vectorized(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  vectorized_kernel<<<grid_for(n / 4), kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), x, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

#ifndef LAB04_BASELINE  // baseline.cu registers these kernels one stage later
REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_block_atomic);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_vectorized);
#endif
