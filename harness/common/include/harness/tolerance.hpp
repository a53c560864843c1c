#pragma once
/// @file tolerance.hpp
/// @brief How close an output must be to its CPU reference: |out - ref| <= atol + rtol * |ref|, with the bounds the
/// labs' references use for float sums. A lab's generate() sets it; the referee's comparison (compare.hpp) applies it.
#include <cstddef>
#include <vector>

namespace harness {

/// Tolerance of one output: element i passes when |out[i] - ref[i]| <= atol[i] + rtol * |ref[i]|.
/// `atol` holds either one value for every element or one per element (sums of different lengths need different ones).
struct Tolerance {
  std::vector<double> atol{0.0};  ///< one value for all elements, or one per element
  double rtol = 0.0;              ///< relative part, times |ref|

  /// Bit-for-bit: for small-integer inputs whose every intermediate is exactly representable.
  static Tolerance exact() { return {}; }
  /// For results of a few float operations each: a few units in the last place of a float.
  static Tolerance float_ops(int ops);
  /// The absolute tolerance of element `i`.
  [[nodiscard]] double atol_at(std::size_t i) const { return atol.size() == 1 ? atol[0] : atol[i]; }
};

/// Absolute tolerance for a float32 sum of `terms` terms whose magnitudes add up to `sum_abs`, in any order.
///
/// Why this bound: each float addition is exact up to a relative error u = 2^-24. The worst-case bound for any
/// summation order, (n-1) u sum|x_i|, is so loose that it accepts wrong answers at large n. Rounding errors of
/// real summations behave like independent, mean-zero random variables, for which Higham and Mary (SIAM J. Sci.
/// Comput. 41(5), 2019, Theorem 2.8) prove |error| <= lambda sqrt(n) u sum|x_i| with probability at least
/// 1 - 2 exp(-lambda^2 / 2). lambda = 6 makes a false alarm a 1-in-10^7 event per check. The bound grows with the
/// length of the sum and with the magnitudes. It is below 1 while sqrt(n) sum|x| < 2.8e6, which holds up to n = 3000
/// when every term is at most 16 in magnitude: at those test sizes a sum that drops one integer term cannot pass.
double sum_tolerance(std::size_t terms, double sum_abs);

/// Absolute tolerance for a float32 sum of integer-valued terms: 0 (exact) where the sum's partial sums stay far
/// below 2^24, else sum_tolerance(terms, sum_abs).
///
/// Why exact: float adds integers exactly while every partial sum is below 2^24 in magnitude. `peak` is the largest
/// |prefix sum| of the terms in index order. For mean-zero terms every summation order that does not sort the terms
/// by value (sequential, strided, tree, atomic in any interleaving) forms partial sums that are walks of the same
/// kind, within a small factor of that peak; 16 x peak < 2^24 leaves that factor far behind. Then the right float
/// answer is the integer sum itself, and a sum that drops, repeats or changes one term by 1 cannot pass, at any size.
double integer_sum_tolerance(std::size_t terms, double sum_abs, double peak);

}  // namespace harness
