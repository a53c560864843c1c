#pragma once
// Lab 05's ceiling: cuBLAS SGEMM in strict FP32 at the exercise's shape. Declared for exercises.cpp;
// the implementation is cublas_ceiling.cpp (host code: cuBLAS needs no
// kernel of ours, so the host compiler builds it).
#include <harness/problem.hpp>

#include <cstdint>
#include <memory>

namespace lab05 {

/// cublasSgemm with CUBLAS_PEDANTIC_MATH (no TF32, no tensor cores) computing C = A * B for row-major A (m x k) and
/// B (k x n), on buffers of its own filled with small integers. amount() is 2 * m * n * k flops.
std::unique_ptr<harness::CeilingOp> cublas_sgemm_ceiling(std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace lab05
