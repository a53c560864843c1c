// Known-wrong fixture: the grid is sized with m and n swapped (blocks along x for the rows, along y for the
// columns) while the kernel maps blockIdx.x to columns. Every square product is right; for m != n some tiles of C
// are never computed (they stay NaN, the poison) and some blocks find nothing to do. The tests need m != n.
#include "matmul.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32;

dim3 swapped_grid(std::int64_t m, std::int64_t n) {
  // BUG: x should count column tiles ((n + 31) / 32) and y row tiles
  return dim3(static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile));
}

__global__ void naive_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

void launch_naive(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                  cudaStream_t stream) {
  naive_kernel<<<swapped_grid(m, n), dim3(kTile, kTile), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

__global__ void smem_tiled_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                                  std::int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  float sum = 0.0f;
  for (std::int64_t p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : 0.0f;
    bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) sum += as[ty][p] * bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

void launch_smem_tiled(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                       cudaStream_t stream) {
  smem_tiled_kernel<<<swapped_grid(m, n), dim3(kTile, kTile), 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("naive", lab05::MatmulLauncher, launch_naive);
REGISTER_LAUNCHER("smem_tiled", lab05::MatmulLauncher, launch_smem_tiled);
