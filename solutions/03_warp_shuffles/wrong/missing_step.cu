// Known-wrong fixture: shuffle loops that start at offset 8 instead of 16, as if a warp had 16 lanes. Lanes 16..31
// never reach lane 0 (or, in the butterfly, the other half of the warp): any warp with more than 16 calling lanes
// comes out wrong, and so does every block sum built on it.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

struct Ops {
  static __device__ float warp_sum(float v, unsigned mask) {
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    for (int offset = 8; offset > 0; offset /= 2) {  // BUG: the first step is 16
      const float other = __shfl_down_sync(mask, v, offset);
      if (lane + offset < lanes) v += other;
    }
    return v;
  }
  static __device__ float warp_allreduce(float v, unsigned mask) {
    if (mask != 0xffffffffu) return __shfl_sync(mask, warp_sum(v, mask), 0);
    for (int offset = 8; offset > 0; offset /= 2) v += __shfl_xor_sync(mask, v, offset);  // BUG: from 16
    return v;
  }
  static __device__ float warp_broadcast(float v, int src, unsigned mask) { return __shfl_sync(mask, v, src); }
  static __device__ float block_sum(float v) {
    __shared__ float slots[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, size = blockDim.x;
    const auto existing = [&](int w) { return size - 32 * w >= 32 ? 0xffffffffu : (1u << (size - 32 * w)) - 1u; };
    v = warp_sum(v, existing(warp));
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    float total = 0.0f;
    if (warp == 0) total = warp_sum(lane < (size + 31) / 32 ? slots[lane] : 0.0f, existing(0));
    __syncthreads();
    return total;
  }
};

}  // namespace

REGISTER_LAUNCHER("warp_sum", lab03::Launcher, lab03::launch_warp_sum<Ops>);
REGISTER_LAUNCHER("warp_allreduce", lab03::Launcher, lab03::launch_warp_allreduce<Ops>);
REGISTER_LAUNCHER("block_sum", lab03::Launcher, lab03::launch_block_sum<Ops>);
