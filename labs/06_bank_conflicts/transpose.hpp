#pragma once
// Lab 06, bank conflicts: the launcher contract every implementation of this lab (your student.cu, the reference,
// the baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab06 {

/// Both exercises ("transpose_tiled", "transpose_padded"): `in` is rows x cols and `out` cols x rows, both
/// row-major and densely packed; out[c * rows + r] = in[r * cols + c] for every r < rows, c < cols.
using TransposeLauncher = void (*)(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                   cudaStream_t stream);

}  // namespace lab06
