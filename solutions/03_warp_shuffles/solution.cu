// Lab 03: warp shuffles -- the reference solution (the "reference" implementation the grade is measured against).
//
// Each function moves values between lanes with shuffles: one instruction per step instead of a shared-memory store,
// a barrier and a load. The partial-warp rule (warp_shuffles.hpp): `mask` is exactly the calling lanes, a prefix
// 0..k-1. Every intrinsic names `mask`, and a value shuffled in from a lane outside it (undefined) is never used:
//   - shfl_down from lane + offset >= k is discarded (that lane holds nothing, so the sum is unchanged);
//   - shfl_up only ever reads lane - offset < lane < k, so it needs no partial-warp care at all;
//   - the xor butterfly pairs lane l with l ^ offset, which may be >= k; skipping those partners loses the sums
//     they would have forwarded, so a partial warp reduces down to lane 0 and broadcasts instead.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

struct Ops {
  // ---- 1 ---------------------------------------------------------------------------------------------------------
  // slide-begin: warp_sum
  static __device__ float warp_sum(float v, unsigned mask) {
    if (mask == kFullMask) {
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
      return v;
    }
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(mask, v, offset);
      if (lane + offset < lanes) v += other;
    }
    return v;
  }
  // slide-end: warp_sum

  // ---- 2 ---------------------------------------------------------------------------------------------------------
  // slide-begin: warp_allreduce
  static __device__ float warp_allreduce(float v, unsigned mask) {
    if (mask == kFullMask) {
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
      return v;
    }
    return __shfl_sync(mask, warp_sum(v, mask), 0);
  }
  // slide-end: warp_allreduce
  static __device__ float warp_broadcast(float v, int src, unsigned mask) { return __shfl_sync(mask, v, src); }

  // ---- 3 ---------------------------------------------------------------------------------------------------------
  // slide-begin: warp_scan
  static __device__ float warp_inclusive_scan(float v, unsigned mask) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const float other = __shfl_up_sync(mask, v, offset);
      if (lane >= offset) v += other;
    }
    return v;
  }
  // slide-end: warp_scan

  // ---- 4 ---------------------------------------------------------------------------------------------------------
  // Two warp sums and two barriers, whatever the block size. The lanes of a warp that exist are its calling lanes:
  // all 32, except in the last warp of a block whose size is not a multiple of 32.
  // slide-begin: block_sum
  static __device__ float block_sum(float v) {
    __shared__ float slots[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int size = blockDim.x, warps = (size + 31) / 32;
    const auto existing = [&](int w) {
      const int k = size - 32 * w;
      return k >= 32 ? kFullMask : (1u << k) - 1u;
    };
    v = warp_sum(v, existing(warp));
    if (lane == 0) slots[warp] = v;
    __syncthreads();  // every slot written before warp 0 reads them
    float total = 0.0f;
    if (warp == 0) total = warp_sum(lane < warps ? slots[lane] : 0.0f, existing(0));
    __syncthreads();  // warp 0 has read every slot before the next call writes them again
    return total;
  }
  // slide-end: block_sum
};

}  // namespace

REGISTER_LAUNCHER("warp_sum", lab03::Launcher, lab03::launch_warp_sum<Ops>);
REGISTER_LAUNCHER("warp_allreduce", lab03::Launcher, lab03::launch_warp_allreduce<Ops>);
REGISTER_LAUNCHER("warp_scan", lab03::Launcher, lab03::launch_warp_scan<Ops>);
REGISTER_LAUNCHER("block_sum", lab03::Launcher, lab03::launch_block_sum<Ops>);
