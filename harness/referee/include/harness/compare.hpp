#pragma once
/// @file compare.hpp
/// @brief The one comparison routine of the course: |out - ref| <= atol + rtol * |ref| (tolerance.hpp), NaN and Inf
/// explicit.
#include <harness/tolerance.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace harness {

/// One element that failed the comparison.
struct Mismatch {
  std::size_t index;  ///< position in the output
  double got;         ///< what the kernel wrote
  double expected;    ///< the CPU reference
};

/// The outcome of comparing an output with its reference.
struct Comparison {
  std::size_t count = 0;               ///< elements compared
  std::size_t failures = 0;            ///< elements outside tolerance (NaN where a number was expected counts)
  std::vector<Mismatch> first;         ///< the first few failures, in index order
  double max_abs_error = 0.0;          ///< over the finite pairs
  /// True when every element is within tolerance.
  [[nodiscard]] bool ok() const { return failures == 0; }
  /// "3 of 1025 elements differ; first at [1024]: got nan, expected 12 (tolerance 0)". With `index_map`, element k
  /// of the comparison is reported as index_map[k] (for sampled checks).
  [[nodiscard]] std::string describe(const std::string& what, const Tolerance& tol,
                                     const std::vector<std::size_t>* index_map = nullptr) const;
};

/// Compares `got[0..n)` with `expected[0..n)`. A NaN expectation requires NaN; an infinite one requires the same
/// infinity; a NaN or infinity where a finite value was expected always fails, whatever the tolerance.
template <class T>
Comparison compare(const T* got, const double* expected, std::size_t n, const Tolerance& tol,
                   std::size_t keep_first = 5);

/// @cond INTERNAL
extern template Comparison compare<float>(const float*, const double*, std::size_t, const Tolerance&, std::size_t);
extern template Comparison compare<double>(const double*, const double*, std::size_t, const Tolerance&,
                                           std::size_t);
extern template Comparison compare<std::int32_t>(const std::int32_t*, const double*, std::size_t,
                                                 const Tolerance&, std::size_t);
/// @endcond

}  // namespace harness
