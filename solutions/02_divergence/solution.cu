// Lab 02: warp divergence -- the reference solution (the "reference" implementation the grade is measured against).
//
// branches: 512 dependent FMAs per element and 8 bytes moved make it compute-bound; the stub's warps each run both
// paths, so the whole job is to make every warp run one. Threads are remapped in pairs of warps: warp 2p takes the
// 32 even elements of the 64-element chunk p and warp 2p+1 its 32 odd elements. Each thread still writes the element
// it computed, y[i]; only the thread-to-element map changed. The loads and stores become stride-2 (half of each
// 32-byte sector is used), which doubles a memory time that is a tenth of the arithmetic: a good trade.
//
// block_sums: sequential addressing. At step s the threads 0..s-1 add s[tid + s]: the working threads are
// contiguous, so whole warps drop out together (at s = 64 two warps work and six are idle, instead of eight warps
// with a few lanes each), and no shared-memory bank is hit twice by one warp.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

// ---- 1. branches ---------------------------------------------------------------------------------------------
__global__ void branches_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t warp = t / 32;
  const std::int64_t lane = t % 32;
  const bool odd = warp % 2 != 0;  // the same for all 32 lanes of the warp
  const std::int64_t i = (warp / 2) * 64 + 2 * lane + (odd ? 1 : 0);
  if (i >= n) return;
  float v = x[i];
  if (odd) {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  }
  y[i] = v;
}

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  const std::int64_t threads = (n + 63) / 64 * 64;  // whole warp pairs
  branches_kernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n,
                                                                                                       iterations);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. block_sums -------------------------------------------------------------------------------------------
__global__ void block_sums_kernel(const float* __restrict__ x, float* __restrict__ sums, std::int64_t n) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid;
  s[tid] = i < n ? x[i] : 0.0f;
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

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
REGISTER_LAUNCHER("block_sums", lab02::BlockSumsLauncher, launch_block_sums);
