#pragma once
/// @file stats.hpp
/// @brief Robust summaries of timing samples.
#include <cstddef>
#include <vector>

namespace harness {

/// Summary of a set of timing samples (milliseconds).
struct Summary {
  std::size_t samples = 0;  ///< how many samples were summarized
  double median = 0;        ///< the median, in the samples' unit (ms)
  double min = 0;           ///< the fastest sample
  double max = 0;           ///< the slowest sample
  /// Robust relative spread in percent: 1.4826 * median absolute deviation / median (equals the coefficient of
  /// variation for normal noise, but one descheduled sample cannot inflate it).
  double noise_pct = 0;
};

/// Median of `v` (mean of the two middle values for even sizes); 0 for an empty vector.
double median(std::vector<double> v);
/// Summarizes `samples`; all zeros for an empty vector.
Summary summarize(const std::vector<double>& samples);

}  // namespace harness
