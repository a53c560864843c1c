#include "cpu_reference.hpp"

#include "divergence.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab02::cpu {

Element branch_element(float x, std::int64_t index, int iterations) {
  const bool odd = index % 2 != 0;
  const double scale = odd ? kOddScale : kEvenScale;  // the float constants, exactly
  const double shift = odd ? kOddShift : kEvenShift;
  Element e{x, std::fabs(static_cast<double>(x))};
  for (int k = 0; k < iterations; ++k) {
    e.value = e.value * scale + shift;
    e.max_abs = std::max(e.max_abs, std::fabs(e.value));
  }
  return e;
}

std::vector<Sum> segment_sums(const std::vector<float>& x, std::int64_t segment) {
  if (segment < 1) throw std::invalid_argument("segment_sums: segment must be positive");
  const std::size_t n = x.size(), len = static_cast<std::size_t>(segment);
  std::vector<Sum> sums((n + len - 1) / len);
  for (std::size_t i = 0; i < n; ++i) {
    sums[i / len].value += x[i];
    sums[i / len].abs += std::fabs(static_cast<double>(x[i]));
  }
  return sums;
}

std::vector<std::size_t> sample_indices(std::int64_t n) {
  const std::size_t size = static_cast<std::size_t>(n);
  std::vector<std::size_t> out;
  if (size <= 65536) {
    for (std::size_t i = 0; i < size; ++i) out.push_back(i);
    return out;
  }
  for (std::size_t i = 0; i < 4096; ++i) out.push_back(i);
  for (std::size_t i = 4096; i < size - 4096; i += 61) out.push_back(i);
  for (std::size_t i = size - 4096; i < size; ++i) out.push_back(i);
  return out;
}

}  // namespace lab02::cpu
