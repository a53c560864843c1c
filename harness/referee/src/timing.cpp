#include <harness/cuda_check.hpp>
#include <harness/timing.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <utility>

namespace harness {

L2Flusher::L2Flusher(std::size_t l2_bytes) : scratch_(2 * l2_bytes) {}

void L2Flusher::flush(cudaStream_t stream) {
  // A different value each time, so no layer of the memory system can skip the write as redundant.
  CUDA_CHECK(cudaMemsetAsync(scratch_.get(), ++value_, scratch_.bytes(), stream));
}

std::function<Sample()> stream_sample(std::function<void(cudaStream_t)> run, cudaStream_t stream,
                                      L2Flusher& flusher) {
  auto events = std::make_shared<std::pair<Event, Event>>();
  return [run = std::move(run), stream, &flusher, events] {
    const auto began = std::chrono::steady_clock::now();
    flusher.flush(stream);
    events->first.record(stream);
    run(stream);
    events->second.record(stream);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return Sample{static_cast<double>(events->second.elapsed_ms_since(events->first)),
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count()};
  };
}

std::vector<double> ContenderRecord::event_ms() const {
  std::vector<double> out;
  for (const Sample& s : samples) out.push_back(s.event_ms);
  return out;
}

std::vector<double> ContenderRecord::gap_ms() const {
  std::vector<double> out;
  for (const Sample& s : samples) out.push_back(s.wall_ms - s.event_ms);
  return out;
}

std::vector<double> ContenderRecord::graded_ms() const {
  if (!host_bound_overhead_ms) return event_ms();
  std::vector<double> wall;
  for (const Sample& s : samples) wall.push_back(s.wall_ms);
  return clock_bounded(event_ms(), wall, *host_bound_overhead_ms);
}

namespace {

/// The hooks that run around every round, warm-up rounds included.
struct RoundHooks {
  const std::function<void()>& before;
  const std::function<void()>& after;
};

/// Step 1: `options.warmup` untimed rounds of the contenders that have not run at this shape yet.
void warm_up(const std::vector<Contender>& contenders, const TimingOptions& options, const RoundHooks& hooks,
             std::vector<ContenderRecord>& records) {
  for (std::size_t w = 0; w < options.warmup; ++w) {
    if (hooks.before) hooks.before();
    for (std::size_t i = 0; i < contenders.size(); ++i)
      if (!contenders[i].warm) records[i].warmup.push_back(contenders[i].sample());
    if (hooks.after) hooks.after();
  }
}

/// Step 2: rounds, each contender once in a rotating order, until the options' stopping rule holds.
void run_rounds(const std::vector<Contender>& contenders, const TimingOptions& options, const RoundHooks& hooks,
                std::vector<ContenderRecord>& records) {
  const std::size_t k = contenders.size();
  const auto capped = [&](std::size_t i) {
    return contenders[i].max_samples > 0 && records[i].samples.size() >= contenders[i].max_samples;
  };
  const auto begin = std::chrono::steady_clock::now();
  const auto done = [&] {
    std::size_t fewest = options.max_samples;  // among the contenders still sampled
    for (std::size_t i = 0; i < k; ++i)
      if (!capped(i)) fewest = std::min(fewest, records[i].samples.size());
    if (fewest < options.floor_samples) return false;
    if (fewest >= options.max_samples) return true;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (elapsed > options.max_seconds) return true;
    if (fewest < options.min_samples) return false;
    for (std::size_t i = 0; i < k; ++i)
      if (!capped(i) && summarize(records[i].event_ms()).noise_pct > options.target_noise_pct) return false;
    return true;
  };
  for (std::size_t round = 0; !done(); ++round) {
    if (hooks.before) hooks.before();
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = (round + j) % k;  // rotate who goes first: no contender always follows the same one
      if (!capped(i)) records[i].samples.push_back(contenders[i].sample());
    }
    if (hooks.after) hooks.after();
  }
}

/// Step 5.
void summarize_record(ContenderRecord& record) { record.summary = summarize(record.graded_ms()); }

ContenderRecord& record_named(std::vector<ContenderRecord>& records, const std::string& name) {
  for (ContenderRecord& r : records)
    if (r.name == name) return r;
  throw std::logic_error("no contender named '" + name + "' was timed");
}

}  // namespace

std::vector<ContenderRecord> time_interleaved(const std::vector<Contender>& contenders, const TimingOptions& options,
                                              const std::function<void()>& before_round,
                                              const std::function<void()>& after_round) {
  std::vector<ContenderRecord> records;
  for (const Contender& c : contenders) records.push_back({.name = c.name});
  const RoundHooks hooks{before_round, after_round};
  warm_up(contenders, options, hooks, records);
  run_rounds(contenders, options, hooks, records);
  // Step 3, trim, is in the records' shape: warm-up runs went to `warmup`, apart from the samples.
  for (ContenderRecord& r : records) summarize_record(r);
  return records;
}

double bound_by_host_clock(std::vector<ContenderRecord>& records, const std::vector<std::string>& bounded,
                           const std::vector<std::string>& gauges) {
  std::vector<std::vector<double>> course_gaps;
  for (const std::string& name : gauges) course_gaps.push_back(record_named(records, name).gap_ms());
  const double overhead = runner_overhead(course_gaps);
  for (const std::string& name : bounded) {
    ContenderRecord& r = record_named(records, name);
    r.host_bound_overhead_ms = overhead;
    summarize_record(r);
  }
  return overhead;
}

}  // namespace harness
