#pragma once
// Lab 07's pipeline kernels, as the harness runs them alone (the "kernel alone" stage and the ceiling). Declared for
// host code; defined in support/stages.cu.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab07::stages {

/// y[i] = x[i]^2 + 3 x[i] - 1 for i in [0, n).
void launch_poly(const float* x, float* y, std::int64_t n, cudaStream_t stream);
/// y[i] = x[i-1] + 2 x[i] + x[i+1] for i in [0, n), zeros outside.
void launch_stencil(const float* x, float* y, std::int64_t n, cudaStream_t stream);

}  // namespace lab07::stages
