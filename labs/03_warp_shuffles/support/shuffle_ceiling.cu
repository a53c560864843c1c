// Lab 03's ceiling: back-to-back full-warp butterfly reductions on registers (see shuffle_ceiling.hpp).
#include "support/shuffle_ceiling.hpp"

#include <harness/cuda_check.hpp>

namespace lab03 {
namespace {

__global__ void butterflies(float* out, std::int64_t n, int reps) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float v = static_cast<float>(threadIdx.x % 7) - 3.0f;  // a register, not a load
  float acc = 0.0f;
  for (int r = 1; r <= reps; ++r) {
    float s = v * static_cast<float>(r);
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    acc += s;
  }
  if (t < n) out[t] = acc;  // every lane of the whole-block grid shuffles; only the first n store
}

}  // namespace

void launch_butterflies(float* out, std::int64_t n, int reps, cudaStream_t stream) {
  constexpr int kThreads = 256;
  butterflies<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(out, n, reps);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lab03
