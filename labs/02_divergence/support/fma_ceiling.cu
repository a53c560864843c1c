// Lab 02's compute ceiling: the exercises' FMA chains, every warp on one path, no loads (see fma_ceiling.hpp).
#include "support/fma_ceiling.hpp"

#include "divergence.hpp"

#include <harness/cuda_check.hpp>

namespace lab02 {
namespace {

__global__ void fma_chains(float* out, std::int64_t n, int iterations) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  float v = static_cast<float>(threadIdx.x % 16) - 8.0f;  // a register, not a load: only the arithmetic is timed
  for (int k = 0; k < iterations; ++k) v = fmaf(v, kEvenScale, kEvenShift);
  out[t] = v;  // stored, so the chain cannot be optimized away
}

}  // namespace

void launch_fma_chains(float* out, std::int64_t n, int iterations, cudaStream_t stream) {
  constexpr int kThreads = 256;
  fma_chains<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(out, n, iterations);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lab02
