// Known-wrong fixture: the warp-uniform remapping done right, but the result stored at the thread's own index
// instead of the element's. Thread 1 computes element 2 and writes it to y[1]: any size above 1 shows it.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void branches_kernel(const float* x, float* y, std::int64_t n, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t warp = t / 32, lane = t % 32;
  const bool odd = warp % 2 != 0;
  const std::int64_t i = (warp / 2) * 64 + 2 * lane + (odd ? 1 : 0);
  if (i >= n || t >= n) return;
  float v = x[i];
  if (odd) {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  }
  y[t] = v;  // BUG: element i's result belongs in y[i]
}

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  const std::int64_t threads = (n + 63) / 64 * 64;
  branches_kernel<<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream>>>(x, y, n, iterations);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
