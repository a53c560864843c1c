// Lab 00's reference: what each exercise's budget asks for, and no more.
//   1. ilp        kUnroll independent 16-byte loads per thread before any store: 128 threads x 16 x 16 B = 32 KiB in
//                 flight per SM, about twice what Little's law asks of an H100 (3.35 TB/s x ~700 ns / 132 SMs).
//   2. occupancy  the stub's one-float4-per-thread kernel, reserving only the shared memory it uses: 8 blocks of 256
//                 threads per SM, 64 warps, every warp slot full: 2048 x 16 B = 32 KiB in flight per SM, the same
//                 bytes as exercise 1's 128 threads x 16 loads x 16 B.
//   3. waves      exactly one wave: SMs x the blocks per SM the occupancy API reports, each thread taking every
//                 (grid size)-th element, so every SM has the same work to the element.
#include "gpu_budget.hpp"

#include <harness/launcher.hpp>

namespace {

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// ---- 1. ilp --------------------------------------------------------------------------------------------------
constexpr int kUnroll = 16;

// Every load of a pass is issued before the first store: kUnroll loads in flight per thread, each a float4, each
// warp-wide load 512 contiguous bytes. The n % 4 tail goes to the first threads, one float each.
// slide-begin: ilp
__global__ void ilp_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n, float alpha) {
  const auto* __restrict__ x4 = reinterpret_cast<const float4*>(x);  // 256-byte aligned (gpu_budget.hpp)
  auto* __restrict__ y4 = reinterpret_cast<float4*>(y);
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  for (std::int64_t base = t; base < n4; base += kUnroll * threads) {
    float4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * threads < n4) v[k] = x4[base + k * threads];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * threads < n4) y4[base + k * threads] = make_float4(alpha * v[k].x, alpha * v[k].y,
                                                                         alpha * v[k].z, alpha * v[k].w);
  }
  if (t < n - 4 * n4) y[4 * n4 + t] = alpha * x[4 * n4 + t];
}
// slide-end: ilp

// ---- 2. occupancy --------------------------------------------------------------------------------------------
constexpr int kOccupancyThreads = 256;

// slide-begin: occupancy
__global__ void occupancy_kernel(const float4* __restrict__ x4, float4* __restrict__ y4, const float* __restrict__ x,
                                 float* __restrict__ y, std::int64_t n, float alpha) {
  extern __shared__ float4 tile[];
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  if (t < n4) {
    tile[threadIdx.x] = x4[t];  // one 16-byte load per thread: the only bytes this thread has in flight
    const float4 v = tile[threadIdx.x];
    y4[t] = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
  }
  if (t < n - 4 * n4) y[4 * n4 + t] = alpha * x[4 * n4 + t];  // the n % 4 tail, one float each
}
// slide-end: occupancy

void launch_occupancy(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  constexpr int bytes = kOccupancyThreads * sizeof(float4);  // what the block uses: 4 KiB
  const std::int64_t threads = n / 4 > n % 4 ? n / 4 : n % 4;  // a float4 each, or a tail element each
  const auto blocks = static_cast<unsigned>((threads + kOccupancyThreads - 1) / kOccupancyThreads);
  occupancy_kernel<<<blocks, kOccupancyThreads, bytes, stream>>>(reinterpret_cast<const float4*>(x),
                                                                 reinterpret_cast<float4*>(y), x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. waves ------------------------------------------------------------------------------------------------
constexpr int kWavesThreads = 256;

// slide-begin: waves
__global__ void waves_kernel(const float* __restrict__ x, float* __restrict__ h, std::int64_t n, int rounds) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    h[i] = lab00::mix(x[i], i, rounds);
}
// slide-end: waves

void launch_waves(const float* x, float* h, std::int64_t n, int rounds, cudaStream_t stream) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, waves_kernel, kWavesThreads, 0));
  // One wave, every block slot of every SM; no more blocks than the elements need (small sizes).
  const std::int64_t wave = std::int64_t{sm_count()} * per_sm;
  const std::int64_t needed = (n + kWavesThreads - 1) / kWavesThreads;
  const auto blocks = static_cast<unsigned>(needed < wave ? needed : wave);
  waves_kernel<<<blocks, kWavesThreads, 0, stream>>>(x, h, n, rounds);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("ilp", lab00::IlpKernel, ilp_kernel);
REGISTER_LAUNCHER("occupancy", lab00::OccupancyLauncher, launch_occupancy);
REGISTER_LAUNCHER("waves", lab00::WavesLauncher, launch_waves);
