#pragma once
// Lab 06's ceiling kernel for row_sums: a read-only stream of a float array, declared for host code.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab06 {

/// How many blocks launch_read_stream needs to fill every SM of the current device once (it loops over the data).
int read_stream_blocks();

/// Reads in[0 .. n) once, with 16-byte loads where it can, and writes one partial sum per warp to
/// partials[0 .. read_stream_partials(blocks)): the reads of a row reduction and almost none of its writes.
void launch_read_stream(const float* in, std::int64_t n, float* partials, int blocks, cudaStream_t stream);

/// The number of floats launch_read_stream writes with `blocks` blocks.
std::int64_t read_stream_partials(int blocks);

}  // namespace lab06
