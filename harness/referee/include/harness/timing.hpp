#pragma once
/// @file timing.hpp
/// @brief Interleaved, L2-cold timing with CUDA events, in named steps.
///
/// Method (nvbench's cold measurement, llm.c's benchmark_kernel), one step at a time, each a function below:
/// 1. warm-up: every contender that has not run at this shape runs `warmup` times, untimed;
/// 2. rounds: each contender once per round in a rotating order, L2 flushed before every sample, until every
///    contender has at least `min_samples` and a robust noise under `target_noise_pct`, or `max_seconds` have passed
///    once every contender has `floor_samples` (a contender of half a second a run is its own average: ten of them
///    bought nothing but the 20 s lab 04's first stage spent on every grade);
/// 3. trim: the warm-up runs are kept apart from the samples (ContenderRecord::warmup), never summarized;
/// 4. bound by the host clock: a runner's samples count at least the referee's clock less the course runners'
///    overhead (bound_by_host_clock), so that an event time a submission forged gains at most that overhead;
/// 5. summarize: median, extremes and noise of what is graded (ContenderRecord::summary).
/// Interleaving puts student, reference and baseline under the same clocks and temperature, so their ratio means
/// something even when the GPU drifts. Every sample carries both clocks (Sample) from the contender to its record.
#include <harness/device.hpp>
#include <harness/stats.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace harness {

/// Knobs of time_interleaved().
struct TimingOptions {
  std::size_t warmup = 1;          ///< untimed runs of each contender first (`time` has already run each once)
  std::size_t min_samples = 10;    ///< at least this many samples each, unless `max_seconds` has passed
  std::size_t floor_samples = 3;   ///< always at least this many samples each: a median needs three
  std::size_t max_samples = 200;   ///< never more than this many
  double target_noise_pct = 1.0;   ///< stop once every contender's robust noise is below this
  double max_seconds = 3.0;        ///< stop adding rounds after this, once each contender has floor_samples
};

/// One thing to time: `sample` makes one L2-cold run and returns both clocks' milliseconds (it may throw to stop the
/// timing).
struct Contender {
  std::string name;               ///< "student", "reference", ...
  std::function<Sample()> sample;  ///< one flushed, timed run
  /// Once it has this many samples it sits out the later rounds and no longer holds the timing up with its noise
  /// (0: no cap). For the baseline, which only anchors where performance points start: its runs are the slowest
  /// (lab 04's atomic stage as warp_atomic's baseline, 471 ms a run against 15 ms) and a grade moves little with it.
  std::size_t max_samples = 0;
  /// It has run at this shape already (`time` checks each runner once first): no warm-up run.
  bool warm = false;
};

/// Writes twice the L2 size before each sample so no contender finds its data in cache.
class L2Flusher {
 public:
  /// Allocates twice `l2_bytes` of scratch.
  explicit L2Flusher(std::size_t l2_bytes);
  /// Enqueues the write on `stream`.
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<unsigned char> scratch_;
  unsigned char value_ = 0;
};

/// The check before every timed sample that no other process's work is on the GPU (runner.hpp: runners are stopped
/// outside their turns, but what a runner left queued runs on). A probe, an empty kernel on the referee's stream
/// waited for by the host, comes back in tens of microseconds from an idle GPU and only after a time slice (about
/// 2 ms) from one another context keeps busy, since contexts take turns on the GPU (experiments/runner_lockdown; not
/// under MPS, where they run side by side and the probe sees nothing).
class IdleGpu {
 public:
  /// A probe that takes longer than this found the GPU busy: idle probes take 10-150 us, busy ones 2.2 ms and more.
  static constexpr double kBusyProbeMs = 1.0;
  /// Probes on `stream`; probes once first, so that loading the probe's kernel is not taken for a busy GPU.
  explicit IdleGpu(cudaStream_t stream);
  /// Probes until one finds the GPU idle, for at most `limit_s`; returns the milliseconds waited (0 when the first
  /// probe found it idle), or a negative number when it was still busy at the limit.
  double wait(double limit_s);
  /// One probe's host milliseconds.
  double probe_ms();

 private:
  cudaStream_t stream_;
};

/// Everything the timing of one contender produced: its runs with both clocks, and what is graded of them.
struct ContenderRecord {
  std::string name;             ///< the contender's
  std::vector<Sample> warmup;   ///< step 1's untimed runs, trimmed (step 3): never summarized
  std::vector<Sample> samples;  ///< step 2's samples, in the order they were taken
  /// Step 4: the allowance of the host-clock bound (ms), when this record's samples are bounded by it.
  std::optional<double> host_bound_overhead_ms;
  Summary summary;  ///< step 5: of graded_ms()

  /// Every sample's event time.
  std::vector<double> event_ms() const;
  /// Every sample's host clock less its events.
  std::vector<double> gap_ms() const;
  /// What is graded: the event times, each at least the host clock less the overhead where the record is bounded.
  std::vector<double> graded_ms() const;
};

/// A Contender::sample for work this process enqueues on `stream`: flush, events around `run`, synchronize; its host
/// clock spans the whole sample.
std::function<Sample()> stream_sample(std::function<void(cudaStream_t)> run, cudaStream_t stream, L2Flusher& flusher);

/// Steps 1, 2, 3 and 5: times `contenders` interleaved and returns one record per contender, in order, summarized by
/// its event times. `before_round` and `after_round`, when given, run around every round, warm-up rounds included
/// (fresh inputs before, checks of the round's outputs after); a contender that is warm or has its max_samples sits a
/// round out, so a hook must check only those that ran. Throws what a sample or a hook throws.
std::vector<ContenderRecord> time_interleaved(const std::vector<Contender>& contenders, const TimingOptions& options,
                                              const std::function<void()>& before_round = {},
                                              const std::function<void()>& after_round = {});

/// Step 4, then 5 again: bounds the records named in `bounded` by the host clock, with the overhead the records named
/// in `gauges` (the course's own runners, which no submission controls) pay for the same commands
/// (runner_overhead()), and summarizes them again. Returns that overhead.
double bound_by_host_clock(std::vector<ContenderRecord>& records, const std::vector<std::string>& bounded,
                           const std::vector<std::string>& gauges);

}  // namespace harness
