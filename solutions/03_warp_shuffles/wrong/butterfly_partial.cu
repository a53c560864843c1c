// Known-wrong fixture: the xor butterfly used for partial warps too, with missing partners counted as 0. Right for
// full warps; wrong when the calling lanes are not a power of two, because a lane whose partner l ^ offset does not
// exist also misses everything that partner would have collected and passed on. With 3 lanes, lane 2 ends with
// x0 + x2. The 31-element and 33-thread-block shapes show it.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

struct Ops {
  static __device__ float warp_allreduce(float v, unsigned mask) {
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_xor_sync(mask, v, offset);
      if ((lane ^ offset) < lanes) v += other;  // BUG: a missing partner is not the same as a partner holding 0
    }
    return v;
  }
  static __device__ float warp_broadcast(float v, int src, unsigned mask) { return __shfl_sync(mask, v, src); }
};

}  // namespace

REGISTER_LAUNCHER("warp_allreduce", lab03::Launcher, lab03::launch_warp_allreduce<Ops>);
