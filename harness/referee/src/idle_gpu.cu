// IdleGpu (timing.hpp): an empty kernel, launched and waited for by the host.
#include <harness/cuda_check.hpp>
#include <harness/timing.hpp>

#include <chrono>

namespace harness {
namespace {

__global__ void probe_kernel() {}

}  // namespace

IdleGpu::IdleGpu(cudaStream_t stream) : stream_(stream) { probe_ms(); }

double IdleGpu::probe_ms() {
  const auto start = std::chrono::steady_clock::now();
  probe_kernel<<<1, 32, 0, stream_>>>();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double IdleGpu::wait(double limit_s) {
  const auto start = std::chrono::steady_clock::now();
  for (bool first = true;; first = false) {
    if (probe_ms() < kBusyProbeMs)
      return first ? 0.0 : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(limit_s)) return -1.0;
  }
}

}  // namespace harness
