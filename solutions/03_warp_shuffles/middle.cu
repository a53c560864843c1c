// Lab 03: warp shuffles -- the known-middle fixture: a correct implementation about halfway, on the grade's scale,
// between the baseline (the shared-memory stub) and the reference of every exercise with performance points, so that
// the repeatability benchmark sees how much a grade in the middle of its scale moves between runs. Each exercise
// takes the lesson's technique part of the way (no sleeps or spins): the stub half converted to shuffles, the first
// step(s) of each warp loop still through the stub's shared-memory row with a __syncwarp around every store and load.
// Shared accesses and shuffles go through the same MIO pipe, so the time grows with their count.
//
//   1. warp_sum: offset 16 through shared memory (a store, a __syncwarp, the step's load-add-store, a __syncwarp,
//      a load back into the register), offsets 8, 4, 2, 1 by __shfl_down_sync: 5 shared accesses and 4 shuffles per
//      repetition, 9 in all, where the stub has 17 accesses and the reference 5 shuffles; halfway on the log scale is
//      sqrt(1.1 x 17 x 5) = 9.7 (results/2026-11-26-h100-44b7ea4: f 0.62).
//   2. warp_allreduce: no butterfly; every warp reduces to lane 0 like warp_sum, with offsets 16 and 8 through
//      shared memory, then broadcasts the total with one __shfl_sync (the reference's partial-warp path, used for
//      full warps too); warp_broadcast is the reference's one __shfl_sync. The test kernel's own work per lane and
//      repetition hides much of the shuffle unit's time here, which narrows the scale, so it keeps two steps in
//      shared memory where warp_sum keeps one (results/2026-11-26-h100-44b7ea4: f 0.56 to 0.57).
//   3. warp_scan: offset 1 through shared memory (the stub's Hillis-Steele step: a guarded load, a __syncwarp, the
//      add and store, a __syncwarp), offsets 2, 4, 8, 16 by __shfl_up_sync: warp_sum's count, 5 shared accesses and
//      4 shuffles (results/2026-11-26-h100-44b7ea4: f 0.58).
//   4. block_sum: the stub's shared-memory tree, with a __syncthreads per level, until at most 128 partial sums are
//      left (one level at 256 threads); then warp 0 adds the survivors, four per lane, and finishes with five
//      shuffles. Three barriers per repetition where the stub has ten and the reference two (by barriers alone,
//      halfway is about 4.7), but the 128-wide tree level and warp 0's serial tail stay on the critical path
//      (results/2026-11-26-h100-44b7ea4: f 0.58).
//
// The partial-warp rules are the reference's: every *_sync intrinsic and __syncwarp names exactly `mask`, a shared
// step only reads a slot below `lanes` (written by a calling lane), and a shuffled-in value from a lane outside
// `mask` is discarded.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kSumSharedSteps = 1;        // warp_sum: offset 16 through shared memory
constexpr int kAllreduceSharedSteps = 2;  // warp_allreduce: offsets 16 and 8 through shared memory
constexpr int kScanSharedSteps = 1;       // warp_scan: offset 1 through shared memory
constexpr int kTreeFloor = 128;           // block_sum: the shared tree stops at this many partial sums

// The stub's scratch: one row of 32 floats per warp of a block of up to 1024 threads.
__device__ float* warp_row() {
  __shared__ float scratch[32][32];
  return scratch[threadIdx.x / 32];
}

// Lane 0 gets the sum over the calling lanes. The first kShared steps (offsets 16, 8, ...) are the stub's, through
// the warp's shared row; the rest are __shfl_down_sync. After the shared steps, lane l < 32 >> kShared holds the sum
// of the calling lanes l, l + 32 >> kShared, ...; a shuffle partner at lane + offset >= lanes holds nothing and is
// skipped, as in the reference. Every cross-lane read of the row is followed by a __syncwarp before the next call
// (or the next step) writes it; the load back into the register reads the lane's own slot.
template <int kShared>
__device__ float half_converted_sum(float v, unsigned mask) {
  const int lane = threadIdx.x % 32, lanes = __popc(mask);
  constexpr int kFirstShuffle = 16 >> kShared;
  if constexpr (kShared > 0) {
    float* row = warp_row();
    row[lane] = v;
    __syncwarp(mask);
#pragma unroll
    for (int offset = 16; offset > kFirstShuffle; offset /= 2) {
      if (lane < offset && lane + offset < lanes) row[lane] += row[lane + offset];
      __syncwarp(mask);
    }
    v = row[lane];
  }
#pragma unroll
  for (int offset = kFirstShuffle; offset > 0; offset /= 2) {
    const float other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < lanes) v += other;
  }
  return v;
}

// Lane l gets the sum over lanes 0..l. The first kShared steps (offsets 1, 2, ...) are the stub's Hillis-Steele
// steps through the shared row, the rest __shfl_up_sync. Lane l - offset is always a calling lane, so neither half
// needs partial-warp care beyond naming `mask`.
template <int kShared>
__device__ float half_converted_scan(float v, unsigned mask) {
  const int lane = threadIdx.x % 32;
  constexpr int kFirstShuffle = 1 << kShared;
  if constexpr (kShared > 0) {
    float* row = warp_row();
    row[lane] = v;
    __syncwarp(mask);
#pragma unroll
    for (int offset = 1; offset < kFirstShuffle; offset *= 2) {
      const float add = lane >= offset ? row[lane - offset] : 0.0f;
      __syncwarp(mask);  // all reads of this step before any write
      row[lane] += add;
      __syncwarp(mask);
    }
    v = row[lane];
  }
#pragma unroll
  for (int offset = kFirstShuffle; offset < 32; offset *= 2) {
    const float other = __shfl_up_sync(mask, v, offset);
    if (lane >= offset) v += other;
  }
  return v;
}

struct Ops {
  // ---- 1 ---------------------------------------------------------------------------------------------------------
  static __device__ float warp_sum(float v, unsigned mask) { return half_converted_sum<kSumSharedSteps>(v, mask); }

  // ---- 2 ---------------------------------------------------------------------------------------------------------
  // Reduce to lane 0 and broadcast, in every warp (right for partial warps too, where the butterfly is not).
  static __device__ float warp_allreduce(float v, unsigned mask) {
    return __shfl_sync(mask, half_converted_sum<kAllreduceSharedSteps>(v, mask), 0);
  }
  static __device__ float warp_broadcast(float v, int src, unsigned mask) { return __shfl_sync(mask, v, src); }

  // ---- 3 ---------------------------------------------------------------------------------------------------------
  static __device__ float warp_inclusive_scan(float v, unsigned mask) {
    return half_converted_scan<kScanSharedSteps>(v, mask);
  }

  // ---- 4 ---------------------------------------------------------------------------------------------------------
  // The stub's tree while more than kTreeFloor partial sums are left, then warp 0: lane l adds the survivors
  // l, l + 32, ... (at most kTreeFloor / 32 of them) and the lanes of warp 0 that exist (all 32, or the block's size
  // when it is smaller) shuffle them down to thread 0.
  static __device__ float block_sum(float v) {
    __shared__ float tree[1024];
    const int tid = threadIdx.x, size = blockDim.x;
    tree[tid] = v;
    __syncthreads();
    int half = 1;
    while (2 * half < size) half *= 2;  // the largest power of two below size (or 1)
    for (; half >= kTreeFloor; half /= 2) {
      if (tid < half && tid + half < size) tree[tid] += tree[tid + half];
      __syncthreads();
    }
    float total = 0.0f;
    if (tid < 32) {
      const int live = size < kTreeFloor ? size : kTreeFloor;  // tree[0 .. live-1] hold the partial sums
      float part = 0.0f;
#pragma unroll
      for (int j = tid; j < kTreeFloor; j += 32) part += j < live ? tree[j] : 0.0f;
      total = half_converted_sum<0>(part, size >= 32 ? kFullMask : (1u << size) - 1u);
    }
    __syncthreads();  // warp 0 has read the tree before the next call overwrites it
    return total;
  }
};

}  // namespace

REGISTER_LAUNCHER("warp_sum", lab03::Launcher, lab03::launch_warp_sum<Ops>);
REGISTER_LAUNCHER("warp_allreduce", lab03::Launcher, lab03::launch_warp_allreduce<Ops>);
REGISTER_LAUNCHER("warp_scan", lab03::Launcher, lab03::launch_warp_scan<Ops>);
REGISTER_LAUNCHER("block_sum", lab03::Launcher, lab03::launch_block_sum<Ops>);
