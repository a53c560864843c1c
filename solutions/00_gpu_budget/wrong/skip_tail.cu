// Known-wrong fixture: the ilp kernel with float4 loads and no code for the n % 4 remainder. Right whenever the size
// is a multiple of 4, wrong otherwise: the tests must include such sizes to reject it.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

// BUG: the last n % 4 elements are never written.
__global__ void ilp_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  const std::int64_t n4 = n / 4;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride)
    y4[i] = make_float4(alpha * x4[i].x, alpha * x4[i].y, alpha * x4[i].z, alpha * x4[i].w);
}

}  // namespace

REGISTER_LAUNCHER("ilp", lab00::IlpKernel, ilp_kernel);
