// expect: accepted (decided on the GPU: labN time refuses it)
// Hostile fixture (a GPU test must refuse it): sums its input once per input pointer, keeps the answer, and on every
// later call with the same pointer only writes the kept answer: right in every correctness case (each is a fresh
// process) and in the first timed run, free afterwards. Timed rounds get new inputs and each output is compared with
// the reference's on the same inputs: `labN time` must refuse it.
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void sum_kernel(const float* x, float* result, std::int64_t n) {
  float sum = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    sum += x[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(result, sum);
}

const float* seen = nullptr;
float* kept = nullptr;

void launch_vectorized(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  if (x == seen) {
    CUDA_CHECK(cudaMemcpyAsync(result, kept, sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  if (!kept) CUDA_CHECK(cudaMalloc(&kept, sizeof(float)));
  seen = x;
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  sum_kernel<<<1024, 256, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(kept, result, sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_vectorized);
