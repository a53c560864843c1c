#pragma once
// Lab 05, tiled matmul: the launcher contract every implementation of this lab (your student.cu, the reference, the
// baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab05 {

/// All three exercises ("naive", "smem_tiled", "register_blocked"): C = A * B in FP32 (CUDA cores, no tensor cores),
/// with A (m x k), B (k x n) and C (m x n) row-major and densely packed. Every element of C must be written (C is
/// poisoned with NaN before each checked run).
using MatmulLauncher = void (*)(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                                std::int64_t k, cudaStream_t stream);

}  // namespace lab05
