// Known-wrong fixture: the remapped kernel without its bounds check. The grid covers whole warp pairs (64
// elements), so whenever n is not a multiple of 64 the last pair writes past the end of y. The values inside the
// array are right: only the guard zones around the buffer can catch it.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void branches_kernel(const float* x, float* y, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t warp = t / 32, lane = t % 32;
  const bool odd = warp % 2 != 0;
  const std::int64_t i = (warp / 2) * 64 + 2 * lane + (odd ? 1 : 0);  // BUG: no `if (i >= n) return;`
  float v = x[i];
  if (odd) {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  }
  y[i] = v;
}

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  const std::int64_t threads = (n + 63) / 64 * 64;
  branches_kernel<<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream>>>(x, y, iterations);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
