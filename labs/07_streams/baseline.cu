// Lab 07: the naive baseline used for grading: no performance points at or above its time. Its pipelines are the
// "sequential" of the overlap metric.
//
// It is the shipped stub, kept here, outside the student's file, so that editing student.cu cannot move the zero of
// the grading scale. Keep the two in step when the stub changes.
#include "streams.hpp"

#include <harness/launcher.hpp>

#include <cstdlib>
#include <new>

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

// ---- 1. pinned_memory ----------------------------------------------------------------------------------------
void* allocate_host(std::size_t bytes) {
  void* p = std::malloc(bytes);  // pageable: copies from here are staged through a driver buffer
  if (!p) throw std::bad_alloc();
  return p;
}
void release_host(void* p) { std::free(p); }
constexpr lab07::HostMemory kHostMemory{allocate_host, release_host};

// ---- 2. pipeline ---------------------------------------------------------------------------------------------
__global__ void poly_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}

void launch_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                     cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
  poly_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
}

// ---- 3. stencil_pipeline -------------------------------------------------------------------------------------
// Computes y[i] for i in [begin, end); reads x[begin - 1] and x[end] too when they exist.
__global__ void stencil_kernel(const float* x, float* y, std::int64_t begin, std::int64_t end, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < end;
       i += stride) {
    const float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = left + 2.0f * x[i] + right;
  }
}

void launch_stencil_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                             cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
  stencil_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_in, d_out, 0, n, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
}

}  // namespace

REGISTER_LAUNCHER("pinned_memory", lab07::HostMemory, kHostMemory);
REGISTER_LAUNCHER("pipeline", lab07::PipelineLauncher, launch_pipeline);
REGISTER_LAUNCHER("stencil_pipeline", lab07::PipelineLauncher, launch_stencil_pipeline);
