// Known-wrong fixture: one block per full segment only, as if n were always a multiple of 256. The last, shorter
// segment is never summed (its output keeps the NaN poison), and below 256 elements nothing is.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void block_sums_kernel(const float* x, float* sums) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  s[tid] = x[blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid];
  __syncthreads();
  for (int stride = lab02::kSegment / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) sums[blockIdx.x] = s[0];
}

void launch_block_sums(const float* x, float* sums, std::int64_t n, cudaStream_t stream) {
  const std::int64_t blocks = n / lab02::kSegment;  // BUG: rounds down
  if (blocks == 0) return;
  block_sums_kernel<<<static_cast<unsigned>(blocks), lab02::kSegment, 0, stream>>>(x, sums);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("block_sums", lab02::BlockSumsLauncher, launch_block_sums);
