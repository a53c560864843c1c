#pragma once
// Lab 04, the reduction staircase: the launcher contract every implementation of this lab (your student.cu, the
// reference, the baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab04 {

/// Every stage computes the same thing: *result = x[0] + ... + x[n-1], n >= 1, in float, in any order.
/// *result is poisoned (NaN) before every run: a launcher that accumulates into it with atomics must first set it
/// to 0 itself (cudaMemsetAsync on the same stream).
using SumLauncher = void (*)(const float* x, float* result, std::int64_t n, cudaStream_t stream);

/// The stages, in teaching order; each is an exercise of its own with the same launcher type:
///   "atomic"        one atomicAdd per element (given)
///   "warp_atomic"   a warp sum by shuffles, then one atomicAdd per warp
///   "block_atomic"  a block sum (warp sums, one shared slot per warp), then one atomicAdd per block
///   "grid_stride"   a fixed grid; each thread first adds up many elements in a register, then block sum + atomic
///   "vectorized"    the grid-stride loop with 16-byte float4 loads (and the n % 4 tail)
inline constexpr const char* kStages[] = {"atomic", "warp_atomic", "block_atomic", "grid_stride", "vectorized"};

}  // namespace lab04
