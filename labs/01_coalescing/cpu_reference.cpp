#include "cpu_reference.hpp"

#include <harness/parallel.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab01::cpu {

namespace {
constexpr std::size_t kMinChunk = std::size_t{1} << 20;  // elements a core takes at the least
}  // namespace

// Over the host's cores (harness/parallel.hpp): at the timed shape, 2^28 elements, every `time` run makes these.

std::vector<double> scale(const std::vector<float>& x, float alpha) {
  std::vector<double> y(x.size());
  harness::parallel_chunks(x.size(), kMinChunk, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) y[i] = static_cast<double>(alpha) * x[i];
  });
  return y;
}

Sum dot(const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("dot: sizes differ");
  const harness::OrderedSum s =
      harness::ordered_sum(x.size(), [&](std::size_t i) { return static_cast<double>(x[i]) * y[i]; });
  return {s.value, s.abs, s.peak};
}

std::vector<Sum> column_sums(const std::vector<float>& a, std::int64_t rows, std::int64_t cols) {
  if (static_cast<std::int64_t>(a.size()) != rows * cols) throw std::invalid_argument("column_sums: bad shape");
  std::vector<Sum> sums(static_cast<std::size_t>(cols));
  // Each core takes a band of columns and walks it row by row: the CPU's own coalescing, in index order per column.
  const std::size_t column_length = std::max<std::size_t>(1, static_cast<std::size_t>(rows));
  const std::size_t min_columns = std::max<std::size_t>(1, kMinChunk / column_length);
  harness::parallel_chunks(sums.size(), min_columns, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::size_t c = begin; c < end; ++c) {
        const double v = a[static_cast<std::size_t>(r * cols) + c];
        sums[c].value += v;
        sums[c].abs += std::fabs(v);
        sums[c].peak = std::max(sums[c].peak, std::fabs(sums[c].value));
      }
  });
  return sums;
}

}  // namespace lab01::cpu
