#pragma once
// Lab 02, warp divergence: the launcher contract every implementation of this lab (your student.cu, the reference,
// the baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab02 {

/// The two paths of exercise 1: element i starts at v = x[i] and applies `iterations` steps of
///   even i:  v = v * kEvenScale + kEvenShift
///   odd i:   v = v * kOddScale  + kOddShift
/// (one fused multiply-add per step; fmaf or `v * a + b`, which nvcc contracts to the same instruction).
inline constexpr float kEvenScale = 0.999f;
inline constexpr float kEvenShift = 0.125f;
inline constexpr float kOddScale = -0.999f;
inline constexpr float kOddShift = 0.5f;

/// Exercise 1, "branches": y[i] = the path of (i % 2) applied `iterations` times to x[i], for i in [0, n).
/// The result for element i must land in y[i], whichever thread computes it.
using BranchesLauncher = void (*)(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream);

/// The segment length of exercise 2.
inline constexpr int kSegment = 256;

/// Exercise 2, "block_sums": sums[b] = x[256 b] + ... + x[min(256 b + 255, n - 1)] for b in [0, ceil(n / 256)):
/// the first pass of a tree reduction, one sum per 256-element segment (the last segment may be shorter).
using BlockSumsLauncher = void (*)(const float* x, float* sums, std::int64_t n, cudaStream_t stream);

}  // namespace lab02
