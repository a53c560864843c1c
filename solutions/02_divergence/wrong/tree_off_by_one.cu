// Known-wrong fixture: sequential addressing with the loop stopping one step early (`stride > 1`), so s[1] is never
// added into s[0]: every segment with more than one element misses the half of its elements whose index is odd
// (s[1] holds their partial sum). Nonzero integer inputs make that sum nonzero in almost every segment.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void block_sums_kernel(const float* x, float* sums, std::int64_t n) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = lab02::kSegment / 2; stride > 1; stride /= 2) {  // BUG: `stride > 0`
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) sums[blockIdx.x] = s[0];
}

void launch_block_sums(const float* x, float* sums, std::int64_t n, cudaStream_t stream) {
  const std::int64_t blocks = (n + lab02::kSegment - 1) / lab02::kSegment;
  block_sums_kernel<<<static_cast<unsigned>(blocks), lab02::kSegment, 0, stream>>>(x, sums, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("block_sums", lab02::BlockSumsLauncher, launch_block_sums);
