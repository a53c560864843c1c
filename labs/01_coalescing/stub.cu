// Lab 01: memory coalescing -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped: it is the baseline, the zero of the performance scale.
//
// Build and grade, from the build directory:   make lab1 && ./grade lab1
// Check correctness only, with Catch2's report: ./lab1 check --impl student
// The exercise sheet is labs/01_coalescing/README.md.
//
// Every launcher below is correct but slow: it uses the CPU habit of giving each thread its own contiguous slice of
// the data. On a GPU the 32 threads of a warp issue each load together, and the hardware serves them in 32-byte
// sectors: when lane k reads word k of the same sector the warp needs 4 sectors per load, when lane k reads a word
// 4 KiB away from lane k-1 it needs 32. Rewrite the kernels (and launch configurations) so adjacent threads touch
// adjacent words. Keep the launcher names and signatures: coalescing.hpp is the contract.
//
//   1. scale        y[i] = alpha * x[i]            ceiling: the device-to-device copy (it moves the same bytes)
//   2. dot          *result = sum x[i] * y[i]       ceiling: the copy; reads 8 bytes per element
//   3. column_sums  sums[c] = sum_r a[r][c]         ceiling: the copy; map threadIdx.x to the contiguous index
#include "coalescing.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;  // a fixed number of workers, as a CPU program would have

// ---- 1. scale ------------------------------------------------------------------------------------------------
// slide-begin: scale
__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha, std::int64_t chunk) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t begin = t * chunk;
  const std::int64_t end = begin + chunk < n ? begin + chunk : n;
  for (std::int64_t i = begin; i < end; ++i) y[i] = alpha * x[i];  // lane k is `chunk` words from lane k+1
}
// slide-end: scale

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  const std::int64_t workers = std::int64_t{kThreads} * kBlocks;
  const std::int64_t chunk = (n + workers - 1) / workers;
  scale_kernel<<<kBlocks, kThreads, 0, stream>>>(x, y, n, alpha, chunk);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. dot --------------------------------------------------------------------------------------------------
__global__ void dot_kernel(const float* x, const float* y, float* result, std::int64_t n, std::int64_t chunk) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t begin = t * chunk;
  const std::int64_t end = begin + chunk < n ? begin + chunk : n;
  float sum = 0.0f;
  for (std::int64_t i = begin; i < end; ++i) sum += x[i] * y[i];
  if (begin < n) atomicAdd(result, sum);  // one atomic per thread
}

void launch_dot(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  const std::int64_t workers = std::int64_t{kThreads} * kBlocks;
  const std::int64_t chunk = (n + workers - 1) / workers;
  dot_kernel<<<kBlocks, kThreads, 0, stream>>>(x, y, result, n, chunk);
  CUDA_CHECK_LAUNCH();
}

// ---- 3. column_sums ------------------------------------------------------------------------------------------
constexpr std::int64_t kStripRows = 64;

// threadIdx.x walks strips of rows, threadIdx.y walks columns: the 32 lanes of a warp read one column at 32
// different rows, 64 * cols * 4 bytes apart.
// slide-begin: column_sums
__global__ void column_sums_kernel(const float* a, float* sums, std::int64_t rows, std::int64_t cols) {
  const std::int64_t strip = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t c = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  const std::int64_t r0 = strip * kStripRows;
  if (c >= cols || r0 >= rows) return;
  const std::int64_t r1 = r0 + kStripRows < rows ? r0 + kStripRows : rows;
  float sum = 0.0f;
  for (std::int64_t r = r0; r < r1; ++r) sum += a[r * cols + c];
  atomicAdd(&sums[c], sum);
}
// slide-end: column_sums

void launch_column_sums(const float* a, float* sums, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));
  const dim3 block(32, 8);
  const std::int64_t strips = (rows + kStripRows - 1) / kStripRows;
  const dim3 grid(static_cast<unsigned>((strips + block.x - 1) / block.x),
                  static_cast<unsigned>((cols + block.y - 1) / block.y));
  column_sums_kernel<<<grid, block, 0, stream>>>(a, sums, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
REGISTER_LAUNCHER("dot", lab01::DotLauncher, launch_dot);
REGISTER_LAUNCHER("column_sums", lab01::ColumnSumsLauncher, launch_column_sums);
