#pragma once
// The compute ceiling of lab 02's "branches" and "regroup": the same chains of fused multiply-adds with no
// divergence. CUDA-free (measures.cpp wraps it in a harness::CeilingOp; harness/problem.hpp is C++20, which device
// code is not).
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab02 {

/// Launches n threads in 256-thread blocks, each running `iterations` dependent FMAs of the even path on a register
/// and storing the result in out[t]: what the exercise's arithmetic costs when every warp takes one path. Does not
/// synchronize.
void launch_fma_chains(float* out, std::int64_t n, int iterations, cudaStream_t stream);

}  // namespace lab02
