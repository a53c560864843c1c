#include "cpu_reference.hpp"

#include <algorithm>
#include <cmath>

namespace lab04::cpu {

Sum sum(const std::vector<float>& x) {
  Sum s;
  for (float v : x) {
    s.value += v;
    s.abs += std::fabs(static_cast<double>(v));
    s.peak = std::max(s.peak, std::fabs(s.value));
  }
  return s;
}

}  // namespace lab04::cpu
