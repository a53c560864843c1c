#pragma once
// Lab 04's CPU reference, in double precision.
#include <vector>

namespace lab04::cpu {

/// A sum and the sum of its terms' magnitudes (what the float rounding error scales with).
struct Sum {
  double value = 0;
  double abs = 0;   ///< sum of the terms' magnitudes
  double peak = 0;  ///< largest |prefix sum| in index order (harness::integer_sum_tolerance)
};
Sum sum(const std::vector<float>& x);

}  // namespace lab04::cpu
