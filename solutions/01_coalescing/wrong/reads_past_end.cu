// Known-wrong fixture: dot with an off-by-one bound (`i <= n`), so one thread reads x[n] and y[n], one element past
// the end of each input. Every element inside the arrays is summed right: only what the guard zones hold decides
// whether the answer shows it. The guard reads as NaN as a float (harness/common/src/problem.cpp), so the sum is NaN; the
// old guard byte 0xA5 read as -2.9e-16f, whose square vanished in the exact integer sum and passed.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void dot_kernel(const float* x, const float* y, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i <= n) atomicAdd(result, x[i] * y[i]);  // BUG: `<=` reads one element past the end
}
void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  dot_kernel<<<static_cast<unsigned>(n / 256 + 1), 256, 0, stream>>>(x, y, result, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
