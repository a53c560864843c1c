// Lab 07's exercises: host-resident inputs and outputs, CPU references, the work each must do, the sizes tested and
// timed, and the stage-by-stage ceiling.
//
// Unlike the other labs, the arrays that matter live in host memory: the harness's device buffers (with their
// poisoning and guard zones) do not apply, so these problems poison and check their host output themselves. Every
// verify() also checks that the launcher's work was ordered before the harness's stream: right after that stream
// finishes, nothing may still be unwritten.
#include "cpu_reference.hpp"
#include "streams.hpp"
#include "support/stages.hpp"

#include <harness/cuda_check.hpp>
#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

namespace lab07 {
namespace {

using harness::Shape;
using harness::Verdict;
using harness::Work;

constexpr unsigned char kPoisonByte = 0xFF;  // 0xFFFFFFFF is a NaN: an element never written cannot pass

void append(Verdict& v, const std::string& problem) {
  v.ok = false;
  v.message += (v.message.empty() ? "" : "\n") + problem;
}

// ---- 1. pinned_memory ----------------------------------------------------------------------------------------
// The implementation under test only decides where the host arrays come from; the copies are the harness's own:
// cudaMemcpyAsync host to device, then device to host, on the harness's stream.
class RoundTrip final : public harness::Problem {
 public:
  explicit RoundTrip(const Shape& s) : Problem(s), n_(s[0]), device_(n_) {}
  ~RoundTrip() override {
    for (auto& [name, a] : arrays_) {
      try {  // release() must not throw; a destructor cannot let it
        if (a.in) a.memory.release(a.in);
        if (a.out) a.memory.release(a.out);
      } catch (const std::exception& e) {
        std::cerr << "the host memory of '" << name << "' could not be released: " << e.what() << "\n";
      }
    }
  }
  void generate(std::uint64_t seed) override {
    input_ = harness::random_ints(n_, seed, -8, 8);
    expected_.assign(input_.begin(), input_.end());
    ++generation_;
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    Arrays& a = arrays_for(impl);
    CUDA_CHECK(cudaMemcpyAsync(device_.get(), a.in, bytes(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(a.out, device_.get(), bytes(), cudaMemcpyDeviceToHost, s));
    last_ = &a;
  }
  // 4 bytes each way per element, over the host link.
  [[nodiscard]] Work work() const override { return {.bytes = 2.0 * bytes(), .flops = 0}; }
  [[nodiscard]] bool checks_on_device() const override { return false; }  // the output is in host memory
  [[nodiscard]] Verdict verify(bool check_contents) const override {
    Verdict v = Problem::verify(check_contents);
    if (!check_contents) return v;
    if (!last_) {
      append(v, "nothing was run");
      return v;
    }
    const auto c = harness::compare(last_->out, expected_.data(), static_cast<std::size_t>(n_),
                                    harness::Tolerance::exact());
    if (!c.ok()) append(v, c.describe("host output 'out'", harness::Tolerance::exact()));
    std::memset(last_->out, kPoisonByte, bytes());  // the next run must write it again
    return v;
  }

 private:
  struct Arrays {
    HostMemory memory{};
    float* in = nullptr;
    float* out = nullptr;
    std::uint64_t generation = 0;
  };
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  // Each implementation gets its own arrays, allocated by its allocator on first use (the checked run before any
  // timing) and refilled only when the input changes, so no timed run pays for allocation or filling.
  Arrays& arrays_for(const harness::Impl& impl) {
    const auto memory = impl.launcher<HostMemory>("pinned_memory");
    Arrays& a = arrays_[impl.name()];
    if (!a.in) {
      a.memory = memory;
      a.in = static_cast<float*>(memory.allocate(bytes()));
      a.out = static_cast<float*>(memory.allocate(bytes()));
      if (!a.in || !a.out) throw std::runtime_error("the host allocator of '" + impl.name() + "' returned nullptr");
    }
    if (a.generation != generation_) {
      std::memcpy(a.in, input_.data(), bytes());
      std::memset(a.out, kPoisonByte, bytes());
      a.generation = generation_;
    }
    return a;
  }

  std::int64_t n_;
  harness::DeviceBuffer<float> device_;
  std::vector<float> input_;
  std::vector<double> expected_;
  std::uint64_t generation_ = 0;
  std::map<std::string, Arrays, std::less<>> arrays_;
  Arrays* last_ = nullptr;
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

class Pipeline final : public harness::Problem {
 public:
  Pipeline(const Shape& s, const char* exercise, Kernel kernel)
      : Problem(s), exercise_(exercise), kernel_(kernel), n_(s[0]), h_in_(n_), h_out_(n_), d_in_(n_), d_out_(n_) {}
  void generate(std::uint64_t seed) override {
    const auto x = harness::random_ints(n_, seed, -8, 8);
    std::copy(x.begin(), x.end(), h_in_.get());
    expected_ = kernel_ == Kernel::poly ? cpu::poly(x) : cpu::stencil(x);
    std::memset(h_out_.get(), kPoisonByte, bytes());
    // Poisoned device scratch: a kernel that reads a chunk before its copy has landed reads NaN.
    CUDA_CHECK(cudaMemset(d_in_.get(), kPoisonByte, bytes()));
    CUDA_CHECK(cudaMemset(d_out_.get(), kPoisonByte, bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());  // cudaMemset may still be running when it returns
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    stream_ = s;
    impl.launcher<PipelineLauncher>(exercise_)(h_in_.get(), h_out_.get(), d_in_.get(), d_out_.get(), n_, s);
  }
  // 4 bytes over the host link each way per element; the kernel's device traffic is not the bottleneck.
  [[nodiscard]] Work work() const override { return {.bytes = 2.0 * bytes(), .flops = 3.0 * n_}; }

  [[nodiscard]] bool checks_on_device() const override { return false; }  // the output is in host memory
  [[nodiscard]] Verdict verify(bool check_contents) const override {
    Verdict v;
    // First, with only the harness's stream finished: an element still unwritten means work not ordered before it.
    if (stream_) CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (std::int64_t q = 0; q <= 64; ++q) {
      const std::int64_t i = q * (n_ - 1) / 64;
      if (std::isnan(h_out_[static_cast<std::size_t>(i)])) {
        append(v, "h_out[" + std::to_string(i) + "] was not written when the harness's stream had finished: either "
               "it is never written, or work on your own streams is not ordered before `stream` (record an event "
               "at the end of each of your streams and make `stream` wait on it)");
        break;
      }
    }
    const Verdict base = Problem::verify(check_contents);  // synchronizes the device
    if (!base.ok) append(v, base.message);
    if (check_contents) {
      const auto c = harness::compare(h_out_.get(), expected_.data(), static_cast<std::size_t>(n_),
                                      harness::Tolerance::exact());
      if (!c.ok()) append(v, c.describe("host output 'h_out'", harness::Tolerance::exact()));
    }
    std::memset(h_out_.get(), kPoisonByte, bytes());  // the next run must write it again
    return v;
  }

  // The three stages alone, on the same buffers: the peers timed beside the pipelines.
  void h2d(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(d_in_.get(), h_in_.get(), bytes(), cudaMemcpyHostToDevice, s));
  }
  void kernel(cudaStream_t s) { launch_stage_kernel(kernel_, d_in_.get(), d_out_.get(), n_, s); }
  void d2h(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(h_out_.get(), d_out_.get(), bytes(), cudaMemcpyDeviceToHost, s));
  }

 private:
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  const char* exercise_;
  Kernel kernel_;
  std::int64_t n_;
  harness::PinnedBuffer<float> h_in_, h_out_;
  harness::DeviceBuffer<float> d_in_, d_out_;
  std::vector<double> expected_;
  cudaStream_t stream_ = nullptr;
};

/// The ceiling of exercises 2 and 3: the slowest of the three stages, run alone on buffers of its own. Which one is
/// slowest is measured when the ceiling is made (three timings of each stage, median), in the same process as the
/// rest; amount() is the pipeline's bytes, so the ceiling's rate is what the pipeline would reach if the other two
/// stages hid entirely behind the slowest, and percent_of_ceiling is t_slowest / t_yours.
class SlowestStage final : public harness::CeilingOp {
 public:
  SlowestStage(std::int64_t n, Kernel kernel) : n_(n), kernel_(kernel), h_in_(n), h_out_(n), d_in_(n), d_out_(n) {
    std::fill(h_in_.get(), h_in_.get() + n, 1.0f);
    harness::Stream stream;
    double slowest = -1;
    for (int stage = 0; stage < 3; ++stage) {
      std::vector<float> ms;
      for (int rep = 0; rep < 4; ++rep) {  // the first is a warm-up
        harness::Event start, stop;
        start.record(stream.get());
        run_stage(stage, stream.get());
        stop.record(stream.get());
        stream.synchronize();
        if (rep > 0) ms.push_back(stop.elapsed_ms_since(start));
      }
      std::sort(ms.begin(), ms.end());
      if (ms[1] > slowest) {
        slowest = ms[1];
        stage_ = stage;
      }
    }
  }
  void run(cudaStream_t s) override { run_stage(stage_, s); }
  [[nodiscard]] double amount() const override { return 2.0 * bytes(); }
  [[nodiscard]] std::string what() const override {
    static const char* names[] = {"host-to-device copy", "kernel", "device-to-host copy"};
    return std::string("slowest stage alone: the ") + names[stage_] + " of the whole array (pinned memory)";
  }

 private:
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  void run_stage(int stage, cudaStream_t s) {
    if (stage == 0)
      CUDA_CHECK(cudaMemcpyAsync(d_in_.get(), h_in_.get(), bytes(), cudaMemcpyHostToDevice, s));
    else if (stage == 1)
      launch_stage_kernel(kernel_, d_in_.get(), d_out_.get(), n_, s);
    else
      CUDA_CHECK(cudaMemcpyAsync(h_out_.get(), d_out_.get(), bytes(), cudaMemcpyDeviceToHost, s));
  }
  std::int64_t n_;
  Kernel kernel_;
  harness::PinnedBuffer<float> h_in_, h_out_;
  harness::DeviceBuffer<float> d_in_, d_out_;
  int stage_ = 0;
};

Pipeline& as_pipeline(harness::Problem& p) { return dynamic_cast<Pipeline&>(p); }

std::vector<harness::Peer> stage_peers() {
  return {
      {"h2d_alone", [](harness::Problem& p, cudaStream_t s) { as_pipeline(p).h2d(s); }},
      {"kernel_alone", [](harness::Problem& p, cudaStream_t s) { as_pipeline(p).kernel(s); }},
      {"d2h_alone", [](harness::Problem& p, cudaStream_t s) { as_pipeline(p).d2h(s); }},
  };
}

/// overlap = (sequential - t) / (sequential - slowest stage): 0 for a sequential pipeline, 1 when the pipeline takes
/// no longer than its slowest stage alone. The baseline is the sequential pipeline.
std::map<std::string, double> overlap(const harness::Medians& m) {
  const double seq = m.at("baseline"), slowest = m.at("ceiling");
  const auto of = [&](double t) { return (seq - t) / (seq - slowest); };
  return {{"overlap_student", of(m.at("student"))},
          {"overlap_reference", of(m.at("reference"))},
          {"sequential_ms", seq},
          {"slowest_stage_ms", slowest}};
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
    .ceiling = [](const Shape& s) { return std::make_unique<SlowestStage>(s[0], Kernel::poly); },
    .peers = stage_peers(),
    .metrics = overlap,
});

REGISTER_EXERCISE({
    .name = "stencil_pipeline",
    .title = "A pipeline whose chunks need their neighbours' data: dependencies across streams with events",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = kTimed,
    .make = [](const Shape& s) { return std::make_unique<Pipeline>(s, "stencil_pipeline", Kernel::stencil); },
    .ceiling = [](const Shape& s) { return std::make_unique<SlowestStage>(s[0], Kernel::stencil); },
    .peers = stage_peers(),
    .metrics = overlap,
});

}  // namespace lab07
