// Known-wrong fixture: the ilp kernel with float4 loads and no code for the n % 4 remainder. Right whenever the size
// is a multiple of 4, wrong otherwise: the tests must include such sizes to reject it.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void ilp_kernel(const float4* x4, float4* y4, std::int64_t n4, float alpha) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride)
    y4[i] = make_float4(alpha * x4[i].x, alpha * x4[i].y, alpha * x4[i].z, alpha * x4[i].w);
}
void launch_ilp(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t n4 = n / 4;  // BUG: the last n % 4 elements are never written
  if (n4 == 0) return;
  ilp_kernel<<<sms, lab00::kIlpThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y),
                                                      n4, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("ilp", lab00::IlpLauncher, launch_ilp);
