// expect: refused streams
// Hostile fixture (a GPU test must see its true time): runs the stub's slow kernel on a stream of its own that it
// never joins to the harness's, so events on the harness's stream see nothing. The runner answers only when the device
// is idle and the referee's host clock bounds the time: it must be graded at about the baseline's time, not as free.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha, std::int64_t chunk) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t begin = t * chunk;
  const std::int64_t end = begin + chunk < n ? begin + chunk : n;
  for (std::int64_t i = begin; i < end; ++i) y[i] = alpha * x[i];
}

cudaStream_t hidden = nullptr;

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t /*stream*/) {
  if (!hidden) CUDA_CHECK(cudaStreamCreateWithFlags(&hidden, cudaStreamNonBlocking));
  const std::int64_t workers = 256 * 1024;
  scale_kernel<<<1024, 256, 0, hidden>>>(x, y, n, alpha, (n + workers - 1) / workers);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
