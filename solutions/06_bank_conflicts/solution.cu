// Lab 06: bank conflicts -- the reference solution (the "reference" implementation the grade is measured against).
//
// A transpose reads and writes 4 bytes per element and computes nothing: its floor is the time to move those bytes
// in full 128-byte warp accesses, which is what the ceiling (a copy with the same tiling) measures.
//   1. transpose_tiled: a 32 x 32 tile staged in shared memory, read from `in` by rows and written to `out` by rows,
//      so both global sides are coalesced. The tile itself is read by column: lane x reads tile[x][j], 32 words 32
//      words apart, all in bank j % 32: one load takes 32 shared-memory passes. This is the reference of exercise 1,
//      the textbook step; exercise 2 removes the conflicts.
//   2. transpose_padded: the same, with 33 words per tile row. Word (x, j) is then in bank (33 x + j) % 32 =
//      (x + j) % 32: the 32 lanes hit 32 different banks, and the column read takes one pass. The row writes into
//      the tile stay conflict-free (consecutive words).
//   3. row_sums: the stub's thread-per-row walk, each warp with a 32 x 33 tile. Lane t reads word 33 t + k of the
//      tile at step k, in bank (t + k) % 32: 32 banks, one pass. The coalesced fill, tile[i][lane], is word 33 i +
//      lane, 32 consecutive words: conflict-free with or without the pad. Then only global memory limits it: 4 bytes
//      read per element, against a read-only stream of the same bytes.
#include "row_sums.hpp"
#include "transpose.hpp"

#include <harness/launcher.hpp>

namespace {

constexpr int kTile = 32, kRows = 8;

dim3 tiles_over(std::int64_t rows, std::int64_t cols) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
}

// slide-begin: transpose_tile
template <int kPad>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                      std::int64_t cols) {
  __shared__ float tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + tx;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + ty;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (r0 + j < rows && c < cols) tile[ty + j][tx] = in[(r0 + j) * cols + c];
  __syncthreads();  // the tile's columns were written by all 8 warps
  const std::int64_t out_c = blockIdx.y * static_cast<std::int64_t>(kTile) + tx;   // an `in` row
  const std::int64_t out_r0 = blockIdx.x * static_cast<std::int64_t>(kTile) + ty;  // an `in` column
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (out_r0 + j < cols && out_c < rows) out[(out_r0 + j) * rows + out_c] = tile[tx][ty + j];
}
// slide-end: transpose_tile

void launch_transpose_tiled(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_tile_kernel<0><<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

void launch_transpose_padded(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_tile_kernel<1><<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

constexpr int kWarpsPerBlock = 8;  // a block is 256 threads and sums 256 rows

__global__ void row_sums_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                std::int64_t cols) {
  // slide-begin: row_sums_tile
  __shared__ float tiles[kWarpsPerBlock][kTile][kTile + 1];  // 33 words per row: row t's word k is in bank (t + k) % 32
  // slide-end: row_sums_tile
  const int lane = threadIdx.x % kTile, warp = threadIdx.x / kTile;
  float(*tile)[kTile + 1] = tiles[warp];  // the warp's own tile: __syncwarp() suffices
  const std::int64_t row0 = (blockIdx.x * static_cast<std::int64_t>(kWarpsPerBlock) + warp) * kTile;
  if (row0 >= rows) return;
  const int n = rows - row0 < kTile ? static_cast<int>(rows - row0) : kTile;
  float sum = 0.0f;
  for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
    const bool in_cols = c0 + lane < cols;
    const float* p = in + row0 * cols + c0 + lane;
    // 32 independent loads in flight per lane. The pointer steps by `cols`: indexing in[(row0 + i) * cols + c]
    // instead made nvcc 13.0 keep 32 row addresses alive across the slices: 165 registers, one block per SM.
#pragma unroll
    for (int i = 0; i < kTile; ++i, p += cols) tile[i][lane] = i < n && in_cols ? *p : 0.0f;  // zeros past the edges
    __syncwarp();  // row t of the tile was written by all 32 lanes
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += tile[lane][k];
    __syncwarp();  // the next slice overwrites the tile
  }
  if (lane < n) out[row0 + lane] = sum;
}

void launch_row_sums(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  constexpr int kRowsPerBlock = kWarpsPerBlock * kTile;
  const auto blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  row_sums_kernel<<<blocks, kRowsPerBlock, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("transpose_tiled", lab06::TransposeLauncher, launch_transpose_tiled);
REGISTER_LAUNCHER("transpose_padded", lab06::TransposeLauncher, launch_transpose_padded);
REGISTER_LAUNCHER("row_sums", lab06::RowSumsLauncher, launch_row_sums);
