// Lab 06: bank conflicts -- YOUR FILE.
// You edit student.cu, which the build makes as a copy of stub.cu (delete student.cu and configure again to
// start over). stub.cu stays as shipped. The zero of the performance scale is the baseline,
// solutions/06_bank_conflicts/baseline.cu (not shipped): for transpose_tiled and row_sums this file's kernels, for
// transpose_padded transpose_tiled's reference (the tiled transpose with bank conflicts).
//
// Build and grade, from the build directory:   make lab6 && ./grade lab6
// Check correctness only, with Catch2's report: ./lab6 check --impl student
// Time one exercise against the reference and the ceiling: ./lab6 time --impl student --exercise transpose_tiled
// The exercise sheet is labs/06_bank_conflicts/README.md.
//
// Exercises 1 and 2: out (cols x rows) = transpose of in (rows x cols), both row-major. A transpose does no
// arithmetic: it reads 4 bytes and writes 4 bytes per element, so its ceiling is a copy with the same access pattern,
// measured in the same run. Exercise 3: out[r] = the sum of row r of in (rows x cols, row-major), a read stream whose
// ceiling is a read-only stream of the same bytes. Every launcher below is correct but slow. Keep the names and
// signatures: transpose.hpp and row_sums.hpp are the contracts.
//
//   1. transpose_tiled   the naive kernel reads rows of `in` (coalesced) and writes columns of `out`: the 32 lanes
//                        of a warp store to 32 different rows, 32 separate 32-byte sectors for 128 useful bytes.
//                        Stage a 32 x 32 tile in shared memory: read it row by row, __syncthreads(), and write the
//                        transposed tile row by row, so both global sides are coalesced.
//   2. transpose_padded  starts as the naive kernel: bring your tiled kernel of exercise 1 here. It reads its tile
//                        by column: tile[threadIdx.x][j] is 32 words 32 words apart, all in one of the 32 banks, so
//                        the warp's load is served in 32 passes. Pad each row of the tile by one word (or swizzle
//                        the column index) so the 32 words fall in 32 different banks. Its points are measured from
//                        the tiled transpose with conflicts, so they pay for the padding alone.
//   3. row_sums          one thread per row, as in kernels that take a statistic of each short row (the max and sum
//                        before a softmax, the mean and variance of a norm). Each warp stages 32 rows x 32 columns
//                        in shared memory with coalesced loads, then lane t walks row t of its tile: tile[t][k], 32
//                        words 32 apart at every k, all in one bank. Keep the thread-per-row walk and change the
//                        tile's layout (pad or swizzle) so the 32 lanes hit 32 banks, then measure: conflicts and
//                        time (a measurement exercise, graded on correctness; the sheet says why).
//
// Shapes that are not square and not multiples of 32 are tested: mind which extent bounds which index.
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
// slide-begin: transpose_naive
__global__ void transpose_naive_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  const std::int64_t r0 = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    const std::int64_t r = r0 + j;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
  }
}
// slide-end: transpose_naive

void launch_transpose_tiled(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  transpose_naive_kernel<<<tiles_over(rows, cols), dim3(kTile, kRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

// ---- 2. transpose_padded -------------------------------------------------------------------------------------
// The starting point: the naive kernel. Bring your tiled transpose of exercise 1 here and pad its tile.
void launch_transpose_padded(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  launch_transpose_tiled(in, out, rows, cols, stream);
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
    // slide-begin: row_sums_walk
#pragma unroll
    // Word 32 t + k: bank k for every lane. nvcc merges four steps into one 16-byte load (8 per slice, not 32); with
    // all 32 lanes on the same 4 banks each takes 32 passes where 4 would do (measured: results/, lab 06's sheet).
    for (int k = 0; k < kTile; ++k) sum += tile[lane][k];
    // slide-end: row_sums_walk
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
