// Lab 02: warp divergence -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped: it is the baseline, the zero of the performance scale.
//
// Build and grade, from the build directory:   make lab2 && ./grade lab2
// Check correctness only, with Catch2's report: ./lab2 check --impl student
// The exercise sheet is labs/02_divergence/README.md.
//
// All three launchers below are correct but slow, and all three are about which thread does which work. The 32 lanes
// of a warp are issued together, so when lanes of one warp take different sides of a branch the warp runs both sides
// one after the other, each with part of its lanes switched off (branches, regroup: the cost is the side the masked
// lanes wait through). block_sums is the classic divergent tree, measured: its idle lanes cost little, and what does
// cost is the test that picks the working lanes, evaluated by every lane of every warp at every step. Keep the
// launcher names and signatures: divergence.hpp is the contract.
//
//   1. branches    y[i] = even or odd path of x[i]   ceiling: the same FMAs with no divergence (compute-bound)
//                  Remap threads to elements so each warp holds only even or only odd elements; y[i] stays y[i].
//   2. block_sums  one sum per 256 elements          ceiling: the copy (reads 4 bytes per element)
//                  Pick the working threads without a division: sequential addressing (`tid < stride`), which also
//                  keeps them contiguous. The sheet's "What block_sums' stub really costs" splits the gap.
//   3. regroup     y[i] = heavy or light path of x[i] ceiling: the same FMAs, heavy ones in full warps (compute-bound)
//                  Two passes: the light path for all, appending the heavy indices to the worklist (few atomics:
//                  one per block); then the heavy path over the worklist, 32 heavy elements per warp; y[i] stays y[i].
#include "divergence.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

// ---- 1. branches ---------------------------------------------------------------------------------------------
// Thread i computes element i, so lanes 0, 2, 4, ... of every warp take the even path and lanes 1, 3, 5, ... the odd
// one. A warp issues one instruction for all its lanes: it runs the even loop with the odd lanes masked off, then the
// odd loop with the even lanes masked off, and every warp pays for both paths.
// slide-begin: branches
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
// slide-end: branches

void launch_branches(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream) {
  branches_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n,
                                                                                                 iterations);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. block_sums -------------------------------------------------------------------------------------------
// Interleaved addressing: at step s only threads whose index is a multiple of 2s add. At s = 1 every warp has 16
// working lanes, at s = 2 eight, ...: all 8 warps of the block stay busy (each with a few lanes) until s = 32. That
// divergence costs a few issue slots per step; the test itself, `%` by a run-time value, is an integer division
// routine that all 256 threads run at every step, and it is most of this kernel's time.
__global__ void block_sums_kernel(const float* x, float* sums, std::int64_t n) {
  __shared__ float s[lab02::kSegment];
  const int tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(lab02::kSegment) + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  // The bound is the run-time block size, as in the classic kernel: `%` by a run-time value is a real division, and
  // the loop cannot be unrolled away (with a compile-time bound the H200 ran it as fast as the reference).
  // slide-begin: block_sums
  for (int stride = 1; stride < static_cast<int>(blockDim.x); stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  // slide-end: block_sums
  if (tid == 0) sums[blockIdx.x] = s[0];
}

void launch_block_sums(const float* x, float* sums, std::int64_t n, cudaStream_t stream) {
  const std::int64_t blocks = (n + lab02::kSegment - 1) / lab02::kSegment;
  block_sums_kernel<<<static_cast<unsigned>(blocks), lab02::kSegment, 0, stream>>>(x, sums, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. regroup ----------------------------------------------------------------------------------------------
// Thread i computes element i, heavy when x[i] >= threshold. At the timed size 1 element in 16 is heavy, scattered at
// random, so 7 warps in 8 hold at least one heavy lane: such a warp runs the 4096-step heavy loop for its one or two
// heavy lanes while the others sit masked off, then the 16-step light loop for them. Nearly every warp pays for the
// heavy path: the GPU issues 14 times the heavy instructions the input needs. The scratch is not used here.
// slide-begin: regroup
__global__ void regroup_kernel(const float* x, float* y, std::int64_t n, float threshold, int heavy_steps,
                               int light_steps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (v >= threshold) {
    for (int k = 0; k < heavy_steps; ++k) v = fmaf(v, lab02::kHeavyScale, lab02::kHeavyShift);
  } else {
    for (int k = 0; k < light_steps; ++k) v = fmaf(v, lab02::kLightScale, lab02::kLightShift);
  }
  y[i] = v;
}
// slide-end: regroup

void launch_regroup(const float* x, float* y, std::int64_t n, float threshold, int heavy_steps, int light_steps,
                    int* /*worklist*/, int* /*count*/, cudaStream_t stream) {
  regroup_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      x, y, n, threshold, heavy_steps, light_steps);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("branches", lab02::BranchesLauncher, launch_branches);
REGISTER_LAUNCHER("block_sums", lab02::BlockSumsLauncher, launch_block_sums);
REGISTER_LAUNCHER("regroup", lab02::RegroupLauncher, launch_regroup);
