#include <harness/tolerance.hpp>

#include <cmath>

namespace harness {

namespace {
constexpr double kUnitRoundoff = 0x1p-24;  // float32
constexpr double kLambda = 6.0;            // see sum_tolerance()
}  // namespace

Tolerance Tolerance::float_ops(int ops) { return {{0.0}, 2.0 * ops * kUnitRoundoff}; }

double sum_tolerance(std::size_t terms, double sum_abs) {
  return kLambda * std::sqrt(static_cast<double>(terms)) * kUnitRoundoff * sum_abs;
}

double integer_sum_tolerance(std::size_t terms, double sum_abs, double peak) {
  constexpr double kExactBelow = 0x1p24;  // float represents, and adds, every integer below this exactly
  constexpr double kOrderFactor = 16;     // partial sums of other orders against the index-order peak
  return kOrderFactor * peak < kExactBelow ? 0.0 : sum_tolerance(terms, sum_abs);
}

}  // namespace harness
