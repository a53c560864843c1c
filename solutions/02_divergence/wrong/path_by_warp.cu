// Known-wrong fixture: makes the branch warp-uniform by choosing the path from the warp's parity, but keeps thread i
// on element i. Half the elements (the odd ones in even warps, the even ones in odd warps) take the wrong path.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void branches_kernel(const float* x, float* y, std::int64_t n, int iterations) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if ((i / 32) % 2 != 0) {  // BUG: the path belongs to the element's parity, not the warp's
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  }
  y[i] = v;
}

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  branches_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n, iterations);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
