// Lab 04: the reduction staircase -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped. The zero of the performance scale is the baseline,
// solutions/04_reduction/baseline.cu (not shipped): for stage k > 1 the reference's stage k-1, for stage 1 stage 1
// itself.
//
// Build and grade, from the build directory:   make lab4 && ./grade lab4
// Check correctness only, with Catch2's report: ./lab4 check --impl student
// Time one stage against the reference, cub and thrust: ./lab4 time --exercise grid_stride
// The exercise sheet is labs/04_reduction/README.md.
//
// Five stages of the same sum of 2^28 floats. Every stage below starts as stage 1's kernel (correct, and slow): bring
// YOUR kernel of the previous stage into the next slot and climb one step in each. A stage's points are measured from
// the previous stage's reference, so each slot pays for its own step. Keep the launcher names and signatures:
// reduction.hpp is the contract. Every launcher that accumulates with atomicAdd must set *result to 0 first (it
// arrives poisoned with NaN).
//
//   1. atomic        one atomicAdd per element          given: already done, nothing to gain (0 performance points)
//   2. warp_atomic   warp sum by __shfl_down_sync, one atomicAdd per warp      (your stage 1 + one step)
//   3. block_atomic  block sum, one atomicAdd per block                        (your stage 2 + one step)
//   4. grid_stride   a fixed grid; each thread sums many elements first        (your stage 3 + one step)
//   5. vectorized    more bytes in flight per thread: float4 loads in the grid-stride loop, unrolled, plus the
//                    n % 4 tail (your stage 4 + one step)
// Ceiling: the device-to-device copy of the same bytes; cub::DeviceReduce::Sum and thrust::reduce are timed beside
// you in the same run.
#include "reduction.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

/// A grid for the grid-stride stages: enough blocks to fill every SM (8 blocks of 256 threads each), no more than
/// the work needs. (Unused until your stage 4.)
[[maybe_unused]] unsigned grid_for(std::int64_t items) {
  static const int sms = [] {
    int device = 0, count = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  const std::int64_t needed = (items + kThreads - 1) / kThreads;
  const std::int64_t enough = std::int64_t{sms} * 8;
  return static_cast<unsigned>(needed < enough ? (needed > 0 ? needed : 1) : enough);
}

// ---- 1. atomic ------------------------------------------------------------------------------------------------------
// Given: stage 1 is done for you (0 performance points), and it is every later stage's starting point.
// One thread per element, one atomicAdd per element: 2^28 atomics on one address, which the L2 serializes.
// slide-begin: atomic
__global__ void atomic_kernel(const float* x, float* result, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(result, x[i]);
}
// slide-end: atomic

void launch_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));  // the output arrives poisoned (NaN)
  atomic_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. warp_atomic -------------------------------------------------------------------------------------------------
// The starting point: stage 1's kernel. Make it stage 2.
void launch_warp_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  launch_atomic(x, result, n, stream);
}

// ---- 3. block_atomic ------------------------------------------------------------------------------------------------
// The starting point: stage 1's kernel. Bring your stage 2 here and make it stage 3.
void launch_block_atomic(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  launch_atomic(x, result, n, stream);
}

// ---- 4. grid_stride -------------------------------------------------------------------------------------------------
// The starting point: stage 1's kernel. Bring your stage 3 here and make it stage 4 (grid_for() above sizes the grid).
void launch_grid_stride(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  launch_atomic(x, result, n, stream);
}

// ---- 5. vectorized --------------------------------------------------------------------------------------------------
// The starting point: stage 1's kernel. Bring your stage 4 here and make it stage 5.
void launch_vectorized(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  launch_atomic(x, result, n, stream);
}

}  // namespace

REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_block_atomic);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_grid_stride);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_vectorized);
