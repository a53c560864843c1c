#pragma once
// Lab 00, the GPU's budget: the launcher contract every implementation of this lab (your student.cu, the reference,
// the baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab00 {

/// Exercise 1, "ilp": y[i] = alpha * x[i] for i in [0, n), at a fixed low occupancy. Its contract is a kernel, not
/// a launcher: the harness launches it, one block of kIlpThreads threads per SM (cudaDevAttrMultiProcessorCount
/// blocks), so 4 warps per SM must keep the memory system busy and only independent work per thread (ILP) can. The
/// launch shape is not yours to change: more warps are not this exercise's route (exercise 2 takes that one).
constexpr int kIlpThreads = 128;
using IlpKernel = void (*)(const float* x, float* y, std::int64_t n, float alpha);

/// Exercise 2, "occupancy": y[i] = alpha * x[i] for i in [0, n). Rule: one float4 (four elements) per thread, the
/// n % 4 tail one float per thread: bytes in flight must come from resident warps (occupancy), not from more work
/// per thread.
using OccupancyLauncher = void (*)(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream);

/// Exercise 3, "waves": h[i] = mix(x[i], i, rounds) for i in [0, n) (mix() below, the same function on host and
/// device): a fixed amount of arithmetic per element, so every block of the same size does the same work and
/// the grid's shape decides how the last wave fills the GPU.
using WavesLauncher = void (*)(const float* x, float* h, std::int64_t n, int rounds, cudaStream_t stream);

/// The per-element work of exercise 3: the integer value of x, mixed with its index, through `rounds` rounds of a
/// 32-bit hash (lowbias32), keeping the low 24 bits so the result is exact as a float. No closed form skips rounds.
#ifdef __CUDACC__
__host__ __device__
#endif
inline float mix(float x, std::int64_t i, int rounds) {
  auto v = static_cast<std::uint32_t>(static_cast<std::int32_t>(x)) ^ (static_cast<std::uint32_t>(i) * 0x9E3779B9u);
  for (int r = 0; r < rounds; ++r) {
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
  }
  return static_cast<float>(v & 0xFFFFFFu);
}

}  // namespace lab00
