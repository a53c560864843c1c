// Lab 06: bank conflicts -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped: it is the baseline, the zero of the performance scale.
//
// Build and grade, from the build directory:   make lab6 && ./grade lab6
// Check correctness only, with Catch2's report: ./lab6 check --impl student
// Time one exercise against the reference and the ceiling: ./lab6 time --impl student --exercise transpose_tiled
// The exercise sheet is labs/06_bank_conflicts/README.md.
//
// out (cols x rows) = transpose of in (rows x cols), both row-major. A transpose does no arithmetic: it reads 4 bytes
// and writes 4 bytes per element, so its ceiling is a copy with the same access pattern, measured in the same run.
// Every launcher below is correct but slow. Keep the names and signatures: transpose.hpp is the contract.
//
//   1. transpose_tiled   the naive kernel reads rows of `in` (coalesced) and writes columns of `out`: the 32 lanes
//                        of a warp store to 32 different rows, 32 separate 32-byte sectors for 128 useful bytes.
//                        Stage a 32 x 32 tile in shared memory: read it row by row, __syncthreads(), and write the
//                        transposed tile row by row, so both global sides are coalesced.
//   2. transpose_padded  the tiled kernel below reads its tile by column: tile[threadIdx.x][j] is 32 words 32 words
//                        apart, all in one of the 32 banks, so the warp's load is served in 32 passes. Pad each
//                        row of the tile by one word (or swizzle the column index) so the 32 words fall in 32
//                        different banks.
//
// Shapes that are not square and not multiples of 32 are tested: mind which extent bounds which index.
#include "transpose.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32;  // a tile is 32 x 32 elements
constexpr int kRows = 8;   // a block is 32 x 8 threads; each thread moves 4 elements of its tile column

dim3 tiles_over(std::int64_t rows, std::int64_t cols) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
}

// ---- 1. transpose_tiled --------------------------------------------------------------------------------------
// Lane x reads in[r][c0 + x] (32 adjacent words) and writes out[c0 + x][r] (32 words `rows` apart).
__global__ void transpose_naive_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    const std::int64_t r = r0 + j;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
  }
}

void launch_transpose_tiled(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_naive_kernel<<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. transpose_padded -------------------------------------------------------------------------------------
// Both global sides coalesced; the tile is read by column, with 32-way bank conflicts.
__global__ void transpose_tile_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
  for (int j = 0; j < kTile; j += kRows)
    if (r0 + j < rows && c < cols) tile[ty + j][tx] = in[(r0 + j) * cols + c];
  __syncthreads();
  // The block's output tile: rows of `out` are columns of `in`.
  const std::int64_t out_c = blockIdx.y * static_cast<std::int64_t>(kTile) + tx;   // an `in` row
  const std::int64_t out_r0 = blockIdx.x * static_cast<std::int64_t>(kTile) + ty;  // an `in` column
  for (int j = 0; j < kTile; j += kRows)
    if (out_r0 + j < cols && out_c < rows) out[(out_r0 + j) * rows + out_c] = tile[tx][ty + j];
}

void launch_transpose_padded(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_tile_kernel<<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("transpose_tiled", lab06::TransposeLauncher, launch_transpose_tiled);
REGISTER_LAUNCHER("transpose_padded", lab06::TransposeLauncher, launch_transpose_padded);
