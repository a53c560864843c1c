#include <harness/cuda_check.hpp>

#include <cstdio>
#include <string>

namespace harness {

namespace {
std::string describe(cudaError_t code, const char* call, const char* file, int line) {
  std::string text = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                     cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  // A kernel with no SASS for this GPU needs the PTX compiler at run time, which a runner, locked down, cannot load.
  if (code == cudaErrorJitCompilerNotFound || code == cudaErrorNoKernelImageForDevice)
    text += ": the build holds no code for this GPU's architecture; configure it for this GPU (CMAKE_CUDA_ARCHITECTURES)";
  return text;
}
}  // namespace

CudaError::CudaError(cudaError_t code, const char* call, const char* file, int line)
    : std::runtime_error(describe(code, call, file, line)), code_(code) {}

bool CudaError::sticky() const noexcept {
  // After a kernel faults, every later call returns the same error: cudaGetLastError cannot clear it. Asking the
  // device is the only reliable test.
  return cudaDeviceSynchronize() != cudaSuccess;
}

void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so the next check does not report it again
    throw CudaError(code, call, file, line);
  }
}

void cuda_check_nothrow(cudaError_t code, const char* call, const char* file, int line) noexcept {
  if (code != cudaSuccess) std::fprintf(stderr, "%s\n", describe(code, call, file, line).c_str());
}

}  // namespace harness
