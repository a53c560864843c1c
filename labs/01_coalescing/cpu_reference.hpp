#pragma once
// Lab 01's CPU references, in double precision. The GPU's float results are compared against these.
#include <cstdint>
#include <vector>

namespace lab01::cpu {

std::vector<double> scale(const std::vector<float>& x, float alpha);
/// The dot product and the sum of |x[i] * y[i]| (what the float rounding error scales with).
struct Sum {
  double value = 0;
  double abs = 0;   ///< sum of the terms' magnitudes
  double peak = 0;  ///< largest |prefix sum| in index order (harness::integer_sum_tolerance)
};
Sum dot(const std::vector<float>& x, const std::vector<float>& y);
/// Column sums of a row-major rows x cols matrix, each with its sum of magnitudes.
std::vector<Sum> column_sums(const std::vector<float>& a, std::int64_t rows, std::int64_t cols);

}  // namespace lab01::cpu
