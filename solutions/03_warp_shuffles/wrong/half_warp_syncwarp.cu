// expect: accepted (decided on the GPU: compute-sanitizer synccheck must report it)
// Known-wrong fixture for `grade --sanitize`: the reference's warp_sum with a warp barrier "for the lanes that read",
// __syncwarp(0xffff), after each step of its full-warp shuffle. All 32 lanes execute it, and lanes 16..31 are not in
// its mask: undefined behaviour (a __syncwarp mask must name every lane that calls it). The shuffles carry the values
// themselves, so the sums come out right and the checks pass; compute-sanitizer's synccheck reports the barrier's
// invalid mask. (synccheck does not look at shuffle masks: a __shfl_down_sync(0xffff, ...) called by a full warp was
// not reported on an H100, docs/sanitizer.md; a warp barrier with the same mistake is what it sees.)
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

struct Ops {
  static __device__ float warp_sum(float v, unsigned mask) {
    if (mask == kFullMask) {
      for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(kFullMask, v, offset);
        __syncwarp(0xffffu);  // BUG: lanes 16..31 call a barrier whose mask leaves them out
      }
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
