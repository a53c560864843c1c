// expect: accepted (decided on the GPU: compute-sanitizer memcheck must report it)
// Known-wrong fixture for `grade --sanitize`: the reference's occupancy launch with the dynamic shared memory computed
// one float4 short (`(threads - 1) * sizeof(float4)`, a fencepost in the size), so the block's last thread writes its
// tile slot 16 bytes past the end of the block's shared memory. The answer stays right: the hardware gives shared
// memory in units of 128 bytes, so the slot lies inside the block's allocation anyway, and the guard zones, which
// only see global memory, see nothing. compute-sanitizer's memcheck knows the launch's shared-memory size and reports
// an invalid __shared__ write.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;

__global__ void occupancy_kernel(const float4* __restrict__ x4, float4* __restrict__ y4, const float* __restrict__ x,
                                 float* __restrict__ y, std::int64_t n, float alpha) {
  extern __shared__ float4 tile[];
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  if (t < n4) {
    tile[threadIdx.x] = x4[t];  // thread 255 writes tile[255], one past the 255 slots launched
    const float4 v = tile[threadIdx.x];
    y4[t] = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
  }
  if (t < n - 4 * n4) y[4 * n4 + t] = alpha * x[4 * n4 + t];
}

void launch_occupancy(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  constexpr int bytes = (kThreads - 1) * sizeof(float4);  // BUG: one float4 short of the block's kThreads slots
  const std::int64_t threads = n / 4 > n % 4 ? n / 4 : n % 4;
  const auto blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  occupancy_kernel<<<blocks, kThreads, bytes, stream>>>(reinterpret_cast<const float4*>(x),
                                                        reinterpret_cast<float4*>(y), x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("occupancy", lab00::OccupancyLauncher, launch_occupancy);
