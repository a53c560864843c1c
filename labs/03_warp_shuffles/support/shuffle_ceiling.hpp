#pragma once
// The ceiling of lab 03: the shuffle unit's rate, measured with the plainest possible warp reduction. CUDA-free
// (measures.cpp wraps it in a harness::CeilingOp; harness/problem.hpp is C++20, which device code is not).
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab03 {

/// Launches n threads rounded up to full 256-thread blocks, each running `reps` five-step __shfl_xor_sync
/// all-reductions of a register (full warps, no partial masks, no loads); the first n store their total in out.
/// Does not synchronize.
void launch_butterflies(float* out, std::int64_t n, int reps, cudaStream_t stream);

}  // namespace lab03
