#include "cpu_reference.hpp"

namespace lab07::cpu {

std::vector<double> poly(const std::vector<float>& x) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    y[i] = v * v + 3 * v - 1;
  }
  return y;
}

std::vector<double> stencil(const std::vector<float>& x) {
  const std::size_t n = x.size();
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < n ? x[i + 1] : 0.0;
    y[i] = left + 2.0 * x[i] + right;
  }
  return y;
}

}  // namespace lab07::cpu
