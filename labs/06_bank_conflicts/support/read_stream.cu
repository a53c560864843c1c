// Lab 06's ceiling for row_sums: the same bytes read as fast as this GPU reads them, with none of the exercise's
// structure. row_sums reads 4 bytes per element and writes 4 bytes per row (1/1000 of its traffic at the timed
// shape): a read stream, and a read stream is faster than a copy of the same bytes on an H200 (the anchors: a float4
// reduction read 1 GiB at 4389 GB/s, the device-to-device copy moved 2 GiB at 4221 GB/s). So the ceiling is a
// grid-stride float4 reduction over the matrix, one partial sum per warp written so that the reads cannot be
// optimized away.
#include "support/read_stream.hpp"

#include <harness/cuda_check.hpp>

namespace lab06 {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread and iteration

__global__ void read_stream_kernel(const float4* __restrict__ in, std::int64_t n4, const float* __restrict__ tail,
                                   int n_tail, float* __restrict__ partials) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  float sum = 0.0f;
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  for (; i < n4; i += stride) sum += (in[i].x + in[i].y) + (in[i].z + in[i].w);
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < n_tail) sum += tail[threadIdx.x];  // the last n % 4 floats
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) partials[(blockIdx.x * kThreads + threadIdx.x) / 32] = sum;
}

}  // namespace

int read_stream_blocks() {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream_kernel, kThreads, 0));
  return sms * per_sm;
}

std::int64_t read_stream_partials(int blocks) { return static_cast<std::int64_t>(blocks) * (kThreads / 32); }

void launch_read_stream(const float* in, std::int64_t n, float* partials, int blocks, cudaStream_t stream) {
  // `in` comes from cudaMalloc (256-byte aligned), so its first n / 4 * 4 floats are whole float4 values.
  read_stream_kernel<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(in), n / 4, in + n / 4 * 4,
                                                      static_cast<int>(n % 4), partials);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lab06
