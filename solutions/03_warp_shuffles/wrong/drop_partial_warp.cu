// Known-wrong fixture: a block sum that counts its warps as blockDim.x / 32, rounding down. The last warp of a block
// whose size is not a multiple of 32 writes its slot, but warp 0 never reads it; a block of fewer than 32 threads
// sums nothing.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

struct Ops {
  static __device__ float warp_sum(float v, unsigned mask) {
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(mask, v, offset);
      if (lane + offset < lanes) v += other;
    }
    return v;
  }
  static __device__ float block_sum(float v) {
    __shared__ float slots[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, size = blockDim.x;
    const auto existing = [&](int w) { return size - 32 * w >= 32 ? 0xffffffffu : (1u << (size - 32 * w)) - 1u; };
    v = warp_sum(v, existing(warp));
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    const int warps = size / 32;  // BUG: (size + 31) / 32
    float total = 0.0f;
    if (warp == 0) total = warp_sum(lane < warps ? slots[lane] : 0.0f, existing(0));
    __syncthreads();
    return total;
  }
};

}  // namespace

REGISTER_LAUNCHER("block_sum", lab03::Launcher, lab03::launch_block_sum<Ops>);
