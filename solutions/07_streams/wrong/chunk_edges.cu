// Known-wrong fixture: a stencil pipeline whose chunks are computed as if each were the whole array: the kernel sees
// only its own chunk and takes zeros beyond the chunk's ends. Ordered correctly with events, but wrong at every
// chunk boundary: the first and last element of each chunk miss a neighbour. Right only when the array is one chunk.
#include "streams.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

constexpr int kStreams = 4;
constexpr std::int64_t kChunks = 16;

struct Streams {
  cudaStream_t s[kStreams];
  cudaEvent_t fork, joined[kStreams];
  Streams() {
    for (auto& x : s) CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (auto& e : joined) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
};
Streams& streams() {
  static Streams* s = new Streams;
  return *s;
}

__global__ void stencil_kernel(const float* x, float* y, std::int64_t len) {  // x, y: this chunk only
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < len; i += stride) {
    const float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < len ? x[i + 1] : 0.0f;  // BUG: chunk edges as zeros
    y[i] = left + 2.0f * x[i] + right;
  }
}

void launch_stencil_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                             cudaStream_t stream) {
  Streams& st = streams();
  const std::int64_t chunk = (n + kChunks - 1) / kChunks, chunks = (n + chunk - 1) / chunk;
  const int used = static_cast<int>(std::min<std::int64_t>(chunks, kStreams));
  CUDA_CHECK(cudaEventRecord(st.fork, stream));
  for (int k = 0; k < used; ++k) CUDA_CHECK(cudaStreamWaitEvent(st.s[k], st.fork, 0));
  for (std::int64_t c = 0; c < chunks; ++c) {
    const cudaStream_t s = st.s[c % kStreams];
    const std::int64_t begin = c * chunk, len = std::min(chunk, n - begin);
    const std::size_t bytes = static_cast<std::size_t>(len) * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(d_in + begin, h_in + begin, bytes, cudaMemcpyHostToDevice, s));
    stencil_kernel<<<1024, 256, 0, s>>>(d_in + begin, d_out + begin, len);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(h_out + begin, d_out + begin, bytes, cudaMemcpyDeviceToHost, s));
  }
  for (int k = 0; k < used; ++k) {
    CUDA_CHECK(cudaEventRecord(st.joined[k], st.s[k]));
    CUDA_CHECK(cudaStreamWaitEvent(stream, st.joined[k], 0));
  }
}

}  // namespace

REGISTER_LAUNCHER("stencil_pipeline", lab07::PipelineLauncher, launch_stencil_pipeline);
