// Lab 01: memory coalescing -- the reference solution (the "reference" implementation the grade is measured against).
//
// What each exercise must move, and so its floor: scale reads and writes 4 bytes per element, the same traffic as a
// device-to-device copy; dot and column_sums read 8 and 4 bytes per element and write almost nothing. None does
// enough arithmetic to matter (under 0.25 flop per byte, against a GPU that can do ~20 flop per byte of bandwidth),
// so the only goal is to keep the memory system busy with full 32-byte sectors:
//   - adjacent lanes touch adjacent words (each warp-wide load covers whole sectors);
//   - 16-byte (float4) accesses where the layout allows, so each thread has more bytes in flight per instruction;
//   - enough independent loads in flight (a grid of a few blocks per SM, loops the compiler can unroll).
#include "coalescing.hpp"

#include <harness/launcher.hpp>

#include <algorithm>

namespace {

constexpr int kThreads = 256;

/// A grid-stride grid: enough blocks to fill every SM several times over, no more than the work needs.
unsigned grid_for(std::int64_t items) {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t needed = (items + kThreads - 1) / kThreads;
  const std::int64_t enough = std::int64_t{sms} * 8;
  return static_cast<unsigned>(needed < enough ? (needed > 0 ? needed : 1) : enough);
}

// ---- 1. scale ------------------------------------------------------------------------------------------------
// Thread t handles float4 t: a warp reads and writes 512 contiguous bytes per instruction, and a block per 256
// float4s keeps every SM full of loads in flight. On the course's H200 this ran at the copy's speed (100.6% of it),
// where a grid-stride loop over the same float4s (8 blocks per SM, unrolled 4) stopped at 92.6%, and why is not
// established (results/2026-11-23-h200-de5127e/lab01_scale.json). The n % 4 tail elements go to the first threads.
// slide-begin: scale
__global__ void scale_kernel(const float4* __restrict__ x4, float4* __restrict__ y4, const float* __restrict__ x,
                             float* __restrict__ y, std::int64_t n, float alpha) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  if (t < n4) {
    float4 v = x4[t];
    v.x *= alpha;
    v.y *= alpha;
    v.z *= alpha;
    v.w *= alpha;
    y4[t] = v;
  }
  if (t < n - 4 * n4) y[4 * n4 + t] = alpha * x[4 * n4 + t];
}
// slide-end: scale

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  const std::int64_t threads = std::max<std::int64_t>(n / 4, n % 4);  // a float4 each, or a tail element each
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>((threads + kThreads - 1) / kThreads, 1));
  scale_kernel<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), x,
                                                y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. dot --------------------------------------------------------------------------------------------------
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Coalesced float4 loads accumulate in a register; the block then reduces (shuffles, one shared slot per warp) and
// adds its sum with a single atomic, so the atomics are a few thousand, not one per element.
// slide-begin: dot
__global__ void dot_kernel(const float4* __restrict__ x4, const float4* __restrict__ y4, const float* __restrict__ x,
                           const float* __restrict__ y, float* result, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t n4 = n / 4;
  float sum = 0.0f;
#pragma unroll 4
  for (std::int64_t i = t; i < n4; i += stride) {
    const float4 a = x4[i], b = y4[i];
    sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  }
  if (t < n - 4 * n4) sum += x[4 * n4 + t] * y[4 * n4 + t];

  __shared__ float warp_sums[kThreads / 32];
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = warp_sum(threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) atomicAdd(result, sum);
  }
}
// slide-end: dot

void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  dot_kernel<<<grid_for(n / 4), kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x),
                                                        reinterpret_cast<const float4*>(y), x, y, result, n);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. column_sums ------------------------------------------------------------------------------------------
// threadIdx.x walks columns (the contiguous index), so a warp reads a contiguous row segment; blockIdx.y picks a
// strip of rows, so there are enough blocks to fill the GPU even when there are few columns. Each thread adds its
// strip in a register and ends with one atomic per column and strip.
constexpr std::int64_t kStripRows = 256;

template <class V>
__device__ void add_to(float* sums, std::int64_t c, V v);
template <>
__device__ void add_to<float>(float* sums, std::int64_t c, float v) {
  atomicAdd(&sums[c], v);
}
template <>
__device__ void add_to<float4>(float* sums, std::int64_t c, float4 v) {
  atomicAdd(&sums[4 * c + 0], v.x);
  atomicAdd(&sums[4 * c + 1], v.y);
  atomicAdd(&sums[4 * c + 2], v.z);
  atomicAdd(&sums[4 * c + 3], v.w);
}
__device__ void accumulate(float& s, float v) { s += v; }
__device__ void accumulate(float4& s, float4 v) {
  s.x += v.x;
  s.y += v.y;
  s.z += v.z;
  s.w += v.w;
}

// V = float4 when cols % 4 == 0: one 16-byte load covers four columns of a row.
// slide-begin: column_sums
template <class V>
__global__ void column_sums_kernel(const V* __restrict__ a, float* sums, std::int64_t rows, std::int64_t width,
                                   std::int64_t strip_rows) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (c >= width) return;
  const std::int64_t r0 = blockIdx.y * strip_rows;
  const std::int64_t r1 = r0 + strip_rows < rows ? r0 + strip_rows : rows;
  V sum{};
#pragma unroll 8
  for (std::int64_t r = r0; r < r1; ++r) accumulate(sum, a[r * width + c]);
  add_to(sums, c, sum);
}
// slide-end: column_sums

void launch_column_sums(const float* a, float* sums, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));
  // gridDim.y is at most 65535: lengthen the strips for very tall matrices.
  const std::int64_t strip_rows = std::max<std::int64_t>(kStripRows, (rows + 65534) / 65535);
  const unsigned strips = static_cast<unsigned>((rows + strip_rows - 1) / strip_rows);
  if (cols % 4 == 0) {
    const std::int64_t width = cols / 4;
    const dim3 grid(static_cast<unsigned>((width + kThreads - 1) / kThreads), strips);
    column_sums_kernel<<<grid, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(a), sums, rows, width,
                                                      strip_rows);
  } else {
    const dim3 grid(static_cast<unsigned>((cols + kThreads - 1) / kThreads), strips);
    column_sums_kernel<<<grid, kThreads, 0, stream>>>(a, sums, rows, cols, strip_rows);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
REGISTER_LAUNCHER("column_sums", lab01::ColumnSumsLauncher, launch_column_sums);
