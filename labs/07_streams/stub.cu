// Lab 07: streams -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped: it is the baseline, the zero of the performance scale.
//
// Build and grade, from the build directory:   make lab7 && ./grade lab7
// Check correctness only, with Catch2's report: ./lab7 check --impl student
// Time one exercise with its stages alone and the overlap: ./lab7 time --impl student --exercise pipeline
// The exercise sheet is labs/07_streams/README.md.
//
// Host-device copies go over the host link (PCIe or NVLink-C2C), tens of GB/s against the GPU memory's thousands:
// for a kernel that touches each element once, the copies are the whole cost. This lab is about making them fast
// and hiding them. Every function below is correct but slow. Keep the names and signatures: streams.hpp is the
// contract (read its rules on streams and events).
//
//   1. pinned_memory     the harness allocates its host arrays with your allocate(), which uses malloc: pageable
//                        memory, which the driver must copy through a pinned bounce buffer of its own. Allocate
//                        page-locked memory instead (and free it with the matching call).
//   2. pipeline          H2D of the whole array, then the kernel, then D2H: each stage waits for the one before,
//                        and the copy engines take turns. Split the array into chunks and spread them over several
//                        streams so chunk i's H2D, chunk i-1's kernel and chunk i-2's D2H run at the same time.
//   3. stencil_pipeline  the same, but element i needs elements i-1 and i+1: a chunk's kernel needs its neighbours'
//                        first and last elements on the device. Express that with events (cudaEventRecord after a
//                        chunk's copy, cudaStreamWaitEvent before its neighbours' kernels), not with a device-wide
//                        synchronization, which a launcher must never do.
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
// slide-begin: pinned_memory
void* allocate_host(std::size_t bytes) {
  void* p = std::malloc(bytes);  // pageable: copies from here are staged through a driver buffer
  if (!p) throw std::bad_alloc();
  return p;
}
void release_host(void* p) { std::free(p); }
// slide-end: pinned_memory
constexpr lab07::HostMemory kHostMemory{allocate_host, release_host};

// ---- 2. pipeline ---------------------------------------------------------------------------------------------
// Given: the stage kernel (the exercise is the pipeline around it, not the kernel).
__global__ void poly_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}

// slide-begin: pipeline
void launch_pipeline(const float* h_in, float* h_out, float* d_in, float* d_out, std::int64_t n,
                     cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
  poly_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
}
// slide-end: pipeline

// ---- 3. stencil_pipeline -------------------------------------------------------------------------------------
// Given: the stage kernel. Computes y[i] for i in [begin, end); reads x[begin - 1] and x[end] too when they exist.
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
