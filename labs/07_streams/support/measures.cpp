// What the referee times beside lab 07's exercises, on buffers of its own: exercise 1's ceiling, the same round trip
// from and to cudaMallocHost memory; the pipelines' ceiling, the slowest part they cannot avoid; the pipelines' three
// stages alone on the problem's own buffers (the peers), and the overlap computed from them (the metrics).
#include "support/stages.hpp"

#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/measures.hpp>
#include <harness/median.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace lab07 {
namespace {

using harness::Shape;

/// The ceiling of exercise 1: the same two copies from and to pinned memory of its own.
class PinnedRoundTrip final : public harness::CeilingOp {
 public:
  explicit PinnedRoundTrip(std::int64_t n) : n_(n), in_(n), out_(n), device_(n) {
    std::memset(in_.get(), 0, bytes());
  }
  void run(cudaStream_t s) override {
    CUDA_CHECK(cudaMemcpyAsync(device_.get(), in_.get(), bytes(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(out_.get(), device_.get(), bytes(), cudaMemcpyDeviceToHost, s));
  }
  [[nodiscard]] double amount() const override { return 2.0 * bytes(); }
  [[nodiscard]] std::string what() const override { return "the same round trip from and to cudaMallocHost memory"; }

 private:
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  std::int64_t n_;
  harness::PinnedBuffer<float> in_, out_;
  harness::DeviceBuffer<float> device_;
};

// ---- 2. pipeline, 3. stencil_pipeline ------------------------------------------------------------------------
enum class Kernel { poly, stencil };

void launch_stage_kernel(Kernel kernel, const float* x, float* y, std::int64_t n, cudaStream_t s) {
  if (kernel == Kernel::poly)
    stages::launch_poly(x, y, n, s);
  else
    stages::launch_stencil(x, y, n, s);
}

/// The ceiling of exercises 2 and 3: the slowest thing the pipeline cannot avoid doing, run alone on buffers of its
/// own. Candidates are each of the three stages alone and the two copies at once (H2D and D2H of the array on two
/// streams, in kChunks chunks as a pipeline copies): every byte crosses the host link once each way, and a link
/// running both directions together is slower per direction than one running alone (on the course's H200, 5.6 ms
/// for both against 4.9 ms for either). In chunks, because two whole-array copies at once varied from 5.3 to 6.2 ms
/// from one process to the next on the H200, where 64 chunks each way stayed within 5.57-5.64 ms
/// (results/2026-11-23-h200-de5127e/lab07_pipeline.json, results/2026-11-23-h200-86f2804/h200.json). Which one is
/// slowest is measured when the ceiling is made (three timings of each, median), in the same process as the rest;
/// amount() is the pipeline's bytes, so the ceiling's rate is what the pipeline would reach if everything else hid
/// behind that one, and percent_of_ceiling is t_ceiling / t_yours.
class PipelineCeiling final : public harness::CeilingOp {
 public:
  PipelineCeiling(std::int64_t n, Kernel kernel) : n_(n), kernel_(kernel), h_in_(n), h_out_(n), d_in_(n), d_out_(n) {
    std::fill(h_in_.get(), h_in_.get() + n, 1.0f);
    harness::Stream stream;
    double slowest = -1;
    for (int part = 0; part < kParts; ++part) {
      std::vector<double> ms;
      for (int rep = 0; rep < 4; ++rep) {  // the first is a warm-up
        harness::Event start, stop;
        start.record(stream.get());
        run_part(part, stream.get());
        stop.record(stream.get());
        stream.synchronize();
        if (rep > 0) ms.push_back(stop.elapsed_ms_since(start));
      }
      if (const double typical = harness::median(ms); typical > slowest) {
        slowest = typical;
        part_ = part;
      }
    }
  }
  void run(cudaStream_t s) override { run_part(part_, s); }
  [[nodiscard]] double amount() const override { return 2.0 * bytes(); }
  [[nodiscard]] std::string what() const override {
    static const char* names[] = {"host-to-device copy alone", "kernel alone", "device-to-host copy alone",
                                  "two copies at once (H2D and D2H on two streams, 32 chunks each)"};
    return std::string("slowest part: the ") + names[part_] + " of the whole array (pinned memory)";
  }

 private:
  static constexpr int kParts = 4;  // H2D, kernel, D2H, both copies at once
  static constexpr std::int64_t kChunks = 32;  // as the reference's pipelines
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  void h2d(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(d_in_.get(), h_in_.get(), bytes(), cudaMemcpyHostToDevice, s));
  }
  void d2h(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(h_out_.get(), d_out_.get(), bytes(), cudaMemcpyDeviceToHost, s));
  }
  void run_part(int part, cudaStream_t s) {
    if (part == 0) {
      h2d(s);
    } else if (part == 1) {
      launch_stage_kernel(kernel_, d_in_.get(), d_out_.get(), n_, s);
    } else if (part == 2) {
      d2h(s);
    } else {  // D2Hs on a side stream forked from and joined back to s, so that s's events time both copies
      fork_.record(s);
      CUDA_CHECK(cudaStreamWaitEvent(side_.get(), fork_.get(), 0));
      const std::int64_t chunk = (n_ + kChunks - 1) / kChunks;
      for (std::int64_t begin = 0; begin < n_; begin += chunk) {
        const std::size_t len = static_cast<std::size_t>(std::min(chunk, n_ - begin)) * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_in_.get() + begin, h_in_.get() + begin, len, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(h_out_.get() + begin, d_out_.get() + begin, len, cudaMemcpyDeviceToHost,
                                   side_.get()));
      }
      join_.record(side_.get());
      CUDA_CHECK(cudaStreamWaitEvent(s, join_.get(), 0));
    }
  }
  std::int64_t n_;
  Kernel kernel_;
  harness::PinnedBuffer<float> h_in_, h_out_;
  harness::DeviceBuffer<float> d_in_, d_out_;
  harness::Stream side_;
  harness::Event fork_, join_;
  int part_ = 0;
};

/// The pipeline's three stages alone, on the problem's own buffers (exercises.cpp's Pipeline): h_in, d_in, d_out,
/// h_out.
std::vector<harness::Peer> stage_peers(Kernel kernel) {
  using harness::buffer_named;
  const auto bytes = [](const harness::Problem& p) { return static_cast<std::size_t>(p.shape()[0]) * sizeof(float); };
  return {
      {"h2d_alone",
       [=](harness::Problem& p, cudaStream_t s) {
         CUDA_CHECK(cudaMemcpyAsync(buffer_named<harness::Scratch<float>>(p, "d_in").data(),
                                    buffer_named<harness::Input<float>>(p, "h_in").data(), bytes(p),
                                    cudaMemcpyHostToDevice, s));
       }},
      {"kernel_alone",
       [=](harness::Problem& p, cudaStream_t s) {
         launch_stage_kernel(kernel, buffer_named<harness::Scratch<float>>(p, "d_in").data(),
                             buffer_named<harness::Scratch<float>>(p, "d_out").data(), p.shape()[0], s);
       }},
      {"d2h_alone",
       [=](harness::Problem& p, cudaStream_t s) {
         CUDA_CHECK(cudaMemcpyAsync(buffer_named<harness::Output<float>>(p, "h_out").data(),
                                    buffer_named<harness::Scratch<float>>(p, "d_out").data(), bytes(p),
                                    cudaMemcpyDeviceToHost, s));
       }},
  };
}

/// overlap = (sequential - t) / (sequential - ceiling): 0 for a sequential pipeline, 1 when the pipeline takes no
/// longer than the slowest part it cannot avoid (PipelineCeiling). The baseline is the sequential pipeline.
std::map<std::string, double> overlap(const harness::Medians& m) {
  const double seq = m.at("baseline"), slowest = m.at("ceiling");
  const auto of = [&](double t) { return (seq - t) / (seq - slowest); };
  return {{"overlap_student", of(m.at("student"))},
          {"overlap_reference", of(m.at("reference"))},
          {"sequential_ms", seq},
          {"ceiling_ms", slowest}};
}

harness::Measures pipeline_measures(Kernel kernel) {
  return {.ceiling = [kernel](const Shape& s) { return std::make_unique<PipelineCeiling>(s[0], kernel); },
          .peers = stage_peers(kernel),
          .metrics = overlap};
}

}  // namespace

REGISTER_MEASURES("pinned_memory", {.ceiling = [](const Shape& s) { return std::make_unique<PinnedRoundTrip>(s[0]); }});
static const harness::MeasuresRegistrar kPipeline{"pipeline", pipeline_measures(Kernel::poly)};
static const harness::MeasuresRegistrar kStencilPipeline{"stencil_pipeline", pipeline_measures(Kernel::stencil)};

}  // namespace lab07
