// Known-wrong fixture: a naive kernel whose inner loop is unrolled by 4 over k and masks the steps past k by
// multiplying with 0 instead of testing the bound. For the last rows of B that reaches up to three rows past its end,
// into the guard zone; 0 * x is 0 only for finite x. The guard reads as NaN as a float (harness/common/src/problem.cpp), so
// every element of C is NaN whenever k % 4 != 0; the old guard byte 0xA5 (-2.9e-16f) times 0 was 0 and it passed.
#include "matmul.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void naive_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (std::int64_t p = 0; p < k; p += 4)  // BUG: steps p + j >= k read past B's end and are masked by a product
    for (int j = 0; j < 4; ++j) {
      const float keep = float(p + j < k);
      const float av = p + j < k ? a[row * k + p + j] : 0.0f;
      sum += keep * av * b[(p + j) * n + col];
    }
  c[row * n + col] = sum;
}

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(static_cast<unsigned>((n + 15) / 16), static_cast<unsigned>((m + 15) / 16));
  naive_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
