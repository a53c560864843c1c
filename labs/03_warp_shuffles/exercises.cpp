// Lab 03's exercises: inputs, CPU references, the work each must do, and the shapes tested and timed. Their ceiling
// is the referee's (support/measures.cpp).
//
// A shape is n x block x reps (warp_shuffles.hpp): n elements, blocks of `block` threads, `reps` repetitions.
#include "cpu_reference.hpp"
#include "warp_shuffles.hpp"

#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <functional>
#include <stdexcept>
#include <string>

namespace lab03 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

constexpr int kTestReps = 3;

// Element counts around a warp and a block, a prime; block sizes that are and are not multiples of 32, including a
// single thread, a lone partial warp (31) and a block whose last warp has one lane (33, 1025 elements / 1024).
// Every combination: partial warps come both from the block size and from the end of the data.
std::vector<Shape> test_shapes() {
  std::vector<Shape> shapes;
  for (std::int64_t n : {1, 31, 32, 33, 1023, 1024, 1025, 4099, 1 << 20})
    for (std::int64_t block : {1, 31, 32, 33, 96, 256, 1000, 1024}) shapes.push_back({n, block, kTestReps});
  return shapes;
}
// 2^24 elements, 64 repetitions: 2^25 warp operations, about 0.6 ms at the shuffle unit's rate on an H200.
const Shape kTimed{1 << 24, 256, 64};

using Reference = std::function<std::vector<double>(const std::vector<float>&, int, int)>;

/// One exercise: the same launcher type and input for all four, a different output length and reference.
class WarpProblem final : public harness::Problem {
 public:
  WarpProblem(const Shape& s, const char* exercise, std::int64_t out_count, Reference reference)
      : Problem(s), exercise_(exercise), n_(s[0]), block_(static_cast<int>(s[1])), reps_(static_cast<int>(s[2])),
        reference_(std::move(reference)), x_(*this, "x", n_), out_(*this, "out", out_count) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -8, 8));
    // Exact: integer inputs of magnitude <= 8, at most 1024 per sum, times r <= reps; every partial sum the GPU
    // forms, in any order, is an integer far below 2^24 at the tested and timed shapes, so float holds it exactly.
    out_.expect(reference_(x_.host(), block_, reps_), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<Launcher>(exercise_)(x_.data(), out_.data(), n_, block_, reps_, s);
  }
  // One addition per element per repetition: what any reduction or scan of the warp must do at the least.
  [[nodiscard]] Work work() const override {
    return {.bytes = 4.0 * n_ + 4.0 * static_cast<double>(out_.size()), .flops = static_cast<double>(n_) * reps_};
  }

 private:
  const char* exercise_;
  std::int64_t n_;
  int block_, reps_;
  Reference reference_;
  Input<float> x_;
  Output<float> out_;
};

/// Rejects shapes that are not N x BLOCK x REPS before anything reads them (`labN time --shape` takes any text).
const Shape& checked(const Shape& s) {
  if (s.dims.size() != 3 || s[1] > 1024 || s[2] > 1 << 20)
    throw std::invalid_argument("lab03 shapes are N x BLOCK x REPS with BLOCK in 1..1024, e.g. 16777216x256x64");
  return s;
}

}  // namespace

REGISTER_EXERCISE({
    .name = "warp_sum",
    .title = "Warp sum with __shfl_down_sync: lane 0 gets the total",
    .test_shapes = test_shapes(),
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make =
        [](const Shape& s) {
          return std::make_unique<WarpProblem>(checked(s), "warp_sum",
                                               cpu::warps_with_elements(s[0], static_cast<int>(s[1])),
                                               cpu::warp_sums);
        },
});

REGISTER_EXERCISE({
    .name = "warp_allreduce",
    .title = "Warp all-reduce with __shfl_xor_sync and broadcast with __shfl_sync",
    .test_shapes = test_shapes(),
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make =
        [](const Shape& s) {
          return std::make_unique<WarpProblem>(checked(s), "warp_allreduce", s[0], cpu::warp_allreduce);
        },
});

REGISTER_EXERCISE({
    .name = "warp_scan",
    .title = "Inclusive warp scan with __shfl_up_sync",
    .test_shapes = test_shapes(),
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make = [](const Shape& s) { return std::make_unique<WarpProblem>(checked(s), "warp_scan", s[0], cpu::warp_scans); },
});

REGISTER_EXERCISE({
    .name = "block_sum",
    .title = "Block sum from warp sums and one shared slot per warp",
    .test_shapes = test_shapes(),
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make =
        [](const Shape& s) {
          return std::make_unique<WarpProblem>(checked(s), "block_sum", (s[0] + s[1] - 1) / s[1], cpu::block_sums);
        },
});

}  // namespace lab03
