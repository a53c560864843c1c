// expect: accepted (decided on the GPU: labN time refuses it)
// Hostile fixture (a GPU test must refuse it): the whole product at every correctness shape and the first time it
// sees the timed shape (4096^3), then only every 16th row of C at that shape: a sixteenth of the work. The timed
// output was once checked only at sampled positions, and only before and after the timed runs; every timed run's
// output is now compared in full with the reference's on the same inputs, so `labN time` must refuse it.
#include "matmul.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void rows_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                            std::int64_t row_step) {
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t row = (blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y) * row_step;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

int timed_shape_calls = 0;

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  const bool timed = m >= 4096 && n >= 4096;
  const std::int64_t step = timed && timed_shape_calls++ > 0 ? 16 : 1;
  const std::int64_t rows = (m + step - 1) / step;
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((rows + 7) / 8));
  rows_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k, step);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
