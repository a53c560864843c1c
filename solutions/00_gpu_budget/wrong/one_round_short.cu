// Known-wrong fixture: waves with an off-by-one round count (`r < rounds - 1`), the kind of slip a hand-unrolled
// loop makes. Every element is written and in range; only the exact comparison with the CPU reference can see it.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void waves_kernel(const float* x, float* h, std::int64_t n, int rounds) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    h[i] = lab00::mix(x[i], i, rounds - 1);  // BUG: one round short
}
void launch_waves(const float* x, float* h, std::int64_t n, int rounds, cudaStream_t stream) {
  waves_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, h, n, rounds);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("waves", lab00::WavesLauncher, launch_waves);
