#pragma once
// Lab 01, memory coalescing: the launcher contract every implementation of this lab (your student.cu, the reference,
// the baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab01 {

/// Exercise 1, "scale": y[i] = alpha * x[i] for i in [0, n).
using ScaleLauncher = void (*)(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream);

/// Exercise 2, "dot": *result = sum over i of x[i] * y[i]. The launcher must set *result itself (it is poisoned).
using DotLauncher = void (*)(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream);

/// Exercise 3, "column_sums": sums[c] = sum over r of a[r * cols + c], for a row-major rows x cols matrix.
using ColumnSumsLauncher = void (*)(const float* a, float* sums, std::int64_t rows, std::int64_t cols,
                                    cudaStream_t stream);

}  // namespace lab01
