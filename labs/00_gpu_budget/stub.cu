// Lab 00: the GPU's budget -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped: it is the baseline, the zero of the performance scale.
//
// Build and grade, from the build directory:   make lab0 && ./grade lab0
// Check correctness only, with Catch2's report: ./lab0 check --impl student
// The exercise sheet is labs/00_gpu_budget/README.md: predict first (its tables), then measure.
//
// Every launcher below is correct and slow, each for a reason the sheet's budget predicts. Keep the launcher names
// and signatures, and ilp_kernel's: gpu_budget.hpp is the contract.
//
//   1. ilp        y[i] = alpha * x[i], one block of 128 threads per SM: you write the kernel, the harness launches
//                 it at that shape (the rule). The stub keeps one 4-byte load per thread in flight. Little's law says how many bytes must be in flight.
//   2. occupancy  y[i] = alpha * x[i], one float4 per thread (a rule). The stub reserves shared memory it does not
//                 need, so few warps fit on an SM. Compute the occupancy from the resource usage, then check it with
//                 the API.
//   3. waves      h[i] = mix(x[i], i, rounds): the same arithmetic for every element. The stub launches one wave of
//                 blocks plus one block: count the waves.
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
// 128 threads per SM, each with one 4-byte load in flight at a time: 512 bytes per SM waiting on DRAM.
// slide-begin: ilp
__global__ void ilp_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    y[i] = alpha * x[i];  // y may alias x: the next load cannot move above this store, so one load in flight
}
// slide-end: ilp

// ---- 2. occupancy --------------------------------------------------------------------------------------------
// One float4 per thread (the contract): each block stages its 256 float4s through shared memory, and reserves
// 100 KiB for it, a tile size left over from a version that needed it. What a launch reserves, not what a kernel
// touches, is what the SM must find free before a block can start: 2 such blocks fit in 228 KiB.
constexpr int kOccupancyThreads = 256;
constexpr int kReservedBytes = 100 * 1024;

// The kernel is given, as it is right: the exercise is the launch around it (its block size and shared memory).
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
  constexpr int bytes = kReservedBytes;
  // Above 48 KiB a kernel must opt in to more dynamic shared memory.
  CUDA_CHECK(cudaFuncSetAttribute(occupancy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  const std::int64_t threads = n / 4 > n % 4 ? n / 4 : n % 4;  // a float4 each, or a tail element each
  const auto blocks = static_cast<unsigned>((threads + kOccupancyThreads - 1) / kOccupancyThreads);
  occupancy_kernel<<<blocks, kOccupancyThreads, bytes, stream>>>(reinterpret_cast<const float4*>(x),
                                                                 reinterpret_cast<float4*>(y), x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. waves ------------------------------------------------------------------------------------------------
constexpr int kWavesThreads = 1024;

// The kernel is given, as it is right (a grid-stride loop: any grid writes every element): the exercise is the grid.
// slide-begin: waves
__global__ void waves_kernel(const float* x, float* h, std::int64_t n, int rounds) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    h[i] = lab00::mix(x[i], i, rounds);
}
// slide-end: waves

void launch_waves(const float* x, float* h, std::int64_t n, int rounds, cudaStream_t stream) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, waves_kernel, kWavesThreads, 0));
  // "One more block, to be safe": every block does the same share of the work, so the last one runs alone.
  const int blocks = sm_count() * per_sm + 1;
  waves_kernel<<<blocks, kWavesThreads, 0, stream>>>(x, h, n, rounds);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("ilp", lab00::IlpKernel, ilp_kernel);  // a kernel: the harness launches it
REGISTER_LAUNCHER("occupancy", lab00::OccupancyLauncher, launch_occupancy);
REGISTER_LAUNCHER("waves", lab00::WavesLauncher, launch_waves);
