// Known-wrong fixture: an inclusive scan without `if (lane >= offset)`. __shfl_up_sync hands lanes below `offset`
// their own value back, so those lanes add themselves again: lane 0 ends with 32 * x0 instead of x0.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

struct Ops {
  static __device__ float warp_inclusive_scan(float v, unsigned mask) {
    for (int offset = 1; offset < 32; offset *= 2) v += __shfl_up_sync(mask, v, offset);  // BUG: unguarded
    return v;
  }
};

}  // namespace

REGISTER_LAUNCHER("warp_scan", lab03::Launcher, lab03::launch_warp_scan<Ops>);
