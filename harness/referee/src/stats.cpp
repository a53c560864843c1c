#include <harness/stats.hpp>

#include <algorithm>
#include <cmath>

namespace harness {

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  if (samples.empty()) return s;
  s.samples = samples.size();
  s.median = median(samples);
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  s.min = *lo;
  s.max = *hi;
  std::vector<double> dev(samples.size());
  std::transform(samples.begin(), samples.end(), dev.begin(), [&](double x) { return std::fabs(x - s.median); });
  s.noise_pct = s.median > 0 ? 100.0 * 1.4826 * median(std::move(dev)) / s.median : 0.0;
  return s;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

double runner_overhead(const std::vector<std::vector<double>>& course_gaps) {
  double overhead = 0.0;
  // A runner of few samples (the baseline sits out after three) gives its median: one descheduled command among
  // three would otherwise be its 90th percentile, and widen the bound for everyone.
  for (const auto& gaps : course_gaps) overhead = std::max(overhead, quantile(gaps, gaps.size() >= 10 ? 0.9 : 0.5));
  return overhead;
}

std::vector<double> clock_bounded(const std::vector<double>& event, const std::vector<double>& wall, double overhead) {
  std::vector<double> out;
  for (std::size_t i = 0; i < event.size() && i < wall.size(); ++i)
    out.push_back(std::max(event[i], wall[i] - overhead));
  return out;
}

}  // namespace harness
