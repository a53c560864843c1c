// Harness mechanisms that need a GPU: guard zones, poisoning, the L2 flush and interleaved timing.
// Without a GPU these SKIP (ctest reports them skipped); with COURSE_REQUIRE_GPU=1 they fail instead.
#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/problem.hpp>
#include <harness/random.hpp>
#include <harness/timing.hpp>

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <string>

namespace {

void require_gpu() {
  std::string why;
  if (harness::device_count(&why) > 0) return;
  const char* req = std::getenv("COURSE_REQUIRE_GPU");
  if (req && std::string(req) == "1") FAIL("COURSE_REQUIRE_GPU=1 but no GPU: " << why);
  SKIP("no CUDA GPU: " << why);
}

// A problem whose "kernel" is a cudaMemcpy, so the test controls exactly what gets written.
class CopyProblem final : public harness::Problem {
 public:
  explicit CopyProblem(std::int64_t n) : Problem({n}), n_(n), x_(*this, "x", n), y_(*this, "y", n) {}
  void generate(std::uint64_t) override {
    std::vector<float> x(n_);
    for (std::int64_t i = 0; i < n_; ++i) x[i] = float(i + 1);
    x_.set(x);
    y_.expect(std::vector<double>(x.begin(), x.end()), harness::Tolerance::exact());
  }
  void run(const harness::Impl&, cudaStream_t s) override {
    CUDA_CHECK(cudaMemcpyAsync(y_.data(), x_.data(), n_ * sizeof(float), cudaMemcpyDeviceToDevice, s));
  }
  [[nodiscard]] harness::Work work() const override { return {8.0 * n_, 0}; }
  float* y() { return y_.data(); }
  const float* x() const { return x_.data(); }
  std::int64_t n_;
  harness::Input<float> x_;
  harness::Output<float> y_;
};

// A problem of random inputs (a RandomRecipe: refreshable), whose "kernel" copies them to the output.
class Scale final : public harness::Problem {
 public:
  explicit Scale(std::int64_t n) : Problem({n}), x(*this, "x", n), y(*this, "y", n) {}
  void generate(std::uint64_t seed) override {
    x.set(harness::random_ints(shape()[0], seed, -8, 8));
    y.expect(std::vector<double>(x.host().begin(), x.host().end()), harness::Tolerance::exact());
  }
  void run(const harness::Impl&, cudaStream_t s) override {
    CUDA_CHECK(cudaMemcpyAsync(y.data(), x.data(), shape()[0] * sizeof(float), cudaMemcpyDeviceToDevice, s));
  }
  [[nodiscard]] harness::Work work() const override { return {}; }
  harness::Input<float> x;
  harness::Output<float> y;
};

}  // namespace

TEST_CASE("a correct run verifies and a poisoned, unwritten output does not", "[harness][gpu]") {
  require_gpu();
  CopyProblem p(1000);
  p.generate(1);
  harness::Impl none;
  p.run(none, nullptr);
  REQUIRE(p.verify().ok);
  p.poison(nullptr);
  const auto v = p.verify();
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.message.find("nan") != std::string::npos);  // the poison prints as nan or -nan
}

TEST_CASE("a write just past the end of an output is caught by its guard zone", "[harness][gpu]") {
  require_gpu();
  CopyProblem p(1000);
  p.generate(1);
  harness::Impl none;
  p.run(none, nullptr);
  CUDA_CHECK(cudaMemset(p.y() + 1000, 0, sizeof(float)));  // element n: one past the end
  const auto v = p.verify();
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.message.find("out-of-bounds write") != std::string::npos);
}

TEST_CASE("a read past the end of an input or before its start sees a value no answer can absorb",
          "[harness][gpu]") {
  require_gpu();
  // A kernel with an off-by-one bound reads the guard zone: a NaN as a float (it poisons any sum or product it enters)
  // and about 2^31 as an int32. The old guard byte 0xA5 read as -2.9e-16f and vanished in integer-valued float sums.
  CopyProblem p(1000);
  p.generate(1);
  float past = 0, before = 0;
  CUDA_CHECK(cudaMemcpy(&past, p.x() + 1000, sizeof past, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&before, p.x() - 1, sizeof before, cudaMemcpyDeviceToHost));
  CHECK(std::isnan(past));
  CHECK(std::isnan(before));
  CHECK(std::isnan(1000.0f + 3.0f * past));
  std::int32_t as_int = 0;
  CUDA_CHECK(cudaMemcpy(&as_int, p.x() + 1000, sizeof as_int, cudaMemcpyDeviceToHost));
  CHECK(as_int > (1 << 30));  // about 2^31: no integer sum of the tests' inputs comes near it
}

TEST_CASE("an output never written keeps a poison that is NaN as a float and INT_MAX as an int32", "[harness][gpu]") {
  require_gpu();
  CopyProblem p(1000);
  p.generate(1);
  p.poison(nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::int32_t word = 0;
  CUDA_CHECK(cudaMemcpy(&word, p.y() + 999, sizeof word, cudaMemcpyDeviceToHost));
  CHECK(word == std::numeric_limits<std::int32_t>::max());
  REQUIRE(p.verify(false).ok);  // the poison is inside the data: the guard zones still read as intact
}

TEST_CASE("a NaN computed from a guard and written past the end is caught", "[harness][gpu]") {
  require_gpu();
  // GPU arithmetic on a NaN returns the canonical NaN 0x7FFFFFFF: the guard words are other NaNs, so a kernel that
  // scales the guard past x's end into y's guard changes it (lab 1's wrong_out_of_bounds does exactly that).
  CopyProblem p(1000);
  p.generate(1);
  harness::Impl none;
  p.run(none, nullptr);
  const std::uint32_t bits = 0x7FFFFFFFu;
  float nan_from_gpu = 0;
  std::memcpy(&nan_from_gpu, &bits, sizeof bits);
  CUDA_CHECK(cudaMemcpy(p.y() + 1000, &nan_from_gpu, sizeof nan_from_gpu, cudaMemcpyHostToDevice));
  REQUIRE_FALSE(p.verify().ok);
}

TEST_CASE("a write before the start of an output is caught too", "[harness][gpu]") {
  require_gpu();
  CopyProblem p(64);
  p.generate(1);
  harness::Impl none;
  p.run(none, nullptr);
  CUDA_CHECK(cudaMemset(p.y() - 3, 0, sizeof(float)));
  REQUIRE_FALSE(p.verify().ok);
}

TEST_CASE("interleaved timing returns a plausible median for each contender", "[harness][gpu][timing]") {
  require_gpu();
  const auto info = harness::device_info();
  harness::Stream stream;
  harness::DeviceBuffer<unsigned char> small(1 << 20), big(256 << 20);
  harness::L2Flusher flusher(info.l2_bytes);
  harness::TimingOptions options;
  options.max_seconds = 2;
  const auto on_stream = [&](auto run) { return harness::stream_sample(run, stream.get(), flusher); };
  const auto s = harness::time_interleaved(
      {{"small", on_stream([&](cudaStream_t st) { CUDA_CHECK(cudaMemsetAsync(small.get(), 1, small.bytes(), st)); })},
       {"big", on_stream([&](cudaStream_t st) { CUDA_CHECK(cudaMemsetAsync(big.get(), 1, big.bytes(), st)); })}},
      options);
  REQUIRE(s.size() == 2);
  REQUIRE(s[0].summary.samples >= options.min_samples);
  REQUIRE(s[0].summary.samples == s[1].summary.samples);  // one sample of each per round
  REQUIRE(s[0].summary.median > 0);
  REQUIRE(s[1].summary.median > 10 * s[0].summary.median);  // 256x the bytes
  for (const auto& sample : s[1].samples) REQUIRE(sample.wall_ms >= sample.event_ms);  // the host clock spans it
}

TEST_CASE("the GPU makes the same random inputs as the host, for ints and floats", "[harness][gpu][random]") {
  require_gpu();
  const std::size_t n = 100003;
  for (const auto& host : {harness::random_ints(n, 77, -8, 8), harness::random_ints(n, 78, 0, 1, false),
                           harness::random_floats(n, 79, -1.0f, 1.0f)}) {
    harness::DeviceBuffer<float> device(n);
    // Made from another seed on the host, then on the GPU from the recipe with the first seed: equal bit for bit.
    harness::random_on_device(host.recipe, host.recipe.seed, device.get(), n);
    std::vector<float> back(n);
    CUDA_CHECK(cudaMemcpy(back.data(), device.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(back == static_cast<const std::vector<float>&>(host));
  }
}

TEST_CASE("fresh inputs change the values, and a saved output is compared with another slot", "[harness][gpu][random]") {
  require_gpu();
  Scale p(4099);
  p.generate(1);
  REQUIRE(p.refreshable());
  harness::Impl none;
  p.refresh_inputs(12345);
  p.run(none, nullptr);
  CHECK_FALSE(p.verify_on_device().ok);  // new inputs: the old CPU reference no longer applies
  CHECK(p.verify_unchanged().ok);        // but the inputs are as refreshed
  p.save_outputs(0);
  p.save_outputs(1);
  CHECK(p.compare_saved(0, 1).ok);
  CUDA_CHECK(cudaMemset(p.y.data() + 7, 0, sizeof(float)));  // one element wrong
  p.save_outputs(0);
  CHECK_FALSE(p.compare_saved(0, 1).ok);
  CUDA_CHECK(cudaMemset(const_cast<float*>(p.x.data()) + 3, 0, sizeof(float)));  // an input written
  CHECK_FALSE(p.verify_unchanged().ok);
}

// Lab 07's shape of problem: a device scratch array copied into an output in shared host memory.
class HostOutputProblem final : public harness::Problem {
 public:
  explicit HostOutputProblem(std::int64_t n)
      : Problem({n}), n_(n), d_(*this, "d", n), h_(*this, "h_out", n, harness::Memory::host) {}
  void generate(std::uint64_t) override {
    std::vector<float> v(n_);
    for (std::int64_t i = 0; i < n_; ++i) v[i] = float(i + 1);
    CUDA_CHECK(cudaMemcpy(d_.data(), v.data(), n_ * sizeof(float), cudaMemcpyHostToDevice));
    h_.expect(std::vector<double>(v.begin(), v.end()), harness::Tolerance::exact());
  }
  /// Copies `extra` elements more than the array holds (the scratch's first guard word lands past the output's end).
  void copy_back(std::int64_t extra, cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(h_.data(), d_.data(), (n_ + extra) * sizeof(float), cudaMemcpyDeviceToHost, s));
  }
  void run(const harness::Impl&, cudaStream_t s) override { copy_back(0, s); }
  [[nodiscard]] harness::Work work() const override { return {8.0 * n_, 0}; }
  std::int64_t n_;
  harness::Scratch<float> d_;
  harness::Output<float> h_;
};

TEST_CASE("a host output is page-locked, checked on the host, and its guard zone catches a copy one element too long",
          "[harness][gpu][host_buffer]") {
  require_gpu();
  HostOutputProblem p(4099);
  cudaPointerAttributes attributes{};
  CUDA_CHECK(cudaPointerGetAttributes(&attributes, p.h_.data()));
  CHECK(attributes.type == cudaMemoryTypeHost);  // registered: copies run at pinned speed
  CHECK_FALSE(p.checks_on_device());
  p.generate(1);
  p.poison(nullptr);  // the device scratch is poisoned too: generate() again
  p.generate(1);
  harness::Impl none;
  p.run(none, nullptr);
  REQUIRE(p.verify().ok);
  REQUIRE(p.verify_on_device().ok);  // the host check all the same
  p.poison(nullptr);
  p.generate(1);
  p.copy_back(1, nullptr);
  const auto v = p.verify();
  REQUIRE_FALSE(v.ok);
  CHECK(v.message.find("out-of-bounds write: something wrote just outside output 'h_out'") != std::string::npos);
}

void launch_spin(unsigned long long ns, cudaStream_t stream);  // spin_kernel.cu

// Another process keeping the GPU busy, for the test below: this test program run again on this hidden test case, which
// says it has started its kernel through the pipe COURSE_BUSY_READY_FD names, then waits for it.
TEST_CASE("(another process) keep the GPU busy for two seconds", "[.gpu_busy]") {
  launch_spin(2'000'000'000ull, nullptr);
  if (const char* fd = std::getenv("COURSE_BUSY_READY_FD")) {
    const char ready = 1;
    [[maybe_unused]] auto written = ::write(std::atoi(fd), &ready, 1);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("the idle check waits out another process's kernel and says when it outlasts the limit",
          "[harness][gpu][timing][gpu_alone]") {
  require_gpu();
  harness::Stream stream;
  harness::IdleGpu idle(stream.get());
  CHECK(idle.wait(1.0) == 0.0);  // nothing else on the GPU: the first probe comes back at once
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t busy = ::fork();
  REQUIRE(busy >= 0);
  if (busy == 0) {  // a fresh program, not a forked CUDA process
    ::close(ready[0]);
    const std::string fd = std::to_string(ready[1]);
    ::setenv("COURSE_BUSY_READY_FD", fd.c_str(), 1);
    ::execl("/proc/self/exe", "harness_tests", "[.gpu_busy]", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  const double waited_short = idle.wait(0.3);  // the other kernel runs for about 2 s more
  const double waited_long = idle.wait(5.0);
  int status = 0;
  ::waitpid(busy, &status, 0);
  CHECK(waited_short < 0);  // still busy at the limit
  CHECK(waited_long > 0);   // busy, then idle once the other process's kernel ended
  CHECK(idle.wait(1.0) == 0.0);
}

TEST_CASE("a device buffer the size of a test shape's keeps its memory and IPC handle for the next of that size",
          "[harness][gpu]") {
  require_gpu();
  constexpr std::int64_t n = 4111;  // a size no other test here uses: nothing kept from before
  std::multiset<std::string> handles;
  std::multiset<const float*> data;
  {
    CopyProblem p(n);
    p.generate(1);
    handles = {p.x_.ipc_handle(), p.y_.ipc_handle()};
    data = {p.x(), p.y()};
    CUDA_CHECK(cudaMemset(p.y() + n, 0, sizeof(float)));  // a guard spoiled: made again with the next buffer
  }
  // What freed memory of that size would go to next, so that new buffers cannot land on it by chance.
  const std::size_t whole = n * sizeof(float) + 2 * harness::Buffer::guard_bytes();
  const harness::DeviceBuffer<unsigned char> taken_x(whole), taken_y(whole);
  CopyProblem q(n);
  CHECK(std::multiset<std::string>{q.x_.ipc_handle(), q.y_.ipc_handle()} == handles);  // kept, its handle too
  CHECK(std::multiset<const float*>{q.x(), q.y()} == data);
  q.generate(2);
  q.poison(nullptr);
  CHECK_FALSE(q.verify().ok);  // this case's poison
  harness::Impl none;
  q.run(none, nullptr);
  CHECK(q.verify().ok);  // this case's inputs copied, and the spoiled guard made again
}

TEST_CASE("with pooled device memory, a freed buffer's memory is kept for the next, and a timed shape's scratch and a "
          "problem's buffers still have IPC handles",
          "[harness][gpu]") {
  require_gpu();
  harness::pool_device_memory();  // as a referee: this test's process alone (ctest runs each test on its own)
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool;
  CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  { const harness::DeviceBuffer<unsigned char> scratch(kBytes); }
  CUDA_CHECK(cudaDeviceSynchronize());  // where a pool of default settings gives back what is free
  std::uint64_t reserved = 0;
  CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  CHECK(reserved >= kBytes);
  const harness::DeviceBuffer<unsigned char> pooled(std::size_t{1} << 20);
  cudaIpcMemHandle_t handle;
  CHECK(cudaIpcGetMemHandle(&handle, pooled.get()) != cudaSuccess);  // the pool's memory has no IPC handle
  (void)cudaGetLastError();
  // A timed shape's scratch (2^28 floats) is cudaMalloc's, which has an IPC handle.
  const harness::DeviceBuffer<float> timed(std::size_t{1} << 28);
  CHECK(cudaIpcGetMemHandle(&handle, timed.get()) == cudaSuccess);
  // A problem's buffers: a runner maps them by their CUDA IPC handles.
  CopyProblem p(4127);
  p.generate(1);
  CHECK(p.x_.ipc_handle().size() == sizeof(cudaIpcMemHandle_t));
  CHECK(p.y_.ipc_handle().size() == sizeof(cudaIpcMemHandle_t));
  harness::Impl none;
  p.run(none, nullptr);
  CHECK(p.verify().ok);
}

TEST_CASE("a problem made and generated host-only, then put on the GPU, holds what one generated there holds",
          "[harness][gpu][ahead]") {
  require_gpu();
  // Scale's inputs are random (made again on the GPU from their recipe, with a pristine copy), CopyProblem's uploaded.
  const auto values = [](const harness::Input<float>& in, std::size_t n) {
    std::vector<float> v(n);
    CUDA_CHECK(cudaMemcpy(v.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
    return v;
  };
  constexpr std::int64_t n = 5003;
  harness::set_host_only(true);
  Scale ahead(n);
  CopyProblem copy_ahead(n);
  ahead.generate(7);
  copy_ahead.generate(7);
  harness::set_host_only(false);
  REQUIRE(ahead.can_move_to_device());
  CHECK(ahead.host_bytes() == static_cast<std::size_t>(n) * (sizeof(float) + sizeof(double)));
  ahead.to_device();
  copy_ahead.to_device();
  CHECK_FALSE(ahead.can_move_to_device());  // once there, never again
  CHECK_THROWS_AS(ahead.to_device(), std::logic_error);
  Scale there(n);
  there.generate(7);
  CHECK_FALSE(there.can_move_to_device());
  CHECK(values(ahead.x, n) == values(there.x, n));
  CHECK(values(ahead.x, n) == ahead.x.host());
  CHECK(values(copy_ahead.x_, n) == copy_ahead.x_.host());
  harness::Impl none;
  for (harness::Problem* p : std::initializer_list<harness::Problem*>{&ahead, &copy_ahead}) {
    p->poison(nullptr);
    CHECK_FALSE(p->verify().ok);  // outputs poisoned, as in any run
    p->run(none, nullptr);
    CHECK(p->verify().ok);            // right against the CPU reference made before any device memory
    CHECK(p->verify_on_device().ok);  // and on the GPU, guards included
    CHECK(p->verify_unchanged().ok);  // the inputs as their pristine copy (made from the recipe) says
  }
  // Fresh inputs from the recipe, as every timed round gets them.
  REQUIRE(ahead.refreshable());
  ahead.refresh_inputs(99);
  CHECK(values(ahead.x, n) != ahead.x.host());
  CHECK(ahead.verify_unchanged().ok);
  // A write just past the end of the output: the guards put there by to_device() catch it.
  CUDA_CHECK(cudaMemset(ahead.y.data() + n, 0, sizeof(float)));
  CHECK_FALSE(ahead.verify_unchanged().ok);
}
