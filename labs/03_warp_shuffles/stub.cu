// Lab 03: warp shuffles -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped: it is the baseline, the zero of the performance scale.
//
// Build and grade, from the build directory:   make lab3 && ./grade lab3
// Check correctness only, with Catch2's report: ./lab3 check --impl student
// The exercise sheet is labs/03_warp_shuffles/README.md; the calling convention is in warp_shuffles.hpp.
//
// Each exercise is one device function of `Ops` below; the test kernels that call them (test_kernels.cuh) are
// fixed. Every function here is correct but slow: it moves values between lanes through shared memory, with a
// barrier between every write and read. Rewrite them with the shuffle intrinsics, which move a register from one
// lane to another in one instruction. `mask` names exactly the calling lanes (a prefix, lanes 0..k-1, with k < 32
// in partial warps): pass it to every *_sync intrinsic, and never use a value shuffled in from a lane outside it.
//
//   1. warp_sum              __shfl_down_sync; lane 0 returns the total
//   2. warp_allreduce        __shfl_xor_sync; every lane returns the total (careful: partial warps)
//      warp_broadcast        __shfl_sync from lane src
//   3. warp_inclusive_scan   __shfl_up_sync
//   4. block_sum             warp sums, one shared slot per warp, one more warp sum (careful: the last warp of a
//                            block of 33 threads has one lane)
// Ceiling: full-warp __shfl_xor_sync reductions of registers, measured in the same run.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

// The warp functions through shared memory: each warp owns one row of 32 floats of a block-wide scratch array, and
// __syncwarp(mask) orders the writes and reads of the calling lanes. Every step is a store, a barrier, a load and
// another barrier, where a shuffle would be one instruction that moves a register straight to another lane.
__device__ float* warp_row() {
  __shared__ float scratch[32][32];  // one row per warp of a block of up to 1024 threads
  return scratch[threadIdx.x / 32];
}

struct Ops {
  // ---- 1. lane 0 gets the sum of the calling lanes ---------------------------------------------------------------
  // slide-begin: warp_sum
  static __device__ float warp_sum(float v, unsigned mask) {
    float* row = warp_row();
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    row[lane] = v;
    __syncwarp(mask);
    for (int offset = 16; offset > 0; offset /= 2) {
      if (lane < offset && lane + offset < lanes) row[lane] += row[lane + offset];
      __syncwarp(mask);
    }
    const float total = row[0];
    __syncwarp(mask);  // everyone has read row[0] before the next call overwrites the row
    return total;
  }
  // slide-end: warp_sum

  // ---- 2. every calling lane gets the sum; every calling lane gets lane src's value ------------------------------
  static __device__ float warp_allreduce(float v, unsigned mask) {
    return warp_sum(v, mask);  // warp_sum already leaves the total where every lane reads it
  }
  static __device__ float warp_broadcast(float v, int src, unsigned mask) {
    float* row = warp_row();
    row[threadIdx.x % 32] = v;
    __syncwarp(mask);
    const float value = row[src];
    __syncwarp(mask);
    return value;
  }

  // ---- 3. inclusive scan over the calling lanes (Hillis-Steele) ---------------------------------------------------
  static __device__ float warp_inclusive_scan(float v, unsigned mask) {
    float* row = warp_row();
    const int lane = threadIdx.x % 32;
    row[lane] = v;
    __syncwarp(mask);
    for (int offset = 1; offset < 32; offset *= 2) {
      const float add = lane >= offset ? row[lane - offset] : 0.0f;
      __syncwarp(mask);  // all reads of this step before any write
      row[lane] += add;
      __syncwarp(mask);
    }
    const float result = row[lane];
    __syncwarp(mask);
    return result;
  }

  // ---- 4. thread 0 gets the block's sum: a shared-memory tree over the whole block -------------------------------
  // log2(blockDim) steps, each ending in a __syncthreads that the whole block waits for.
  // slide-begin: block_sum
  static __device__ float block_sum(float v) {
    __shared__ float tree[1024];
    const int tid = threadIdx.x, size = blockDim.x;
    tree[tid] = v;
    __syncthreads();
    int half = 1;
    while (2 * half < size) half *= 2;  // the largest power of two below size (or 1)
    for (; half > 0; half /= 2) {
      if (tid < half && tid + half < size) tree[tid] += tree[tid + half];
      __syncthreads();
    }
    const float total = tree[0];
    __syncthreads();  // everyone has read tree[0] before the next call overwrites the tree
    return total;
  }
  // slide-end: block_sum
};

}  // namespace

REGISTER_LAUNCHER("warp_sum", lab03::Launcher, lab03::launch_warp_sum<Ops>);
REGISTER_LAUNCHER("warp_allreduce", lab03::Launcher, lab03::launch_warp_allreduce<Ops>);
REGISTER_LAUNCHER("warp_scan", lab03::Launcher, lab03::launch_warp_scan<Ops>);
REGISTER_LAUNCHER("block_sum", lab03::Launcher, lab03::launch_block_sum<Ops>);
