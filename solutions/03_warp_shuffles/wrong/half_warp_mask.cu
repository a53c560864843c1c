// expect: accepted (decided on the GPU: compute-sanitizer synccheck must report it)
// Known-wrong fixture for `grade --sanitize`: the reference's warp_sum with the mask of a 16-lane reduction, 0xffff,
// left in its full-warp path. Lanes 16..31 call __shfl_down_sync without being in its mask, and lanes 0..15 read from
// them at the first step: undefined behaviour (a warp intrinsic's mask must name the calling lane, and the source
// lane). A converged warp happens to shuffle anyway on current GPUs, so the sums can come out right and the checks
// may pass; compute-sanitizer's synccheck reports the invalid mask.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

struct Ops {
  static __device__ float warp_sum(float v, unsigned mask) {
    if (mask == kFullMask) {
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffu, v, offset);  // BUG: kFullMask
      return v;
    }
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(mask, v, offset);
      if (lane + offset < lanes) v += other;
    }
    return v;
  }
};

}  // namespace

REGISTER_LAUNCHER("warp_sum", lab03::Launcher, lab03::launch_warp_sum<Ops>);
