// expect: accepted (decided on the GPU: labN time refuses it)
// Hostile fixture (a GPU test must refuse it): does the work on its first call only, hoping that the output buffer
// still holds the answer when it is timed. Each correctness case is a fresh process (its first call), so `check`
// passes; `labN time` poisons the output before every timed run and checks it after, and must refuse it.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = alpha * x[i];
}

bool done = false;

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  if (done) return;
  done = true;
  scale_kernel<<<1024, 256, 0, stream>>>(x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
