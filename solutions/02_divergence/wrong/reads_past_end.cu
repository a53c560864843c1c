// Known-wrong fixture: the reference's block_sums without the bound on the load, so the last, partial segment adds
// up to kSegment - 1 elements past the end of x. Right whenever n is a multiple of the segment; otherwise only the
// guard zone's contents decide whether the last sum shows it (it reads as NaN as a float: harness/common/src/problem.cpp).
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void block_sums_kernel(const float* __restrict__ x, float* __restrict__ sums, std::int64_t n) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid;
  s[tid] = x[i];  // BUG: no `i < n ? ... : 0.0f`
  __syncthreads();
  for (int stride = lab02::kSegment / 2; stride > 0; stride /= 2) {
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
