// Lab 04: the reduction staircase -- the known-middle fixture: a correct implementation about halfway, on the grade's
// scale, between the baseline and the reference of every exercise with performance points, so that the repeatability
// benchmark sees how much a grade in the middle of its scale moves between runs. Each stage takes a genuine part of
// its step (no sleeps or spins); stage k's baseline is stage k-1's reference. Halfway on the log scale is
// t = sqrt(1.1 t_r t_b).
//
//   atomic        stage 1's kernel as given (0 performance points).
//   warp_atomic   the warp's shuffle tree stops short: even warps add groups of 8 lanes (offsets 4, 2, 1), odd warps
//                 groups of 4 (offsets 2, 1), and each group's first lane does one atomicAdd: 3/16 of an atomic per
//                 element, against the baseline's 1 and the reference's 1/32. The time is that of the atomics on one
//                 address, and halfway is sqrt(1.1 / 32) = 0.185 of the baseline's atomics: 3/16 = 0.1875
//                 (results/2026-11-26-h100-44b7ea4: f 0.50).
//   block_atomic  the block tree stops short: every warp sum goes to its shared slot as in the reference, but even
//                 blocks do one atomicAdd per 2 warps (64 elements) and odd blocks one per 4 warps (128 elements):
//                 3/256 of an atomic per element, against the baseline's 1/32 and the reference's 1/256; halfway is
//                 sqrt(1.1 / 8192) = 0.0116 = 2.97/256 (results/2026-11-26-h100-44b7ea4: f 0.50).
//   grid_stride   the reference's grid-stride loop (one 4-byte load in flight per thread, one block sum and one
//                 atomic per block), but its fixed grid holds only 3 blocks of 256 threads per SM where 8 fill one:
//                 3/8 of the reference's bytes in flight. Halving the bytes in flight costs somewhat less than twice
//                 the time (the README's "Bytes in flight, measured": 1.8 times at 4 blocks per SM, 3.5 at 2), so 3
//                 blocks take a little over 2 times the reference's time, where halfway is about 2.2
//                 (results/2026-11-26-h100-44b7ea4: f 0.48 to 0.49).
//   vectorized    float4 applied to part of the array: the first 3/4 of it is read with stage 4's loop (one 4-byte
//                 load in flight per thread), the last 1/4 with the reference's unrolled float4 loop, in one kernel.
//                 Each part at its own stage's rate would give 3/4 t_b + 1/4 t_r, about 1.25 t_r where halfway is
//                 1.21 t_r; the mix runs a little faster than that. The scale is narrow (t_b is about 1.33 t_r): each
//                 1% of time moves f by 0.05 (results/2026-11-26-h100-44b7ea4: f 0.44 to 0.46).
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr unsigned kFullMask = 0xffffffffu;

/// Shuffles down by `first`, first / 2, ..., 1: each lane at a multiple of 2 * first ends with the sum of the
/// 2 * first lanes from it on (first = 16: lane 0 holds the warp's total).
__device__ float group_sum(float v, int first) {
  for (int offset = first; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

/// A grid for the grid-stride stages: `blocks_per_sm` blocks of kThreads per SM, no more than the work needs.
unsigned grid_for(std::int64_t items, int blocks_per_sm) {
  static const int sms = [] {
    int device = 0, count = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  const std::int64_t needed = (items + kThreads - 1) / kThreads;
  const std::int64_t enough = std::int64_t{sms} * blocks_per_sm;
  return static_cast<unsigned>(needed < enough ? (needed > 0 ? needed : 1) : enough);
}

/// The block's total, in thread 0 (the reference's block sum). Every thread of the block must call it.
__device__ float block_sum(float v) {
  __shared__ float slots[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = group_sum(v, 16);
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  v = 0.0f;
  if (warp == 0) v = group_sum(lane < kWarps ? slots[lane] : 0.0f, 16);
  return v;
}

// ---- 1. atomic ------------------------------------------------------------------------------------------------------
// One thread per element, one atomicAdd per element (0 performance points: the simplest correct way).
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
// One thread per element; the shuffle tree stops 2 or 3 steps short of the warp's total: even warps end with sums of
// 8 lanes, odd warps with sums of 4, and each group's first lane does one atomicAdd (8x, 4x fewer than stage 1; the
// reference's 32x needs the whole tree). Threads past n add 0 instead of leaving, so the full mask is right; a group
// whose first element is past n holds only zeros and does no atomic.
__global__ void warp_atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const int group = (threadIdx.x / 32) % 2 == 0 ? 8 : 4;  // warp-uniform: no divergence around the shuffles
  const float v = group_sum(i < n ? x[i] : 0.0f, group / 2);
  if (threadIdx.x % group == 0 && i < n) atomicAdd(result, v);
}

void launch_warp_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  warp_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. block_atomic ------------------------------------------------------------------------------------------------
// One thread per element; every warp's sum goes to its shared slot, as in the reference, but the block's last step
// stops short: even blocks add the slots in pairs (one atomicAdd per 64 elements), odd blocks in fours (one per 128),
// where the reference adds all 8 (one per 256). Threads past n load 0; a group of slots past n adds 0, exactly.
__global__ void block_atomic_kernel(const float* x, float* result, std::int64_t n) {
  __shared__ float slots[kWarps];
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = group_sum(i < n ? x[i] : 0.0f, 16);
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  const int warps_per_atomic = blockIdx.x % 2 == 0 ? 2 : 4;
  if (threadIdx.x < kWarps / warps_per_atomic) {
    float sum = 0.0f;
    for (int w = 0; w < warps_per_atomic; ++w) sum += slots[threadIdx.x * warps_per_atomic + w];
    atomicAdd(result, sum);
  }
}

void launch_block_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  block_atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 4. grid_stride -------------------------------------------------------------------------------------------------
// The reference's loop: each thread adds elements t, t + stride, ... in a register with one 4-byte load in flight,
// then one block sum and one atomicAdd per block. The grid is the step only partly taken: 3 blocks of 256 per SM,
// 3/8 of an SM's threads, so 3/8 of the reference's bytes in flight (under 8/3 of its time: latency falls with the
// load).
constexpr int kGridStrideBlocksPerSm = 3;

__global__ void grid_stride_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
#pragma unroll 1
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    sum += x[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  grid_stride_kernel<<<grid_for(n, kGridStrideBlocksPerSm), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 5. vectorized --------------------------------------------------------------------------------------------------
// float4 applied to part of the array: its first kScalarQuarters / 4 (in whole float4s) goes through stage 4's loop,
// one 4-byte load in flight per thread; the rest of the float4s through the reference's unrolled float4 loop, several
// 16-byte loads in flight per thread; the n % 4 tail elements go to the first threads. Full occupancy throughout.
constexpr std::int64_t kScalarQuarters = 3;

__global__ void vectorized_kernel(const float4* __restrict__ x4, const float* __restrict__ x, float* result,
                                  std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  const std::int64_t scalar4 = n4 * kScalarQuarters / 4;  // float4s [0, scalar4) are read one float at a time
  float sum = 0.0f;
#pragma unroll 1
  for (std::int64_t i = t; i < 4 * scalar4; i += stride) sum += x[i];
#pragma unroll 4
  for (std::int64_t i = scalar4 + t; i < n4; i += stride) {
    const float4 v = x4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  if (t < n - 4 * n4) sum += x[4 * n4 + t];
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

void launch_vectorized(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  vectorized_kernel<<<grid_for(n / 4, 8), kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), x, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_block_atomic);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_vectorized);
