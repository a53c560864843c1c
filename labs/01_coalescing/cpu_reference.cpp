#include "cpu_reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab01::cpu {

std::vector<double> scale(const std::vector<float>& x, float alpha) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = static_cast<double>(alpha) * x[i];
  return y;
}

Sum dot(const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("dot: sizes differ");
  Sum s;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double p = static_cast<double>(x[i]) * y[i];
    s.value += p;
    s.abs += std::fabs(p);
    s.peak = std::max(s.peak, std::fabs(s.value));
  }
  return s;
}

std::vector<Sum> column_sums(const std::vector<float>& a, std::int64_t rows, std::int64_t cols) {
  if (static_cast<std::int64_t>(a.size()) != rows * cols) throw std::invalid_argument("column_sums: bad shape");
  std::vector<Sum> sums(static_cast<std::size_t>(cols));
  for (std::int64_t r = 0; r < rows; ++r)  // row by row: the CPU's own coalescing
    for (std::int64_t c = 0; c < cols; ++c) {
      const double v = a[static_cast<std::size_t>(r * cols + c)];
      sums[c].value += v;
      sums[c].abs += std::fabs(v);
      sums[c].peak = std::max(sums[c].peak, std::fabs(sums[c].value));
    }
  return sums;
}

}  // namespace lab01::cpu
