// Known-wrong fixture: two passes like the reference's (with a simpler append, one atomicAdd per warp), the worklist
// counter zeroed only on the launcher's first call (a static flag), as if the scratch started clean at every call.
// Each later call counts on from whatever the counter holds. `check` runs every case on a new Problem whose scratch
// the harness fills with 0xFF bytes first, so from the second case on the counter starts at -1: the first warp to
// append writes worklist[-1], in the guard zone in front of the worklist, and pass 2, which runs slots 0 .. count - 1,
// never computes that element (its y[i] keeps the NaN poison). Every case after the first with a heavy element
// rejects it, whatever the seed and the order of the atomics: the all-heavy cases always have one. (In `time` the
// counter would start at the reference's count.)
#include "divergence.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

__global__ void light_kernel(const float* x, float* y, std::int64_t n, float threshold, int light_steps,
                             int* worklist, int* count) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const bool inside = i < n;
  float v = inside ? x[i] : 0.0f;
  const bool heavy = inside && v >= threshold;
  const unsigned heavy_lanes = __ballot_sync(kFullMask, heavy);
  if (heavy_lanes != 0) {
    int base = 0;
    if (lane == 0) base = atomicAdd(count, __popc(heavy_lanes));
    base = __shfl_sync(kFullMask, base, 0);
    if (heavy) worklist[base + __popc(heavy_lanes & ((1u << lane) - 1))] = static_cast<int>(i);
  }
  if (inside && !heavy) {
    for (int k = 0; k < light_steps; ++k) v = fmaf(v, lab02::kLightScale, lab02::kLightShift);
    y[i] = v;
  }
}

__global__ void heavy_kernel(const float* x, float* y, int heavy_steps, const int* worklist, const int* count) {
  const std::int64_t total = *count;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < total; t += stride) {
    const int i = worklist[t];
    float v = x[i];
    for (int k = 0; k < heavy_steps; ++k) v = fmaf(v, lab02::kHeavyScale, lab02::kHeavyShift);
    y[i] = v;
  }
}

void launch_regroup(const float* x, float* y, std::int64_t n, float threshold, int heavy_steps, int light_steps,
                    int* worklist, int* count, cudaStream_t stream) {
  static bool zeroed = false;
  if (!zeroed) {  // BUG: the counter must be zeroed at every call, not once
    CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int), stream));
    zeroed = true;
  }
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  light_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n, threshold, light_steps, worklist, count);
  CUDA_CHECK_LAUNCH();
  heavy_kernel<<<std::min(blocks, 1024u), kThreads, 0, stream>>>(x, y, heavy_steps, worklist, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("regroup", lab02::RegroupLauncher, launch_regroup);
