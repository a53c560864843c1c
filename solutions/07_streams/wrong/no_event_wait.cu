// Known-wrong fixture: a pipeline with one stream per stage (copy-in, compute, copy-out) that orders the copy-out
// after the kernel with an event but forgets the event between the copy-in and the kernel. The compute stream is
// idle, so chunk 0's kernel starts as soon as it is launched, while its 64 MiB copy (a quarter of the timed size;
// at least a quarter of any size) has barely begun: it reads the device scratch before the data lands. The harness
// poisons that scratch with NaN, so the race is lost visibly, not by luck: on every size large enough that a copy
// takes longer than a kernel launch.
#include "streams.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

constexpr int kChunks = 4;

struct Streams {
  cudaStream_t in, compute, out;
  cudaEvent_t fork, computed[kChunks], in_done, compute_done, out_done;
  Streams() {
    for (auto* s : {&in, &compute, &out}) CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    for (auto* e : {&fork, &in_done, &compute_done, &out_done})
      CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    for (auto& e : computed) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
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

void run_pipeline(Kernel kernel, const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                  cudaStream_t stream) {
  Streams& st = streams();
  CUDA_CHECK(cudaEventRecord(st.fork, stream));
  for (cudaStream_t s : {st.in, st.compute, st.out}) CUDA_CHECK(cudaStreamWaitEvent(s, st.fork, 0));
  const std::int64_t chunk = (n + kChunks - 1) / kChunks;
  for (int c = 0; c < kChunks && c * chunk < n; ++c) {
    const std::int64_t begin = c * chunk, end = std::min(begin + chunk, n);
    const std::size_t bytes = static_cast<std::size_t>(end - begin) * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(d_in + begin, h_in + begin, bytes, cudaMemcpyHostToDevice, st.in));
    // BUG: no cudaStreamWaitEvent(st.compute, <event recorded after the copy above>) before the kernel
    kernel<<<1024, 256, 0, st.compute>>>(d_in, d_out, begin, end, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(st.computed[c], st.compute));
    CUDA_CHECK(cudaStreamWaitEvent(st.out, st.computed[c], 0));
    CUDA_CHECK(cudaMemcpyAsync(h_out + begin, d_out + begin, bytes, cudaMemcpyDeviceToHost, st.out));
  }
  CUDA_CHECK(cudaEventRecord(st.in_done, st.in));
  CUDA_CHECK(cudaEventRecord(st.compute_done, st.compute));
  CUDA_CHECK(cudaEventRecord(st.out_done, st.out));
  for (cudaEvent_t e : {st.in_done, st.compute_done, st.out_done}) CUDA_CHECK(cudaStreamWaitEvent(stream, e, 0));
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
