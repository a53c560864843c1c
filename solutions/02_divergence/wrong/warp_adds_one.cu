// Known-wrong fixture: the warp-aggregated append with the per-thread habit left in it: each warp reserves one slot
// (atomicAdd(count, 1)) instead of one per heavy lane (__popc of the ballot), then writes all its heavy lanes from
// there. A warp with k heavy lanes overwrites k - 1 slots of the warps after it, and the count ends at the number of
// warps with a heavy lane instead of the number of heavy elements, so pass 2 runs fewer elements than there are: the
// ones left out keep the NaN poison in y. Whenever some warp holds two heavy lanes at least one heavy element is
// lost, whatever order the atomics come in: every all-heavy case of 32 elements or more, at any seed, rejects it.
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
    if (lane == 0) base = atomicAdd(count, 1);  // BUG: one slot per heavy lane, __popc(heavy_lanes)
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
  CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int), stream));
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  light_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n, threshold, light_steps, worklist, count);
  CUDA_CHECK_LAUNCH();
  heavy_kernel<<<std::min(blocks, 1024u), kThreads, 0, stream>>>(x, y, heavy_steps, worklist, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("regroup", lab02::RegroupLauncher, launch_regroup);
