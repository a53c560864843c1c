// expect: compile error harness/problem.hpp
// Known-wrong fixture: drop_partial_warp's block sum (wrong for every block size that is not a multiple of 32), plus a
// static initializer that removes those block sizes from the lab's test shapes, so that the check would see only the
// shapes the kernel gets right. Against a lab binary that linked student code it passed (issue 14, class 3); now the
// initializer edits the runner's own copy of the lab, and the lab binary, which holds no student code, tests every
// shape.
#include "test_kernels.cuh"

#include <harness/launcher.hpp>
#include <harness/problem.hpp>

#include <algorithm>

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

// Runs after the lab's exercises are registered (their object is linked first).
const bool trimmed = [] {
  for (auto& exercise : harness::lab().exercises) {
    auto& shapes = exercise.test_shapes;
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(), [](const harness::Shape& s) { return s[1] % 32 != 0; }),
                 shapes.end());
  }
  return true;
}();

}  // namespace

REGISTER_LAUNCHER("block_sum", lab03::Launcher, lab03::launch_block_sum<Ops>);
