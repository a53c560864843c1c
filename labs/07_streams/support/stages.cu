// Lab 07's kernels as the harness times them alone: the middle stage of the pipelines, over the whole array.
#include "support/stages.hpp"

#include <harness/cuda_check.hpp>

namespace lab07::stages {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

__global__ void poly_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}

__global__ void stencil_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = left + 2.0f * x[i] + right;
  }
}

}  // namespace

void launch_poly(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
  poly_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void launch_stencil(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
  stencil_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lab07::stages
