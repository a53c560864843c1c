// Known-wrong fixture: the waves grid cut to exactly one wave, as the sheet suggests, but with the grid-stride loop
// dropped: each thread takes one element, so every element past the first wave's threads is never written. Right at
// the small test sizes, which one wave covers; the 1000003 and 2^24 sizes must reject it.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

__global__ void waves_kernel(const float* x, float* h, std::int64_t n, int rounds) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) h[i] = lab00::mix(x[i], i, rounds);  // BUG: no loop over the elements past the grid
}
void launch_waves(const float* x, float* h, std::int64_t n, int rounds, cudaStream_t stream) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, waves_kernel, kThreads, 0));
  const std::int64_t needed = (n + kThreads - 1) / kThreads, wave = std::int64_t{sms} * per_sm;
  waves_kernel<<<static_cast<unsigned>(needed < wave ? needed : wave), kThreads, 0, stream>>>(x, h, n, rounds);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("waves", lab00::WavesLauncher, launch_waves);
