// Known-wrong fixture: occupancy's kernel with a grid rounded up to whole blocks and no bounds check, so the last
// block writes past the end of the output. The values inside the array are right: only the guard zones around each
// buffer can catch it.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void occupancy_kernel(const float* x, float* y, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  y[i] = alpha * x[i];  // BUG: no `if (i < n)`
}
void launch_occupancy(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  occupancy_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("occupancy", lab00::OccupancyLauncher, launch_occupancy);
