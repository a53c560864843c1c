#pragma once
/// @file median.hpp
/// @brief The one median of the course: the referee's timing summaries, the labs' own measures (lab 07's stages) and
/// the grader's class summaries all take the middle of their values this way, so that a number read in one place is
/// the number computed in another.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace harness {

/// Median of `v` (mean of the two middle values for even sizes); 0 for an empty vector.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

/// How well a median is known: the standard error of its logarithm, for a median of `samples` samples whose robust
/// spread is `noise_pct` percent of it: 1.2533 (the median's efficiency against the mean for normal noise) * noise /
/// sqrt(samples). 0 for no samples or no spread. The referee's metric errors and the grader's resolution of f both
/// start from it.
inline double median_log_error(double noise_pct, double samples) {
  if (!(samples > 0) || !std::isfinite(noise_pct) || noise_pct < 0) return 0.0;
  return 1.2533 * noise_pct / 100.0 / std::sqrt(samples);
}

}  // namespace harness
