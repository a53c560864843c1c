#pragma once
// Lab 03, warp shuffles: the launcher contract every implementation of this lab (your student.cu, the reference,
// the baseline) provides. CUDA-free: host code includes it too.
//
// Every exercise is a device function (see test_kernels.cuh for the exact calls), run by a small test kernel:
//
//   * n elements, blocks of `block` threads (any value in 1..1024, not necessarily a multiple of 32): thread t of
//     block b holds element i = b * block + t, if i < n.
//   * Warps are formed inside a block: warp w of block b is threads 32w .. 32w+31 of it; its global index is
//     g = b * ceil(block / 32) + w. Lane l of warp w is thread 32w + l.
//   * The CALLING LANES of a warp are the lanes that hold an element. They are always a prefix, lanes 0 .. k-1
//     (1 <= k <= 32), and the test kernel passes them as `mask` = (1 << k) - 1 (0xffffffff when k = 32). k < 32 in the
//     last warp of a block when block % 32 != 0 (those lanes do not exist) and in the warp holding element n-1 (those
//     lanes have returned). Lanes outside `mask` never call: a warp function must name exactly `mask` in every
//     *_sync intrinsic, and must not use a value read from a lane outside it (such a value is undefined).
//   * The operation is repeated `reps` times on x[i] * r for r = 1 .. reps and the results are added up, so that
//     the timed run measures the warp function, not the loads. With W = reps (reps + 1) / 2, the outputs are given
//     with each exercise below.
//
// Inputs are small integers, so every result is an exact integer in float and is compared bit for bit.
#include <cuda_runtime_api.h>

#include <cstdint>

#if defined(__CUDACC__)
#define LAB03_HOST_DEVICE __host__ __device__
#else
#define LAB03_HOST_DEVICE
#endif

namespace lab03 {

/// Every exercise's launcher: in = x[n], out as described per exercise, blocks of `block` threads, `reps` >= 1.
using Launcher = void (*)(const float* in, float* out, std::int64_t n, int block, int reps, cudaStream_t stream);

// Exercise 1, "warp_sum": warp_sum(v, mask) returns, in lane 0, the sum of v over the calling lanes (other lanes'
//   return values are ignored). out[g] = W * (sum of x over warp g's calling lanes), for every warp g that has at
//   least one element: out has (blocks - 1) * ceil(block / 32) + ceil(elements of the last block / 32) entries.
//
// Exercise 2, "warp_allreduce": warp_allreduce(v, mask) returns the sum over the calling lanes in EVERY calling
//   lane; warp_broadcast(v, src, mask) returns lane src's v in every calling lane (src is always a calling lane).
//   out[i] = W * (sum of x over i's warp) + sum over r of r * x[first element of the warp + broadcast_source(g, r, k)].
//
// Exercise 3, "warp_scan": warp_inclusive_scan(v, mask) returns in lane l the sum of v over lanes 0 .. l.
//   out[i] = W * (x[first element of the warp] + ... + x[i]).
//
// Exercise 4, "block_sum": block_sum(v) is called by EVERY thread of the block (threads without an element pass 0,
//   so that the function may use __syncthreads) and returns the block's total in thread 0. It may be called again
//   right away (the next repetition). out[b] = W * (sum of x over block b): one entry per block.

/// The lane exercise 2 broadcasts from in repetition `rep` of warp `g`, which has `lanes` calling lanes.
LAB03_HOST_DEVICE constexpr int broadcast_source(std::int64_t g, int rep, int lanes) {
  return static_cast<int>((g + 5 * static_cast<std::int64_t>(rep)) % lanes);
}

/// broadcast_source(g, rep + 1, lanes) from `source` = broadcast_source(g, rep, lanes), without a division: the test
/// kernel steps through its repetitions with it. (A 64-bit remainder per repetition, computed in software since the
/// GPU has no integer divider, held the reference of warp_allreduce at 1.98 ms on the course's H200, 1.32 ms without
/// it: time no student could remove, which squeezed the grading scale; results/2026-11-23-h200-37f2feb.)
LAB03_HOST_DEVICE constexpr int next_broadcast_source(int source, int lanes) {
  source += 5;
  while (source >= lanes) source -= lanes;  // at most 5 times (lanes >= 1); once when lanes >= 5
  return source;
}

}  // namespace lab03
