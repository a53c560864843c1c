// Lab 07's exercises: host-resident inputs and outputs, CPU references, the work each must do, the sizes tested and
// timed, and the stage-by-stage ceiling.
//
// The arrays that matter live in host memory. Every implementation runs in a runner process of its own, like every
// other lab's (harness/include/harness/runner.hpp): the pipelines' h_in and h_out are harness buffers in host memory
// that the lab binary shares with the runner (harness::Memory::host: both map and page-lock the same pages), with the
// guard zones, poisoning and checks of device buffers; exercise 1's arrays come from the implementation's own
// allocator, so they are the runner's, and the problem copies to and from them outside the timed interval.
#include "cpu_reference.hpp"
#include "streams.hpp"
#include "support/stages.hpp"

#include <harness/cuda_check.hpp>
#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

namespace lab07 {
namespace {

using harness::Shape;
using harness::Work;

// ---- 1. pinned_memory ----------------------------------------------------------------------------------------
// The implementation under test only decides where the host arrays come from; the copies are the harness's own:
// cudaMemcpyAsync host to device, then device to host, on the harness's stream. The input and output the lab binary
// checks are device buffers (fresh inputs every timed round, checked on the GPU like any lab's): in the runner,
// before_run() copies the input into the allocator's array and after_run() copies the allocator's output array into
// the output, both outside the timed interval, which holds only the two copies.
class RoundTrip final : public harness::Problem {
 public:
  explicit RoundTrip(const Shape& s)
      : Problem(s), n_(s[0]), in_(*this, "in", n_), out_(*this, "out", n_), device_(*this, "device", n_) {}
  ~RoundTrip() override {
    try {  // release() must not throw; a destructor cannot let it
      if (in_host_) memory_.release(in_host_);
      if (out_host_) memory_.release(out_host_);
    } catch (const std::exception& e) {
      std::cerr << "the host memory of the allocator could not be released: " << e.what() << "\n";
    }
  }
  void generate(std::uint64_t seed) override {
    in_.set(harness::random_ints(n_, seed, -8, 8));
    out_.expect(std::vector<double>(in_.host().begin(), in_.host().end()), harness::Tolerance::exact());
  }
  // Runner side: the allocator's arrays, made on first use (the checked run before any timing), get the input.
  void before_run(const harness::Impl& impl) override {
    if (!in_host_) {
      memory_ = impl.launcher<HostMemory>("pinned_memory");
      in_host_ = static_cast<float*>(memory_.allocate(bytes()));
      out_host_ = static_cast<float*>(memory_.allocate(bytes()));
      if (!in_host_ || !out_host_) throw std::runtime_error("the host allocator returned nullptr");
      std::memset(out_host_, 0xFF, bytes());  // NaN: a copy that never lands cannot pass
    }
    CUDA_CHECK(cudaMemcpy(in_host_, in_.data(), bytes(), cudaMemcpyDeviceToHost));
  }
  void run(const harness::Impl& /*impl*/, cudaStream_t s) override {
    if (!in_host_) throw std::logic_error("run() before before_run() (course bug)");
    CUDA_CHECK(cudaMemcpyAsync(device_.data(), in_host_, bytes(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(out_host_, device_.data(), bytes(), cudaMemcpyDeviceToHost, s));
  }
  void after_run(const harness::Impl& /*impl*/) override {
    CUDA_CHECK(cudaMemcpy(out_.data(), out_host_, bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // from pageable memory cudaMemcpy may return before the copy has landed
  }
  // 4 bytes each way per element, over the host link.
  [[nodiscard]] Work work() const override { return {.bytes = 2.0 * bytes(), .flops = 0}; }

 private:
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }

  std::int64_t n_;
  harness::Input<float> in_;
  harness::Output<float> out_;
  harness::Scratch<float> device_;  // where the round trip lands on the device
  HostMemory memory_{};             // runner side: the implementation's allocator and its two arrays
  float* in_host_ = nullptr;
  float* out_host_ = nullptr;
};

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

// h_in and h_out are host buffers shared with the runner (guarded, h_out poisoned before every run, both checked on
// the host); d_in and d_out are device scratch, poisoned before every run: a kernel that reads a chunk before its copy
// has landed reads NaN. The runner also looks at h_out right after the harness's stream finishes, before it waits for
// the whole device (Problem::first_unjoined()): an element still unwritten then means work on the launcher's own
// streams that `stream` never waited for, which the check reports.
class Pipeline final : public harness::Problem {
 public:
  Pipeline(const Shape& s, const char* exercise, Kernel kernel)
      : Problem(s),
        exercise_(exercise),
        kernel_(kernel),
        n_(s[0]),
        h_in_(*this, "h_in", n_, harness::Memory::host),
        h_out_(*this, "h_out", n_, harness::Memory::host),
        d_in_(*this, "d_in", n_),
        d_out_(*this, "d_out", n_) {}
  void generate(std::uint64_t seed) override {
    h_in_.set(harness::random_ints(n_, seed, -8, 8));
    h_out_.expect(kernel_ == Kernel::poly ? cpu::poly(h_in_.host()) : cpu::stencil(h_in_.host()),
                  harness::Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<PipelineLauncher>(exercise_)(h_in_.data(), h_out_.data(), d_in_.data(), d_out_.data(), n_, s);
  }
  // 4 bytes over the host link each way per element; the kernel's device traffic is not the bottleneck.
  [[nodiscard]] Work work() const override { return {.bytes = 2.0 * bytes(), .flops = 3.0 * n_}; }

  // The three stages alone, on the same buffers: the peers timed beside the pipelines.
  void h2d(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(d_in_.data(), h_in_.data(), bytes(), cudaMemcpyHostToDevice, s));
  }
  void kernel(cudaStream_t s) { launch_stage_kernel(kernel_, d_in_.data(), d_out_.data(), n_, s); }
  void d2h(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(h_out_.data(), d_out_.data(), bytes(), cudaMemcpyDeviceToHost, s));
  }

 private:
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  const char* exercise_;
  Kernel kernel_;
  std::int64_t n_;
  harness::Input<float> h_in_;
  harness::Output<float> h_out_;
  harness::Scratch<float> d_in_, d_out_;
};

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
      std::vector<float> ms;
      for (int rep = 0; rep < 4; ++rep) {  // the first is a warm-up
        harness::Event start, stop;
        start.record(stream.get());
        run_part(part, stream.get());
        stop.record(stream.get());
        stream.synchronize();
        if (rep > 0) ms.push_back(stop.elapsed_ms_since(start));
      }
      std::sort(ms.begin(), ms.end());
      if (ms[1] > slowest) {
        slowest = ms[1];
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

Pipeline& as_pipeline(harness::Problem& p) { return dynamic_cast<Pipeline&>(p); }

std::vector<harness::Peer> stage_peers() {
  return {
      {"h2d_alone", [](harness::Problem& p, cudaStream_t s) { as_pipeline(p).h2d(s); }},
      {"kernel_alone", [](harness::Problem& p, cudaStream_t s) { as_pipeline(p).kernel(s); }},
      {"d2h_alone", [](harness::Problem& p, cudaStream_t s) { as_pipeline(p).d2h(s); }},
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

// Sizes around a warp and a block, a prime, and two large ones: 64 MiB, and 256 MiB plus a few elements (a chunked
// pipeline's last chunk is then short). The large ones take milliseconds, long enough that work left running on
// unjoined streams is caught.
const std::vector<std::int64_t> kSizes = {1, 31, 32, 33, 1023, 1024, 1025, 1000003, 1 << 24, (1 << 26) + 5};
// 256 MiB each way: about 4.8 ms per direction over the H200's host link (55 GB/s pinned in the anchors).
const Shape kTimed = {1 << 26};

}  // namespace

REGISTER_EXERCISE({
    .name = "pinned_memory",
    .title = "Pinned host memory: allocate the host arrays so copies run at the link's speed",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = kTimed,
    .make = [](const Shape& s) { return std::make_unique<RoundTrip>(s); },
    .ceiling = [](const Shape& s) { return std::make_unique<PinnedRoundTrip>(s[0]); },
});

REGISTER_EXERCISE({
    .name = "pipeline",
    .title = "Copy-in / kernel / copy-out in chunks over several streams, copies overlapping",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = kTimed,
    .make = [](const Shape& s) { return std::make_unique<Pipeline>(s, "pipeline", Kernel::poly); },
    .ceiling = [](const Shape& s) { return std::make_unique<PipelineCeiling>(s[0], Kernel::poly); },
    .peers = stage_peers(),
    .metrics = overlap,
});

REGISTER_EXERCISE({
    .name = "stencil_pipeline",
    .title = "A pipeline whose chunks need their neighbours' data: dependencies across streams with events",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = kTimed,
    .make = [](const Shape& s) { return std::make_unique<Pipeline>(s, "stencil_pipeline", Kernel::stencil); },
    .ceiling = [](const Shape& s) { return std::make_unique<PipelineCeiling>(s[0], Kernel::stencil); },
    .peers = stage_peers(),
    .metrics = overlap,
});

}  // namespace lab07
