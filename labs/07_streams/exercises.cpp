// Lab 07's exercises: host-resident inputs and outputs, CPU references, the work each must do, the sizes tested and
// timed. Their ceilings and the stages timed alone are the referee's (support/measures.cpp).
//
// The arrays that matter live in host memory. Every implementation runs in a runner process of its own, like every
// other lab's (harness/referee/include/harness/runner.hpp): the pipelines' h_in and h_out are harness buffers in host memory
// that the lab binary shares with the runner (harness::Memory::host: both map and page-lock the same pages), with the
// guard zones, poisoning and checks of device buffers; exercise 1's arrays come from the implementation's own
// allocator, so they are the runner's, and the problem copies to and from them outside the timed interval.
#include "cpu_reference.hpp"
#include "streams.hpp"

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

// ---- 2. pipeline, 3. stencil_pipeline ------------------------------------------------------------------------
enum class Kernel { poly, stencil };

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

 private:
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  const char* exercise_;
  Kernel kernel_;
  std::int64_t n_;
  harness::Input<float> h_in_;
  harness::Output<float> h_out_;
  harness::Scratch<float> d_in_, d_out_;
};

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
});

REGISTER_EXERCISE({
    .name = "pipeline",
    .title = "Copy-in / kernel / copy-out in chunks over several streams, copies overlapping",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = kTimed,
    .make = [](const Shape& s) { return std::make_unique<Pipeline>(s, "pipeline", Kernel::poly); },
});

REGISTER_EXERCISE({
    .name = "stencil_pipeline",
    .title = "A pipeline whose chunks need their neighbours' data: dependencies across streams with events",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = kTimed,
    .make = [](const Shape& s) { return std::make_unique<Pipeline>(s, "stencil_pipeline", Kernel::stencil); },
});

}  // namespace lab07
