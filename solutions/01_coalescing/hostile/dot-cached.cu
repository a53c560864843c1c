// expect: accepted (decided on the GPU: labN time refuses it)
// Hostile fixture (a GPU test must refuse it): computes the dot product once, keeps the answer in memory of its own,
// and on every later call only writes the kept answer. It passes every correctness case (each case is a fresh
// process, so its first call), and fast timed runs would follow; `labN time` must refuse it because the answer is
// wrong on the new inputs after the timed runs.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void dot_kernel(const float* x, const float* y, float* result, std::int64_t n) {
  float sum = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    sum += x[i] * y[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(result, sum);
}

float* kept = nullptr;  // the answer of the first call

void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  if (kept == nullptr) {
    CUDA_CHECK(cudaMalloc(&kept, sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
    dot_kernel<<<1024, 256, 0, stream>>>(x, y, result, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(kept, result, sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  CUDA_CHECK(cudaMemcpyAsync(result, kept, sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
