// Lab 00's exercises: inputs, CPU references, the work each must do, and the sizes tested and timed.
#include "cpu_reference.hpp"
#include "gpu_budget.hpp"

#include <harness/cuda_check.hpp>
#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <cuda_runtime_api.h>

#include <type_traits>

namespace lab00 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

constexpr float kAlpha = 3.0f;
/// Rounds of the hash per element in exercise 3: 64 x 5 dependent integer operations, enough that the arithmetic,
/// not the 8 bytes each element moves, sets the time (napkin math in the sheet).
constexpr int kMixRounds = 64;

// Edge sizes around a warp and a block, a prime (divides by no tile or vector width), and a large size. Inputs are
// small nonzero integers: products stay exact in float, and a zeroed element always shows.
const std::vector<std::int64_t> kSizes = {1, 31, 32, 33, 1023, 1024, 1025, 1000003, 1 << 24};

/// y = alpha * x: exercises 1 and 2 are the same arithmetic, reached by two routes to the same bytes in flight.
template <class Launcher>
class Scale final : public harness::Problem {
 public:
  Scale(const Shape& s, const char* name) : Problem(s), name_(name), n_(s[0]), x_(*this, "x", n_), y_(*this, "y", n_) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -8, 8));
    y_.expect(cpu::scale(x_.host(), kAlpha), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    if constexpr (std::is_same_v<Launcher, IlpKernel>) {
      launch_at_rule(impl.launcher<IlpKernel>(name_), s);
    } else {
      impl.launcher<Launcher>(name_)(x_.data(), y_.data(), n_, kAlpha, s);
    }
  }
  // Reads 4 bytes and writes 4 bytes per element: the same traffic as a copy, so the copy is the ceiling.
  [[nodiscard]] Work work() const override { return {.bytes = 8.0 * n_, .flops = 1.0 * n_}; }

 private:
  // Exercise 1's launch shape, the rule, held by construction: the implementation gives a kernel, launched here with
  // one block of kIlpThreads per SM; a host function registered in its place is not a kernel and fails the launch.
  void launch_at_rule(IlpKernel kernel, cudaStream_t s) {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const float* x = x_.data();
    float* y = y_.data();
    std::int64_t n = n_;
    float alpha = kAlpha;
    void* args[] = {&x, &y, &n, &alpha};
    CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(sms), dim3(kIlpThreads), args, 0, s));
  }

  const char* name_;
  std::int64_t n_;
  Input<float> x_;
  Output<float> y_;
};

class Waves final : public harness::Problem {
 public:
  explicit Waves(const Shape& s) : Problem(s), n_(s[0]), x_(*this, "x", n_), h_(*this, "h", n_) {}
  void generate(std::uint64_t seed) override {
    // Integers up to 2^20 in magnitude (exact in float), mixed with the index: no table of a few values can stand
    // in for the work.
    x_.set(harness::random_ints(n_, seed, -(1 << 20), 1 << 20));
    h_.expect(cpu::mix_all(x_.host(), kMixRounds), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<WavesLauncher>("waves")(x_.data(), h_.data(), n_, kMixRounds, s);
  }
  // 8 bytes per element as in a copy, and 5 integer operations per round (counted as flops: the rate the report
  // shows is operations per second). The arithmetic takes longer than the bytes: see the sheet's napkin math.
  [[nodiscard]] Work work() const override { return {.bytes = 8.0 * n_, .flops = 5.0 * kMixRounds * n_}; }

 private:
  std::int64_t n_;
  Input<float> x_;
  Output<float> h_;
};

}  // namespace

REGISTER_EXERCISE({
    .name = "ilp",
    .title = "Scale a vector with 4 warps per SM: bytes in flight from independent work per thread",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = {1 << 28},
    .make = [](const Shape& s) { return std::make_unique<Scale<IlpKernel>>(s, "ilp"); },
});

REGISTER_EXERCISE({
    .name = "occupancy",
    .title = "Scale a vector one float4 per thread: bytes in flight from resident warps",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = {1 << 28},
    .make = [](const Shape& s) { return std::make_unique<Scale<OccupancyLauncher>>(s, "occupancy"); },
});

REGISTER_EXERCISE({
    .name = "waves",
    .title = "A fixed amount of work per element: a grid of whole waves",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = {1 << 24},
    .make = [](const Shape& s) { return std::make_unique<Waves>(s); },
});

}  // namespace lab00
