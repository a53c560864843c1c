// Experiment: a variant of lab 05's coalesced naive kernel, timed against the reference in one run.
#include "matmul.hpp"

#include <harness/launcher.hpp>

namespace {
constexpr int kBx = 16, kBy = 16;
using Index = std::int64_t;

__global__ void naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             std::int64_t m, std::int64_t n, std::int64_t k) {
  const Index row = blockIdx.y * kBy + threadIdx.y;
  const Index col = blockIdx.x * kBx + threadIdx.x;
  if (row >= static_cast<Index>(m) || col >= static_cast<Index>(n)) return;
  const Index kk = static_cast<Index>(k), nn = static_cast<Index>(n);
  float sum = 0.0f;
  
  for (Index p = 0; p < kk; ++p) sum += a[row * kk + p] * b[p * nn + col];
  c[row * nn + col] = sum;
}

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((n + kBx - 1) / kBx), static_cast<unsigned>((m + kBy - 1) / kBy));
  naive_kernel<<<grid, dim3(kBx, kBy), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}
}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
