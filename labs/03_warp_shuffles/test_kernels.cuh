#pragma once
// Lab 03's test kernels and launchers, shared by every implementation: an implementation is a struct `Ops` of
// static __device__ functions (warp_sum, warp_allreduce, warp_broadcast, warp_inclusive_scan, block_sum), and
// registers `lab03::launch_warp_sum<Ops>` and the others. The kernels are the harness's part of the exercise:
// they decide which lanes call and what is stored (warp_shuffles.hpp says it in words). Edit Ops, not these.
#include "warp_shuffles.hpp"

#include <harness/cuda_check.hpp>

namespace lab03 {

/// The calling lanes of the current thread's warp: the lanes whose element is below n, a prefix of the warp.
__device__ inline unsigned calling_lanes(std::int64_t n) {
  const std::int64_t block_start = blockIdx.x * static_cast<std::int64_t>(blockDim.x);
  const std::int64_t in_block = n - block_start < blockDim.x ? n - block_start : blockDim.x;
  const std::int64_t k = in_block - 32 * static_cast<std::int64_t>(threadIdx.x / 32);
  return k >= 32 ? 0xffffffffu : k <= 0 ? 0u : (1u << k) - 1u;
}

/// Global index of the current thread's warp: b * ceil(blockDim / 32) + w.
__device__ inline std::int64_t warp_index() {
  return blockIdx.x * static_cast<std::int64_t>((blockDim.x + 31) / 32) + threadIdx.x / 32;
}

template <class Ops>
__global__ void warp_sum_kernel(const float* x, float* out, std::int64_t n, int reps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const unsigned mask = calling_lanes(n);
  if (i >= n) return;  // lanes without an element leave; the rest are exactly `mask`
  const float v = x[i];
  float acc = 0.0f;
  for (int r = 1; r <= reps; ++r) acc += Ops::warp_sum(v * static_cast<float>(r), mask);
  if (threadIdx.x % 32 == 0) out[warp_index()] = acc;
}

template <class Ops>
__global__ void warp_allreduce_kernel(const float* x, float* out, std::int64_t n, int reps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const unsigned mask = calling_lanes(n);
  if (i >= n) return;
  const float v = x[i];
  const std::int64_t g = warp_index();
  const int lanes = __popc(mask);
  float acc = 0.0f;
  int source = broadcast_source(g, 0, lanes);  // one remainder per thread; each repetition steps from the last
  for (int r = 1; r <= reps; ++r) {
    const float w = v * static_cast<float>(r);
    source = next_broadcast_source(source, lanes);
    acc += Ops::warp_allreduce(w, mask) + Ops::warp_broadcast(w, source, mask);
  }
  out[i] = acc;
}

template <class Ops>
__global__ void warp_scan_kernel(const float* x, float* out, std::int64_t n, int reps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const unsigned mask = calling_lanes(n);
  if (i >= n) return;
  const float v = x[i];
  float acc = 0.0f;
  for (int r = 1; r <= reps; ++r) acc += Ops::warp_inclusive_scan(v * static_cast<float>(r), mask);
  out[i] = acc;
}

template <class Ops>
__global__ void block_sum_kernel(const float* x, float* out, std::int64_t n, int reps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = i < n ? x[i] : 0.0f;  // no early exit: every thread of the block calls block_sum
  float acc = 0.0f;
  for (int r = 1; r <= reps; ++r) acc += Ops::block_sum(v * static_cast<float>(r));
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

inline unsigned blocks_for(std::int64_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

template <class Ops>
void launch_warp_sum(const float* in, float* out, std::int64_t n, int block, int reps, cudaStream_t stream) {
  warp_sum_kernel<Ops><<<blocks_for(n, block), block, 0, stream>>>(in, out, n, reps);
  CUDA_CHECK_LAUNCH();
}
template <class Ops>
void launch_warp_allreduce(const float* in, float* out, std::int64_t n, int block, int reps, cudaStream_t stream) {
  warp_allreduce_kernel<Ops><<<blocks_for(n, block), block, 0, stream>>>(in, out, n, reps);
  CUDA_CHECK_LAUNCH();
}
template <class Ops>
void launch_warp_scan(const float* in, float* out, std::int64_t n, int block, int reps, cudaStream_t stream) {
  warp_scan_kernel<Ops><<<blocks_for(n, block), block, 0, stream>>>(in, out, n, reps);
  CUDA_CHECK_LAUNCH();
}
template <class Ops>
void launch_block_sum(const float* in, float* out, std::int64_t n, int block, int reps, cudaStream_t stream) {
  block_sum_kernel<Ops><<<blocks_for(n, block), block, 0, stream>>>(in, out, n, reps);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lab03
