// Known-wrong fixture: the sequential pipeline with the copy back one element too long, so it writes h_out[n], just
// past the end of the host output (the byte count of an inclusive range: (n + 1) * sizeof(float)). The values inside
// the array are right: only the guard zones around h_out, in host memory shared with the lab binary, can catch it
// (what lands there is the first guard word of the device scratch d_out, which differs from an output's).
#include "streams.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

__global__ void poly_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}

__global__ void stencil_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = left + 2.0f * x[i] + right;
  }
}

void launch_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                     cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyHostToDevice, stream));
  poly_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
  // BUG: n + 1 elements copied back
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, static_cast<std::size_t>(n + 1) * sizeof(float), cudaMemcpyDeviceToHost,
                             stream));
}

void launch_stencil_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                             cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyHostToDevice, stream));
  stencil_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
  // BUG: n + 1 elements copied back
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, static_cast<std::size_t>(n + 1) * sizeof(float), cudaMemcpyDeviceToHost,
                             stream));
}

}  // namespace

REGISTER_LAUNCHER("pipeline", lab07::PipelineLauncher, launch_pipeline);
REGISTER_LAUNCHER("stencil_pipeline", lab07::PipelineLauncher, launch_stencil_pipeline);
