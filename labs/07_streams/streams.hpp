#pragma once
// Lab 07, streams: the contract every implementation of this lab (your student.cu, the reference, the baseline)
// provides. CUDA-free: host code includes it too.
//
// Host pointers point to memory the harness allocated (exercise 1: with your allocator; exercises 2 and 3: pinned,
// with cudaMallocHost); device pointers to cudaMalloc'd scratch of n floats each, yours to use as you like. A launcher
// enqueues its work and returns without synchronizing (no cudaDeviceSynchronize, no cudaStreamSynchronize): the
// harness times it by events recorded on `stream` before and after the call. It may use streams and events of its
// own, but then all of its work must come after the harness's earlier work on `stream` (make your streams wait on an
// event recorded on `stream` first) and before the harness's next one (make `stream` wait on an event recorded on
// each of your streams last).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace lab07 {

/// Exercise 1, "pinned_memory": where the host arrays come from. The harness allocates the input and the output
/// with `allocate`, fills the input, copies it to the device and back with cudaMemcpyAsync, and frees both arrays
/// with `release`. Registered as a value: `constexpr lab07::HostMemory kHostMemory{allocate, release};`.
struct HostMemory {
  void* (*allocate)(std::size_t bytes);  ///< throws (or returns nullptr) when out of memory
  void (*release)(void* p);              ///< must not throw
};

/// Exercises 2 and 3: copy h_in[0, n) to the device, compute, copy the result to h_out[0, n).
///   "pipeline":         h_out[i] = h_in[i]^2 + 3 h_in[i] - 1
///   "stencil_pipeline": h_out[i] = h_in[i-1] + 2 h_in[i] + h_in[i+1], with h_in[-1] = h_in[n] = 0
/// d_in and d_out are device scratch of n floats each.
using PipelineLauncher = void (*)(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                                  cudaStream_t stream);

}  // namespace lab07
