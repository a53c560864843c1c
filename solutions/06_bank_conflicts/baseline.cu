// Lab 06: bank conflicts -- the baseline (instructors' file, not the student's): the zero of each exercise's
// performance scale. transpose_tiled's baseline is the naive transpose of stub.cu; transpose_padded's is
// transpose_tiled's reference as the stubs shipped it (a tiled transpose with 32-way bank conflicts: the reference's
// kernel with no padding, without `__restrict__` and unrolling), so the exercise earns points only for the padding.
// That kernel is kept out of stub.cu, which must not hand over transpose_tiled's answer (cmake/AddLab.cmake, issue
// 15). row_sums's baseline is its stub.
#include "row_sums.hpp"
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

// ---- 3. row_sums ---------------------------------------------------------------------------------------------
// Warp w of a block owns 32 consecutive rows and a 32 x 32 tile of its own, so a __syncwarp() is all the
// synchronization it needs. For each 32-column slice of its rows, lane x loads column x of the slice (each load
// instruction reads 32 adjacent words of one row: coalesced, and conflict-free into the tile), then lane t adds up
// row t of the tile. The load pointer steps down by `cols` rather than indexing in[(row0 + i) * cols + c], with
// which nvcc kept 32 row addresses in registers (165 per thread, one block per SM).
constexpr int kWarpsPerBlock = 8;  // a block is 256 threads and sums 256 rows

__global__ void row_sums_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  __shared__ float tiles[kWarpsPerBlock][kTile][kTile];
  const int lane = threadIdx.x % kTile, warp = threadIdx.x / kTile;
  float(*tile)[kTile] = tiles[warp];
  const std::int64_t row0 = (blockIdx.x * static_cast<std::int64_t>(kWarpsPerBlock) + warp) * kTile;
  if (row0 >= rows) return;  // the whole warp leaves: no barrier below involves other warps
  const int n = rows - row0 < kTile ? static_cast<int>(rows - row0) : kTile;  // rows of this warp: 32 but at the end
  float sum = 0.0f;
  for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
    const bool in_cols = c0 + lane < cols;
    const float* p = in + row0 * cols + c0 + lane;  // steps down column c0 + lane of the warp's rows
#pragma unroll
    for (int i = 0; i < kTile; ++i, p += cols)  // zeros past the last row or column: the walk adds them harmlessly
      tile[i][lane] = i < n && in_cols ? *p : 0.0f;
    __syncwarp();  // row t of the tile was written by all 32 lanes
#pragma unroll
    // Word 32 t + k: bank k for every lane. nvcc merges four steps into one 16-byte load (8 per slice, not 32); with
    // all 32 lanes on the same 4 banks each takes 32 passes where 4 would do (measured: results/, lab 06's sheet).
    for (int k = 0; k < kTile; ++k) sum += tile[lane][k];
    __syncwarp();  // every lane has walked its row before the next slice overwrites the tile
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
