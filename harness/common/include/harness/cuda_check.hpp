#pragma once
/// @file cuda_check.hpp
/// @brief Error handling for CUDA runtime calls: exceptions, never exit().
///
/// The grader runs every lab binary as a child process, but inside a lab binary one failing case must still be able to
/// report itself and let the next case run; so errors become exceptions that carry where and what failed.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace harness {

/// A failed CUDA runtime call: carries the call text, file:line and the error's name and description.
class CudaError : public std::runtime_error {
 public:
  /// Describes the failed `call` at `file`:`line` with the name and text of `code`.
  CudaError(cudaError_t code, const char* call, const char* file, int line);
  /// The CUDA error code (for example cudaErrorIllegalAddress).
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }
  /// True for errors that leave the context unusable; after one, no further CUDA work can succeed in this process.
  [[nodiscard]] bool sticky() const noexcept;

 private:
  cudaError_t code_;
};

/// Throws CudaError if `code` is not cudaSuccess. Use through CUDA_CHECK.
void cuda_check(cudaError_t code, const char* call, const char* file, int line);
/// Reports (to stderr) instead of throwing: for destructors, which must not throw.
void cuda_check_nothrow(cudaError_t code, const char* call, const char* file, int line) noexcept;

}  // namespace harness

/// Checks a CUDA runtime call and throws harness::CudaError with file:line, the call text and the error name.
#define CUDA_CHECK(call) ::harness::cuda_check((call), #call, __FILE__, __LINE__)
/// Like CUDA_CHECK but only reports: for destructors and other noexcept paths.
#define CUDA_CHECK_NOTHROW(call) ::harness::cuda_check_nothrow((call), #call, __FILE__, __LINE__)
/// Checks the launch that just happened (bad configuration, missing kernel image). Put it after every <<<...>>>.
#define CUDA_CHECK_LAUNCH() ::harness::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
