// Known-wrong fixture: the stub's branches kernel, right everywhere but at one element that the CPU reference does not
// sample above 65536 elements (index 4097: samples there are the first and last 4096 and every 61st between), where it
// writes NaN. The sampled comparison cannot see it; `check` must, by comparing every element with the reference
// implementation's output on the same inputs.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kUnsampled = 4097;

__global__ void branches_kernel(const float* x, float* y, std::int64_t n, int iterations) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (i % 2 == 0) {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  }
  y[i] = n > 65536 && i == kUnsampled ? __int_as_float(0x7fc00000) : v;
}

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  branches_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n,
                                                                                                 iterations);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
