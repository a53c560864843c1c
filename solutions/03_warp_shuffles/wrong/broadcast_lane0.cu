// Known-wrong fixture: a broadcast that always reads lane 0 (the habit of "broadcast the result of a reduction"),
// ignoring src. The test kernel asks for lanes (g + 5r) % k, which are rarely 0.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>

namespace {

struct Ops {
  static __device__ float warp_allreduce(float v, unsigned mask) {
    const int lane = threadIdx.x % 32, lanes = __popc(mask);
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(mask, v, offset);
      if (lane + offset < lanes) v += other;
    }
    return __shfl_sync(mask, v, 0);
  }
  static __device__ float warp_broadcast(float v, int, unsigned mask) {
    return __shfl_sync(mask, v, 0);  // BUG: the source lane is src
  }
};

}  // namespace

REGISTER_LAUNCHER("warp_allreduce", lab03::Launcher, lab03::launch_warp_allreduce<Ops>);
