// Lab 07: streams -- the reference solution (the "reference" implementation the grade is measured against).
//
// Napkin math at 2^26 floats (256 MiB each way) on an H200 (shared/anchors): H2D 4.8 ms, kernel 0.2 ms, D2H 4.8 ms
// from pinned memory; pageable H2D 27 ms. Sequential: about 10 ms. The host link is full duplex and the GPU has
// separate copy engines per direction, so with the work in chunks the two copies and the kernel run at once and
// the pipeline approaches its slowest stage, about 4.8 ms, plus one chunk to fill and one to drain.
//   1. pinned_memory: cudaMallocHost. The DMA engines read and write page-locked memory directly; pageable memory
//      goes through a driver bounce buffer, one CPU memcpy per piece.
//   2. pipeline: up to 64 chunks of at least 1 MiB (4 MiB at the timed size: a 76 us copy, far above the few us a
//      copy costs to issue), round-robin over 4 streams. In each stream a chunk's H2D, kernel and D2H follow each
//      other; chunks on different streams overlap. With 4 streams, chunk i+4's H2D (queued behind chunk i's D2H)
//      is never held up: chunk i's D2H ends about when chunk i+2's H2D does.
//   3. stencil_pipeline: chunk j's kernel also reads the last element of chunk j-1 and the first of chunk j+1, which
//      other streams copy. An event recorded after each chunk's H2D, and a cudaStreamWaitEvent on the neighbours'
//      events before each kernel, order exactly those pairs; the copies are issued one chunk ahead of the kernels
//      so the event a kernel waits on has been recorded when the wait is enqueued.
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
constexpr int kStreams = 4;
constexpr std::int64_t kMaxChunks = 64;
constexpr std::int64_t kMinChunk = std::int64_t{1} << 18;  // elements: 1 MiB

/// Created on first use and kept for the life of the process (deliberately never destroyed: at exit the CUDA
/// runtime may already be gone, and the driver reclaims them with the context).
struct Pipeline {
  cudaStream_t streams[kStreams];
  cudaEvent_t fork;
  cudaEvent_t joined[kStreams];
  cudaEvent_t copied[kMaxChunks];
  Pipeline() {
    for (auto& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (auto& e : joined) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto& e : copied) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
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
/// Every stream the work will use waits for the harness's earlier work.
int fork(Pipeline& p, std::int64_t chunks, cudaStream_t stream) {
  const int used = static_cast<int>(std::min<std::int64_t>(chunks, kStreams));
  CUDA_CHECK(cudaEventRecord(p.fork, stream));
  for (int k = 0; k < used; ++k) CUDA_CHECK(cudaStreamWaitEvent(p.streams[k], p.fork, 0));
  return used;
}
/// The harness's stream waits for everything the launcher enqueued.
void join(Pipeline& p, int used, cudaStream_t stream) {
  for (int k = 0; k < used; ++k) {
    CUDA_CHECK(cudaEventRecord(p.joined[k], p.streams[k]));
    CUDA_CHECK(cudaStreamWaitEvent(stream, p.joined[k], 0));
  }
}
// slide-end: fork_join

constexpr int kThreads = 256;
unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1024 ? (b > 0 ? b : 1) : 1024);
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
  const int used = fork(p, chunks, stream);
  for (std::int64_t c = 0; c < chunks; ++c) {
    const cudaStream_t s = p.streams[c % kStreams];
    const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
    const std::size_t bytes = static_cast<std::size_t>(len) * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(d_in + begin, h_in + begin, bytes, cudaMemcpyHostToDevice, s));
    poly_kernel<<<blocks_for(len), kThreads, 0, s>>>(d_in + begin, d_out + begin, len);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(h_out + begin, d_out + begin, bytes, cudaMemcpyDeviceToHost, s));
  }
  join(p, used, stream);
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
  const int used = fork(p, chunks, stream);
  const auto compute = [&](std::int64_t j) {  // chunk j's kernel and D2H, once its neighbours' copies are issued
    const cudaStream_t s = p.streams[j % kStreams];
    if (j > 0) CUDA_CHECK(cudaStreamWaitEvent(s, p.copied[j - 1], 0));
    if (j + 1 < chunks) CUDA_CHECK(cudaStreamWaitEvent(s, p.copied[j + 1], 0));
    const std::int64_t begin = j * chunk, end = std::min(begin + chunk, n);
    stencil_kernel<<<blocks_for(end - begin), kThreads, 0, s>>>(d_in, d_out, begin, end, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(h_out + begin, d_out + begin, static_cast<std::size_t>(end - begin) * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
  };
  for (std::int64_t c = 0; c < chunks; ++c) {
    const cudaStream_t s = p.streams[c % kStreams];
    const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
    CUDA_CHECK(cudaMemcpyAsync(d_in + begin, h_in + begin, static_cast<std::size_t>(len) * sizeof(float),
                               cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaEventRecord(p.copied[c], s));
    if (c > 0) compute(c - 1);  // chunk c-1's right neighbour (chunk c) now has its event recorded
  }
  compute(chunks - 1);
  join(p, used, stream);
}
// slide-end: stencil

}  // namespace

REGISTER_LAUNCHER("pinned_memory", lab07::HostMemory, kHostMemory);
REGISTER_LAUNCHER("pipeline", lab07::PipelineLauncher, launch_pipeline);
REGISTER_LAUNCHER("stencil_pipeline", lab07::PipelineLauncher, launch_stencil_pipeline);
