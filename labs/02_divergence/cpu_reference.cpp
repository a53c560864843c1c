#include "cpu_reference.hpp"

#include "divergence.hpp"

#include <harness/parallel.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab02::cpu {

Element fma_chain(float x, float scale, float shift, int steps) {
  Element e{x, std::fabs(static_cast<double>(x))};
  for (int k = 0; k < steps; ++k) {
    e.value = e.value * static_cast<double>(scale) + static_cast<double>(shift);
    e.max_abs = std::max(e.max_abs, std::fabs(e.value));
  }
  return e;
}

Element branch_element(float x, std::int64_t index, int iterations) {
  const bool odd = index % 2 != 0;
  return odd ? fma_chain(x, kOddScale, kOddShift, iterations) : fma_chain(x, kEvenScale, kEvenShift, iterations);
}

RegroupElement regroup_element(float x, float threshold, int heavy_steps, int light_steps) {
  if (x >= threshold) return {fma_chain(x, kHeavyScale, kHeavyShift, heavy_steps), true, heavy_steps};
  return {fma_chain(x, kLightScale, kLightShift, light_steps), false, light_steps};
}

double heavy_fraction(double threshold, int lo, int hi) {
  if (hi < lo) throw std::invalid_argument("heavy_fraction: empty range");
  int heavy = 0;
  for (int v = lo; v <= hi; ++v) heavy += v >= threshold ? 1 : 0;
  return static_cast<double>(heavy) / (hi - lo + 1);
}

std::vector<Sum> segment_sums(const std::vector<float>& x, std::int64_t segment) {
  if (segment < 1) throw std::invalid_argument("segment_sums: segment must be positive");
  const std::size_t n = x.size(), len = static_cast<std::size_t>(segment);
  std::vector<Sum> sums((n + len - 1) / len);
  // Segments over the host's cores (2^28 elements at the timed shape, in every `time` run), each in index order.
  const std::size_t min_segments = std::max<std::size_t>(1, (std::size_t{1} << 20) / len);
  harness::parallel_chunks(sums.size(), min_segments, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t s = first; s < last; ++s)
      for (std::size_t i = s * len; i < std::min(n, (s + 1) * len); ++i) {
        sums[s].value += x[i];
        sums[s].abs += std::fabs(static_cast<double>(x[i]));
      }
  });
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
