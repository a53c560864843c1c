// Lab 02: the naive baseline used for grading: no performance points at or above its time.
//
// It is the shipped stub, kept here, outside the student's file, so that editing student.cu cannot move the zero of
// the grading scale. Keep the two in step when the stub changes.
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

// ---- 1. branches ---------------------------------------------------------------------------------------------
// Thread i computes element i, so lanes 0, 2, 4, ... of every warp take the even path and lanes 1, 3, 5, ... the odd
// one. A warp issues one instruction for all its lanes: it runs the even loop with the odd lanes masked off, then the
// odd loop with the even lanes masked off, and every warp pays for both paths.
__global__ void branches_kernel(const float* x, float* y, std::int64_t n, int iterations) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (i % 2 == 0) {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kEvenScale, lab02::kEvenShift);
  } else {
    for (int k = 0; k < iterations; ++k) v = fmaf(v, lab02::kOddScale, lab02::kOddShift);
  }
  y[i] = v;
}

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  branches_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n,
                                                                                                 iterations);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. block_sums -------------------------------------------------------------------------------------------
// Interleaved addressing: at step s only threads whose index is a multiple of 2s add. At s = 1 every warp has 16
// working lanes, at s = 2 eight, ...: all 8 warps of the block stay busy (each with a few lanes) until s = 32, so
// every step costs as much as the first.
__global__ void block_sums_kernel(const float* x, float* sums, std::int64_t n) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  // The bound is the run-time block size, as in the classic kernel: `%` by a run-time value is a real division, and
  // the loop cannot be unrolled away (with a compile-time bound the H200 ran it as fast as the reference).
  for (int stride = 1; stride < static_cast<int>(blockDim.x); stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
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
