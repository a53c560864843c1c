// Lab 05's ceiling: cuBLAS SGEMM, FP32 on CUDA cores, at the timed shape, timed in the same run as your kernel. Host
// code (cuBLAS needs no kernel of ours), linked into the referee only: no runner links cuBLAS (lab.cmake).
//
// cuBLAS is column-major. A row-major matrix read as column-major is its transpose, so the row-major product
// C = A * B is computed as the column-major C^T = B^T * A^T: pass B first, then A, with n and m swapped.
#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/measures.hpp>
#include <harness/random.hpp>

#include <cublas_v2.h>

#include <iostream>
#include <stdexcept>
#include <string>

namespace lab05 {
namespace {

void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define CUBLAS_CHECK(call) cublas_check((call), #call)

/// cublasSgemm with CUBLAS_PEDANTIC_MATH (no TF32, no tensor cores) computing C = A * B for row-major A (m x k) and
/// B (k x n), on buffers of its own filled with small integers. amount() is 2 * m * n * k flops.
class CublasSgemm final : public harness::CeilingOp {
 public:
  CublasSgemm(std::int64_t m, std::int64_t n, std::int64_t k) : m_(m), n_(n), k_(k), a_(m * k), b_(k * n), c_(m * n) {
    const auto a = harness::random_ints(a_.size(), 1, -8, 8), b = harness::random_ints(b_.size(), 2, -8, 8);
    CUDA_CHECK(cudaMemcpy(a_.get(), a.data(), a_.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b_.get(), b.data(), b_.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasCreate(&handle_));
    // Pedantic: FP32 arithmetic on CUDA cores, what the exercises ask of you. The default mode computes SGEMM in FP32
    // too; pedantic also rules out any faster reduced-precision path a library version might choose.
    CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH));
  }
  ~CublasSgemm() override {
    if (cublasDestroy(handle_) != CUBLAS_STATUS_SUCCESS) std::cerr << "cublasDestroy failed\n";
  }
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;

  void run(cudaStream_t stream) override {
    CUBLAS_CHECK(cublasSetStream(handle_, stream));
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n_), static_cast<int>(m_),
                             static_cast<int>(k_), &alpha, b_.get(), static_cast<int>(n_), a_.get(),
                             static_cast<int>(k_), &beta, c_.get(), static_cast<int>(n_)));
  }
  [[nodiscard]] double amount() const override { return 2.0 * m_ * n_ * k_; }
  [[nodiscard]] std::string what() const override { return "cuBLAS SGEMM, FP32 (pedantic math, no tensor cores)"; }

 private:
  std::int64_t m_, n_, k_;
  harness::DeviceBuffer<float> a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
};

std::unique_ptr<harness::CeilingOp> ceiling(const harness::Shape& s) {
  return std::make_unique<CublasSgemm>(s[0], s[1], s[2]);
}

}  // namespace

REGISTER_MEASURES("naive", {.ceiling = ceiling});
REGISTER_MEASURES("smem_tiled", {.ceiling = ceiling});
REGISTER_MEASURES("register_blocked", {.ceiling = ceiling});

}  // namespace lab05
