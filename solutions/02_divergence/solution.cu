// Lab 02: warp divergence -- the reference solution (the "reference" implementation the grade is measured against).
//
// branches: 512 dependent FMAs per element and 8 bytes moved make it compute-bound; the stub's warps each run both
// paths, so the whole job is to make every warp run one. Threads are remapped in pairs of warps: warp 2p takes the
// 32 even elements of the 64-element chunk p and warp 2p+1 its 32 odd elements. Each thread still writes the element
// it computed, y[i]; only the thread-to-element map changed. The loads and stores become stride-2 (half of each
// 32-byte sector is used), which doubles a memory time that is a tenth of the arithmetic: a good trade.
//
// block_sums: sequential addressing. At step s the threads 0..s-1 add s[tid + s]: the test is one compare instead of
// the stub's run-time `%` (an integer division routine in every lane of every warp at every step: most of the
// stub's extra time, measured in experiments/lab02_block_sums), and the working threads are contiguous, so whole
// warps drop out together (at s = 64 two warps work and six are idle, instead of eight warps with a few lanes each;
// measured, a few percent).
//
// regroup: 1 element in 16 is heavy (4096 FMAs), scattered, so in the stub 7 warps in 8 run the heavy loop for one
// or two lanes. Regroup the work in two passes. Pass 1 reads every element once, runs the 16-step light path for the
// light ones and appends the indices of the heavy ones to the worklist: __ballot_sync says which lanes of a warp are
// heavy, __popc how many and each lane's rank, a shuffle scan over the warps where each warp's run starts, and one
// atomicAdd per 1024-thread block reserves the block's slots. Pass 2 runs the heavy path over the compacted
// worklist, 32 heavy elements per warp, every lane busy. Each result still lands in y[i], so y is the same whatever
// order the atomics filled the worklist in. The launcher zeroes the counter at every call: the scratch keeps the
// previous call's count. Napkin math at 2^24 elements (the README has it in full): the stub issues the heavy loop in
// 7/8 of its 2^19 warps, this in 2^15 warps, plus one pass over memory: about 2.3 ms against 0.23 ms on the H200
// (measured: 2.22 and 0.288 ms).
#include "divergence.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

// ---- 1. branches ---------------------------------------------------------------------------------------------
// slide-begin: branches
__global__ void branches_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t warp = t / 32;
  const std::int64_t lane = t % 32;
  const bool odd = warp % 2 != 0;  // the same for all 32 lanes of the warp
  const std::int64_t i = (warp / 2) * 64 + 2 * lane + (odd ? 1 : 0);
  if (i >= n) return;
  float v = x[i];
  if (odd) {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  }
  y[i] = v;
}
// slide-end: branches

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  const std::int64_t threads = (n + 63) / 64 * 64;  // whole warp pairs
  branches_kernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n,
                                                                                                       iterations);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. block_sums -------------------------------------------------------------------------------------------
__global__ void block_sums_kernel(const float* __restrict__ x, float* __restrict__ sums, std::int64_t n) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  // slide-begin: block_sums
  for (int stride = lab02::kSegment / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  // slide-end: block_sums
  if (tid == 0) sums[blockIdx.x] = s[0];
}

void launch_block_sums(const float* x, float* sums, std::int64_t n, cudaStream_t stream) {
  const std::int64_t blocks = (n + lab02::kSegment - 1) / lab02::kSegment;
  block_sums_kernel<<<static_cast<unsigned>(blocks), lab02::kSegment, 0, stream>>>(x, sums, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. regroup ----------------------------------------------------------------------------------------------
// Pass 1, one thread per element, in blocks of 1024 threads with one atomicAdd per block. One per warp would be
// 7/8 of 2^19 atomics on one address at the timed size; the course's H200 takes about 1.8 ns for each (lab 04's
// anchors: 15 ms for 2^23), 0.8 ms in all, more than the heavy pass. Per block it is 2^14 of them, 0.03 ms.
constexpr int kAppendThreads = 1024;

__global__ void __launch_bounds__(kAppendThreads)
    regroup_light_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n, float threshold,
                         int light_steps, int* __restrict__ worklist, int* __restrict__ count) {
  __shared__ int warp_offset[kAppendThreads / 32];  // first each warp's number of heavy lanes, then where they go
  __shared__ int block_base;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // No thread returns early: the ballot names all 32 lanes and the barriers wait for every thread. Threads past n
  // stay, as light lanes with nothing to load or store.
  const bool inside = i < n;
  float v = inside ? x[i] : 0.0f;
  const bool heavy = inside && v >= threshold;
  // slide-begin: regroup_append
  const unsigned heavy_lanes = __ballot_sync(kFullMask, heavy);
  if (lane == 0) warp_offset[warp] = __popc(heavy_lanes);
  __syncthreads();
  if (warp == 0) {  // exclusive prefix sum of the 32 warps' counts by shuffles; the last lane holds the block's total
    const int mine = warp_offset[lane];
    int sum = mine;
    for (int d = 1; d < 32; d *= 2) {
      const int up = __shfl_up_sync(kFullMask, sum, d);
      if (lane >= d) sum += up;
    }
    warp_offset[lane] = sum - mine;
    if (lane == 31) block_base = sum > 0 ? atomicAdd(count, sum) : 0;  // one atomic for the whole block
  }
  __syncthreads();
  if (heavy) {  // the lane's rank among the heavy lanes of its warp: those below it
    const int rank = __popc(heavy_lanes & ((1u << lane) - 1));
    worklist[block_base + warp_offset[warp] + rank] = static_cast<int>(i);
  } else if (inside) {
    for (int k = 0; k < light_steps; ++k) v = fmaf(v, lab02::kLightScale, lab02::kLightShift);
    y[i] = v;
  }
  // slide-end: regroup_append
}

// Pass 2, a grid-stride loop over the worklist: lanes take consecutive entries, so every warp but the last holds 32
// heavy elements. The count is read on the device; the host never waits for it.
// slide-begin: regroup_heavy
__global__ void regroup_heavy_kernel(const float* __restrict__ x, float* __restrict__ y, int heavy_steps,
                                     const int* __restrict__ worklist, const int* __restrict__ count) {
  const std::int64_t total = *count;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < total; t += stride) {
    const int i = worklist[t];
    float v = x[i];
    for (int k = 0; k < heavy_steps; ++k) v = fmaf(v, lab02::kHeavyScale, lab02::kHeavyShift);
    y[i] = v;
  }
}
// slide-end: regroup_heavy

/// Pass 2's grid: enough 256-thread blocks to fill every SM (8 each: 2048 threads, an H200's most), no more than n
/// elements need. Sized for the worst case, every element heavy; the loop stops at the device-side count.
unsigned heavy_grid(std::int64_t n) {
  static const int sms = [] {
    int device = 0, count = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  const std::int64_t needed = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::min<std::int64_t>(needed, std::int64_t{sms} * 8));
}

void launch_regroup(const float* x, float* y, std::int64_t n, float threshold, int heavy_steps, int light_steps,
                    int* worklist, int* count, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int), stream));  // every call: the scratch keeps the last count
  const auto blocks = static_cast<unsigned>((n + kAppendThreads - 1) / kAppendThreads);
  regroup_light_kernel<<<blocks, kAppendThreads, 0, stream>>>(x, y, n, threshold, light_steps, worklist, count);
  CUDA_CHECK_LAUNCH();
  regroup_heavy_kernel<<<heavy_grid(n), kThreads, 0, stream>>>(x, y, heavy_steps, worklist, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
REGISTER_LAUNCHER("block_sums", lab02::BlockSumsLauncher, launch_block_sums);
REGISTER_LAUNCHER("regroup", lab02::RegroupLauncher, launch_regroup);
