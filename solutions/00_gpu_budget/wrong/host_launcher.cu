// Known-wrong fixture: exercise 1 answered by a host function of the kernel's signature that launches a kernel of its
// own at full occupancy (a block per 256 elements), the route the exercise rules out. The harness launches what is
// registered for "ilp" as a kernel at one block of 128 threads per SM: a host function is not a kernel, so the launch
// fails and every test with it. Under a launcher contract the same code would pass every test and earn the
// reference's time by more warps instead of more bytes in flight per thread.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

void ilp_on_the_host(const float* x, float* y, std::int64_t n, float alpha) {
  const auto blocks = static_cast<unsigned>((n + 255) / 256);
  scale_kernel<<<blocks, 256>>>(x, y, n, alpha);
}

}  // namespace

REGISTER_LAUNCHER("ilp", lab00::IlpKernel, ilp_on_the_host);
