#pragma once
/// @file stats.hpp
/// @brief Robust summaries of timing samples.
#include <cstddef>
#include <vector>

#include <harness/median.hpp>

namespace harness {

/// One timed run, as both clocks saw it.
struct Sample {
  double event_ms = 0;  ///< CUDA events around the work alone: the measure
  /// The referee's host clock around the command that ran it: for a runner the command it was sent (an upper bound the
  /// runner cannot move), for course code run in the referee the whole sample, its L2 flush included.
  double wall_ms = 0;
};

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

/// Summarizes `samples`; all zeros for an empty vector.
Summary summarize(const std::vector<double>& samples);

/// The `q` quantile of `v` (nearest rank); 0 for an empty vector.
double quantile(std::vector<double> v, double q);

/// What a fair runner's command may cost beyond its own events, from the gaps (referee's clock around each command
/// less the runner's event time, ms) of the course's own runners, which no submission controls: the largest of their
/// 90th percentiles (medians for a runner of fewer than 10 samples). One runner's gaps are not enough: two identical
/// runner processes differ from one run to the next (on an H200, a median gap of 0.19 ms for the reference's and
/// 0.37 ms for the baseline's and the student's, commit 195e816), and a fair student graded with the smaller one lost
/// 15% of its time to its own process.
double runner_overhead(const std::vector<std::vector<double>>& course_gaps);

/// The samples that are graded: each at least the referee's clock (`wall`) less `overhead`, so that an event time a
/// submission forged cannot be much shorter than what the referee saw (it gains at most the overhead).
std::vector<double> clock_bounded(const std::vector<double>& event, const std::vector<double>& wall, double overhead);

}  // namespace harness
