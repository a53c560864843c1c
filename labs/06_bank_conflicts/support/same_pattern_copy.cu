// Lab 06's ceiling: the transpose's global-memory traffic without the transpose. It reads a 32 x 32 tile row by row
// and writes it row by row to the same place, so every warp access is 32 consecutive words on both sides, which is
// what the shared-memory tile buys the transpose. A transpose can at best match it: it moves the same bytes in the
// same 128-byte pieces, and adds a round trip through shared memory and a barrier.
#include "support/same_pattern_copy.hpp"

#include <harness/cuda_check.hpp>

namespace lab06 {
namespace {

constexpr int kTile = 32, kRows = 8;

__global__ void same_pattern_copy_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                         std::int64_t cols) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (r0 + j < rows && c < cols) out[(r0 + j) * cols + c] = in[(r0 + j) * cols + c];
}

}  // namespace

void launch_same_pattern_copy(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
  same_pattern_copy_kernel<<<grid, dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lab06
