// Known-wrong fixture: a correct chunked pipeline on streams of its own, which never makes the harness's stream wait
// for them. The launcher returns, the harness's stream has nothing left to do, and its stop event fires while the
// copies are still running: the timer would report a fraction of the real time, and whoever reads h_out after
// synchronizing that stream reads poison. The check reads h_out right after the harness's stream finishes; at the
// 64 MiB and 256 MiB test sizes the pipeline needs milliseconds more, so the last chunk is still missing.
#include "streams.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

constexpr int kStreams = 4;
constexpr std::int64_t kChunks = 16;

struct Streams {
  cudaStream_t s[kStreams];
  cudaEvent_t fork, copied[kChunks];
  Streams() {
    for (auto& x : s) CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (auto& e : copied) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
};
Streams& streams() {
  static Streams* s = new Streams;
  return *s;
}

__global__ void poly_kernel(const float* x, float* y, std::int64_t begin, std::int64_t end, std::int64_t) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < end;
       i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}

__global__ void stencil_kernel(const float* x, float* y, std::int64_t begin, std::int64_t end, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < end;
       i += stride) {
    const float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = left + 2.0f * x[i] + right;
  }
}

using Kernel = void (*)(const float*, float*, std::int64_t, std::int64_t, std::int64_t);

// All copies first, each followed by an event; then each kernel waits for its own and its neighbours' copies.
void run_pipeline(Kernel kernel, const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                  cudaStream_t stream) {
  Streams& st = streams();
  CUDA_CHECK(cudaEventRecord(st.fork, stream));
  for (cudaStream_t s : st.s) CUDA_CHECK(cudaStreamWaitEvent(s, st.fork, 0));
  const std::int64_t chunk = (n + kChunks - 1) / kChunks, chunks = (n + chunk - 1) / chunk;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
    CUDA_CHECK(cudaMemcpyAsync(d_in + begin, h_in + begin, static_cast<std::size_t>(len) * sizeof(float),
                               cudaMemcpyHostToDevice, st.s[c % kStreams]));
    CUDA_CHECK(cudaEventRecord(st.copied[c], st.s[c % kStreams]));
  }
  for (std::int64_t c = 0; c < chunks; ++c) {
    const cudaStream_t s = st.s[c % kStreams];
    if (c > 0) CUDA_CHECK(cudaStreamWaitEvent(s, st.copied[c - 1], 0));
    if (c + 1 < chunks) CUDA_CHECK(cudaStreamWaitEvent(s, st.copied[c + 1], 0));
    const std::int64_t begin = c * chunk, end = std::min(begin + chunk, n);
    kernel<<<1024, 256, 0, s>>>(d_in, d_out, begin, end, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(h_out + begin, d_out + begin, static_cast<std::size_t>(end - begin) * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
  }
  // BUG: no join: `stream` should wait on an event recorded at the end of each of st.s
}

void launch_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                     cudaStream_t stream) {
  run_pipeline(poly_kernel, h_in, h_out, d_in, d_out, n, stream);
}
void launch_stencil_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                             cudaStream_t stream) {
  run_pipeline(stencil_kernel, h_in, h_out, d_in, d_out, n, stream);
}

}  // namespace

REGISTER_LAUNCHER("pipeline", lab07::PipelineLauncher, launch_pipeline);
REGISTER_LAUNCHER("stencil_pipeline", lab07::PipelineLauncher, launch_stencil_pipeline);
