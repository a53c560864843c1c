#include "cpu_reference.hpp"

#include <stdexcept>

namespace lab06::cpu {

std::vector<double> transpose(const std::vector<float>& in, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0 || static_cast<std::int64_t>(in.size()) != rows * cols)
    throw std::invalid_argument("transpose: bad shape");
  std::vector<double> out(in.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
  return out;
}

std::vector<double> row_sums(const std::vector<float>& in, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0 || static_cast<std::int64_t>(in.size()) != rows * cols)
    throw std::invalid_argument("row_sums: bad shape");
  std::vector<double> out(static_cast<std::size_t>(rows), 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out[r] += in[r * cols + c];
  return out;
}

}  // namespace lab06::cpu
