#include <harness/cuda_check.hpp>
#include <harness/timing.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

namespace harness {

L2Flusher::L2Flusher(std::size_t l2_bytes) : scratch_(2 * l2_bytes) {}

void L2Flusher::flush(cudaStream_t stream) {
  // A different value each time, so no layer of the memory system can skip the write as redundant.
  CUDA_CHECK(cudaMemsetAsync(scratch_.get(), ++value_, scratch_.bytes(), stream));
}

std::function<double()> stream_sample(std::function<void(cudaStream_t)> run, cudaStream_t stream,
                                      L2Flusher& flusher) {
  auto events = std::make_shared<std::pair<Event, Event>>();
  return [run = std::move(run), stream, &flusher, events] {
    flusher.flush(stream);
    events->first.record(stream);
    run(stream);
    events->second.record(stream);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<double>(events->second.elapsed_ms_since(events->first));
  };
}

std::vector<Summary> time_interleaved(const std::vector<Contender>& contenders, const TimingOptions& options,
                                      const std::function<void()>& before_round,
                                      const std::function<void()>& after_round) {
  const std::size_t k = contenders.size();
  for (std::size_t w = 0; w < options.warmup; ++w) {
    if (before_round) before_round();
    for (const auto& c : contenders)
      if (!c.warm) c.sample();
    if (after_round) after_round();
  }

  std::vector<std::vector<double>> samples(k);
  const auto capped = [&](std::size_t i) {
    return contenders[i].max_samples > 0 && samples[i].size() >= contenders[i].max_samples;
  };
  const auto begin = std::chrono::steady_clock::now();
  const auto done = [&] {
    std::size_t fewest = options.max_samples;  // among the contenders still sampled
    for (std::size_t i = 0; i < k; ++i)
      if (!capped(i)) fewest = std::min(fewest, samples[i].size());
    if (fewest < options.floor_samples) return false;
    if (fewest >= options.max_samples) return true;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (elapsed > options.max_seconds) return true;
    if (fewest < options.min_samples) return false;
    for (std::size_t i = 0; i < k; ++i)
      if (!capped(i) && summarize(samples[i]).noise_pct > options.target_noise_pct) return false;
    return true;
  };
  for (std::size_t round = 0; !done(); ++round) {
    if (before_round) before_round();
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = (round + j) % k;  // rotate who goes first: no contender always follows the same one
      if (!capped(i)) samples[i].push_back(contenders[i].sample());
    }
    if (after_round) after_round();
  }
  std::vector<Summary> out;
  for (const auto& s : samples) out.push_back(summarize(s));
  return out;
}

}  // namespace harness
