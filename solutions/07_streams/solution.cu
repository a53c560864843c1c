// Lab 07: streams -- the reference solution (the "reference" implementation the grade is measured against).
//
// Napkin math at 2^26 floats (256 MiB each way) on an H200 (shared/anchors): H2D 4.8 ms, kernel 0.2 ms, D2H 4.8 ms
// from pinned memory; pageable H2D 27 ms. Sequential: about 10 ms. The host link is full duplex and the GPU has
// separate copy engines per direction, so with the work in chunks the two copies and the kernel run at once. Both
// directions at once are slower than either alone (5.4 ms for the two whole copies against 4.9 ms for one on the
// course's H200: results/2026-11-23-h200-de5127e/lab07_pipeline.json), and that is the pipelines' ceiling; they
// approach it plus one chunk to fill and one to drain.
//   1. pinned_memory: cudaMallocHost. The DMA engines read and write page-locked memory directly; pageable memory
//      goes through a driver bounce buffer, one CPU memcpy per piece.
//   2. pipeline: up to 32 chunks of at least 1 MiB (8 MiB at the timed size: a 150 us copy, far above the few us a
//      copy costs to issue), one stream per stage: every H2D on `copy_in`, every kernel on `compute`, every D2H on
//      `copy_out`, so each engine works through its queue back to back. Events order each chunk's stages: its kernel
//      waits for its H2D (`copied[c]`), its D2H for its kernel (`computed[c]`). In the same run on the H200 this came
//      within 96% of the ceiling, where 64 chunks round-robin over 4 streams (H2D, kernel, D2H of a chunk in one
//      stream) came within 91%.
//   3. stencil_pipeline: chunk j's kernel also reads the last element of chunk j-1 and the first of chunk j+1. The
//      copies run in order on one stream, so the event after chunk j+1's H2D says chunks j-1, j and j+1 have all
//      landed: the kernel waits for that one event.
// Fork and join: the launcher's streams first wait on an event recorded on the harness's stream (so nothing starts
// before the harness's earlier work, such as the timer's start event), and the harness's stream finally waits on
// an event recorded at the end of each of them (so the timer's stop event comes after all of it). No host
// synchronization anywhere.
#include "streams.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

// ---- 1. pinned_memory ----------------------------------------------------------------------------------------
// slide-begin: pinned_memory
void* allocate_host(std::size_t bytes) {
  void* p = nullptr;
  CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}
void release_host(void* p) { CUDA_CHECK_NOTHROW(cudaFreeHost(p)); }
// slide-end: pinned_memory
constexpr lab07::HostMemory kHostMemory{allocate_host, release_host};

// ---- the pipelines' streams and events -----------------------------------------------------------------------
constexpr std::int64_t kMaxChunks = 32;
constexpr std::int64_t kMinChunk = std::int64_t{1} << 18;  // elements: 1 MiB

/// Created on first use and kept for the life of the process (deliberately never destroyed: at exit the CUDA
/// runtime may already be gone, and the driver reclaims them with the context).
struct Pipeline {
  cudaStream_t copy_in, compute, copy_out;  // one stream per stage: the H2D engine, the SMs, the D2H engine
  cudaEvent_t fork, joined[3];
  cudaEvent_t copied[kMaxChunks], computed[kMaxChunks];  // chunk c's H2D done; chunk c's kernel done
  Pipeline() {
    for (cudaStream_t* s : {&copy_in, &compute, &copy_out})
      CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (auto& e : joined) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto& e : copied) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto& e : computed) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
};
Pipeline& pipeline() {
  static Pipeline* p = new Pipeline;
  return *p;
}

/// Chunk length: n split in at most kMaxChunks pieces of at least kMinChunk elements, a multiple of 1024 (4 KiB).
std::int64_t chunk_length(std::int64_t n) {
  const std::int64_t even = (n + kMaxChunks - 1) / kMaxChunks;
  return (std::max(even, kMinChunk) + 1023) / 1024 * 1024;
}

// slide-begin: fork_join
/// The three streams wait for the harness's earlier work.
void fork(Pipeline& p, cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(p.fork, stream));
  for (cudaStream_t s : {p.copy_in, p.compute, p.copy_out}) CUDA_CHECK(cudaStreamWaitEvent(s, p.fork, 0));
}
/// The harness's stream waits for everything the launcher enqueued.
void join(Pipeline& p, cudaStream_t stream) {
  int k = 0;
  for (cudaStream_t s : {p.copy_in, p.compute, p.copy_out}) {
    CUDA_CHECK(cudaEventRecord(p.joined[k], s));
    CUDA_CHECK(cudaStreamWaitEvent(stream, p.joined[k++], 0));
  }
}
// slide-end: fork_join

constexpr int kThreads = 256;
unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1024 ? (b > 0 ? b : 1) : 1024);
}

/// Chunk c's H2D on copy_in, and the event that says it has landed.
void copy_in(Pipeline& p, const float* h_in, float* d_in, std::int64_t n, std::int64_t chunk, std::int64_t c) {
  const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
  CUDA_CHECK(cudaMemcpyAsync(d_in + begin, h_in + begin, static_cast<std::size_t>(len) * sizeof(float),
                             cudaMemcpyHostToDevice, p.copy_in));
  CUDA_CHECK(cudaEventRecord(p.copied[c], p.copy_in));
}
/// Chunk c's D2H on copy_out, once its kernel (recorded in computed[c]) is done.
void copy_out(Pipeline& p, const float* d_out, float* h_out, std::int64_t n, std::int64_t chunk, std::int64_t c) {
  const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
  CUDA_CHECK(cudaEventRecord(p.computed[c], p.compute));
  CUDA_CHECK(cudaStreamWaitEvent(p.copy_out, p.computed[c], 0));
  CUDA_CHECK(cudaMemcpyAsync(h_out + begin, d_out + begin, static_cast<std::size_t>(len) * sizeof(float),
                             cudaMemcpyDeviceToHost, p.copy_out));
}

// ---- 2. pipeline ---------------------------------------------------------------------------------------------
__global__ void poly_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}

// slide-begin: pipeline
void launch_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                     cudaStream_t stream) {
  Pipeline& p = pipeline();
  const std::int64_t chunk = chunk_length(n), chunks = (n + chunk - 1) / chunk;
  fork(p, stream);
  for (std::int64_t c = 0; c < chunks; ++c) {
    copy_in(p, h_in, d_in, n, chunk, c);
    CUDA_CHECK(cudaStreamWaitEvent(p.compute, p.copied[c], 0));  // the kernel waits for its own chunk only
    const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
    poly_kernel<<<blocks_for(len), kThreads, 0, p.compute>>>(d_in + begin, d_out + begin, len);
    CUDA_CHECK_LAUNCH();
    copy_out(p, d_out, h_out, n, chunk, c);
  }
  join(p, stream);
}
// slide-end: pipeline

// ---- 3. stencil_pipeline -------------------------------------------------------------------------------------
__global__ void stencil_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t begin,
                               std::int64_t end, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < end;
       i += stride) {
    const float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = left + 2.0f * x[i] + right;
  }
}

// slide-begin: stencil
void launch_stencil_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                             cudaStream_t stream) {
  Pipeline& p = pipeline();
  const std::int64_t chunk = chunk_length(n), chunks = (n + chunk - 1) / chunk;
  fork(p, stream);
  const auto compute = [&](std::int64_t j) {  // chunk j's kernel and D2H
    // The H2Ds run in order on copy_in: once chunk j+1's has landed, so have j's and j-1's.
    CUDA_CHECK(cudaStreamWaitEvent(p.compute, p.copied[std::min(j + 1, chunks - 1)], 0));
    const std::int64_t begin = j * chunk, end = std::min(begin + chunk, n);
    stencil_kernel<<<blocks_for(end - begin), kThreads, 0, p.compute>>>(d_in, d_out, begin, end, n);
    CUDA_CHECK_LAUNCH();
    copy_out(p, d_out, h_out, n, chunk, j);
  };
  for (std::int64_t c = 0; c < chunks; ++c) {
    copy_in(p, h_in, d_in, n, chunk, c);
    if (c > 0) compute(c - 1);  // chunk c-1's right neighbour (chunk c) is now on its way
  }
  compute(chunks - 1);
  join(p, stream);
}
// slide-end: stencil

}  // namespace

REGISTER_LAUNCHER("pinned_memory", lab07::HostMemory, kHostMemory);
REGISTER_LAUNCHER("pipeline", lab07::PipelineLauncher, launch_pipeline);
REGISTER_LAUNCHER("stencil_pipeline", lab07::PipelineLauncher, launch_stencil_pipeline);
