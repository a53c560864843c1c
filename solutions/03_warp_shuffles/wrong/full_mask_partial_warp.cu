// expect: accepted (decided on the GPU: compute-sanitizer synccheck must report it)
// Known-wrong fixture for `grade --sanitize`: the reference's warp_sum with the textbook's full mask, 0xffffffff,
// for every warp, including the partial ones, whose lanes past the data have already returned. A __shfl_down_sync
// whose mask names lanes that do not call it is undefined behaviour (warp_shuffles.hpp: `mask` must be exactly the
// calling lanes). On current GPUs it happens to work, and the values from the missing lanes are discarded anyway, so
// every correctness check passes; compute-sanitizer's synccheck reports the invalid mask.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

struct Ops {
  static __device__ float warp_sum(float v, unsigned mask) {
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(0xffffffffu, v, offset);  // BUG: `mask`, not every lane
      if (lane + offset < lanes) v += other;
    }
    return v;
  }
};

}  // namespace

REGISTER_LAUNCHER("warp_sum", lab03::Launcher, lab03::launch_warp_sum<Ops>);
