// Known-wrong fixture: computes the right answer once, then skips the work on every later call, as a kernel that
// "remembers" its result would. It passes a single check; poisoned outputs before every checked run, and the check
// with fresh inputs after the timed runs, must catch it.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void waves_kernel(const float* x, float* h, std::int64_t n, int rounds) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) h[i] = lab00::mix(x[i], i, rounds);
}
void launch_waves(const float* x, float* h, std::int64_t n, int rounds, cudaStream_t stream) {
  static bool computed = false;  // BUG: the result is assumed to still be there
  if (computed) return;
  computed = true;
  waves_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, h, n, rounds);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("waves", lab00::WavesLauncher, launch_waves);
