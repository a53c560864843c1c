#pragma once
// Lab 06, bank conflicts, exercise 3: the launcher contract of "row_sums", which every implementation of this lab
// (your student.cu, the reference, the baseline) provides. CUDA-free: host code includes it too. The transposes'
// contract is in transpose.hpp.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab06 {

/// Exercise 3, "row_sums": `in` is rows x cols, row-major and densely packed; out[r] = in[r * cols + 0] + ... +
/// in[r * cols + cols - 1] for every r < rows, in any order of addition. Tested with rows, cols >= 1.
using RowSumsLauncher = void (*)(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                 cudaStream_t stream);

}  // namespace lab06
