#include "cpu_reference.hpp"

#include <harness/parallel.hpp>

#include <algorithm>
#include <stdexcept>

namespace lab06::cpu {

namespace {
// Units of `elements` each that a core takes at the least: 2^20 elements, as elsewhere (harness/parallel.hpp), so the
// tested shapes stay on one thread and only the timed ones are split.
std::size_t min_units(std::int64_t elements) {
  return std::max<std::size_t>(1, (std::size_t{1} << 20) / static_cast<std::size_t>(elements));
}
}  // namespace

std::vector<double> transpose(const std::vector<float>& in, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0 || static_cast<std::int64_t>(in.size()) != rows * cols)
    throw std::invalid_argument("transpose: bad shape");
  std::vector<double> out(in.size());
  // In 32 x 32 tiles, for the reason the lab's kernels tile: a row-by-row loop writes each element of `out` a whole
  // row apart and misses the cache on every write (4 of the 4.3 s `time` spent making inputs at 8192 x 8192).
  // Bands of tile rows over the host's cores (2^27 elements at the timed shape, in every `time` run).
  constexpr std::int64_t kTile = 32;
  const auto bands = static_cast<std::size_t>((rows + kTile - 1) / kTile);
  const std::size_t min_bands = min_units(kTile * std::max<std::int64_t>(cols, 1));
  harness::parallel_chunks(bands, min_bands, [&](std::size_t, std::size_t first, std::size_t last) {
    const auto end = static_cast<std::int64_t>(last) * kTile;
    for (auto r0 = static_cast<std::int64_t>(first) * kTile; r0 < end; r0 += kTile)
      for (std::int64_t c0 = 0; c0 < cols; c0 += kTile)
        for (std::int64_t r = r0; r < std::min(r0 + kTile, rows); ++r)
          for (std::int64_t c = c0; c < std::min(c0 + kTile, cols); ++c) out[c * rows + r] = in[r * cols + c];
  });
  return out;
}

std::vector<double> row_sums(const std::vector<float>& in, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0 || static_cast<std::int64_t>(in.size()) != rows * cols)
    throw std::invalid_argument("row_sums: bad shape");
  std::vector<double> out(static_cast<std::size_t>(rows), 0.0);
  const std::size_t min_rows = min_units(std::max<std::int64_t>(cols, 1));
  harness::parallel_chunks(out.size(), min_rows, [&](std::size_t, std::size_t first, std::size_t last) {
    for (auto r = static_cast<std::int64_t>(first); r < static_cast<std::int64_t>(last); ++r)
      for (std::int64_t c = 0; c < cols; ++c) out[r] += in[r * cols + c];
  });
  return out;
}

}  // namespace lab06::cpu
