// Lab 02's exercises: inputs, CPU references, the work each must do, and the sizes tested and timed. Their ceilings
// are the referee's (support/measures.cpp).
#include "cpu_reference.hpp"
#include "divergence.hpp"
#include "exercises.hpp"

#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab02 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

constexpr double kUnitRoundoff = 0x1p-24;

// Edge sizes around a warp, a warp pair (the remapping's unit: 64 elements), a block and a segment, a prime, and
// large sizes. Inputs are small nonzero integers: a path applied to the wrong element, or a segment missing an
// element, always shows.
const std::vector<std::int64_t> kBranchSizes = {1, 2, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 4099, 65537,
                                                1000003, 1 << 22};
const std::vector<std::int64_t> kSumSizes = {1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4099, 1000003,
                                             1 << 24};

// "regroup": shapes are N x T (exercises.hpp has the inputs' range and the steps of heavy and light elements). T = 16
// makes 1 in 16 heavy (the timed case: 7 warps in 8 hold at least one heavy lane); T = 1 makes every element heavy
// (the worklist fills up) and T = 17 none (the heavy pass has nothing to do).
constexpr std::int64_t kTimedThreshold = 16, kAllHeavy = 1, kNoneHeavy = 17;
// Sizes as for "branches", up to the timed size itself: one atomic-filled worklist shared by 2^14 blocks.
const std::vector<std::int64_t> kRegroupSizes = {1, 2, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 4099, 65537,
                                                 1000003, 1 << 24};
// All heavy and none heavy: one element, one warp, a warp and a lane, more heavy elements than a pass sized for
// 1 in 16 of them has threads (1025 and up), and large sizes.
const std::vector<std::int64_t> kAllOrNoneSizes = {1, 32, 33, 1025, 65537, 1000003};

std::vector<Shape> regroup_shapes() {
  auto shapes = harness::shapes_2d(kRegroupSizes, {kTimedThreshold});
  for (const auto& s : harness::shapes_2d(kAllOrNoneSizes, {kAllHeavy, kNoneHeavy})) shapes.push_back(s);
  return shapes;
}

const Shape& checked_regroup(const Shape& s) {
  if (s.dims.size() != 2 || s[0] >= (std::int64_t{1} << 31))
    throw std::invalid_argument("regroup shapes are N x THRESHOLD with N < 2^31, e.g. 16777216x16");
  return s;
}

/// Sets `y`'s reference from element_at(i), a cpu::Element and the number of steps it took: at every element up to
/// 65536, at cpu::sample_indices beyond (the reference takes up to thousands of steps per element). The tolerance is
/// per element: one rounding per step (two if a compiler splits the FMA), never amplified since |scale| < 1.
template <class ElementAt>
void expect_chains(Output<float>& y, std::int64_t n, ElementAt element_at) {
  auto indices = cpu::sample_indices(n);
  std::vector<double> ref, atol;
  for (auto i : indices) {
    const auto [e, steps] = element_at(i);
    ref.push_back(e.value);
    atol.push_back(2.0 * steps * kUnitRoundoff * e.max_abs);
  }
  if (static_cast<std::int64_t>(indices.size()) == n) {
    y.expect(std::move(ref), {std::move(atol), 0.0});
  } else {
    y.expect_at(std::move(indices), std::move(ref), {std::move(atol), 0.0});
  }
}

class Branches final : public harness::Problem {
 public:
  explicit Branches(const Shape& s) : Problem(s), n_(s[0]), x_(*this, "x", n_), y_(*this, "y", n_) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -8, 8));
    expect_chains(y_, n_, [&](std::size_t i) {
      return std::pair{cpu::branch_element(x_.host()[i], static_cast<std::int64_t>(i), kIterations), kIterations};
    });
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<BranchesLauncher>("branches")(x_.data(), y_.data(), n_, kIterations, s);
  }
  // Every element runs one path: 2 flops per step. Reading x and writing y is small beside it.
  [[nodiscard]] Work work() const override { return {.bytes = 8.0 * n_, .flops = 2.0 * kIterations * n_}; }

 private:
  std::int64_t n_;
  Input<float> x_;
  Output<float> y_;
};

class BlockSums final : public harness::Problem {
 public:
  explicit BlockSums(const Shape& s)
      : Problem(s), n_(s[0]), x_(*this, "x", n_), sums_(*this, "sums", (n_ + kSegment - 1) / kSegment) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -8, 8));
    std::vector<double> ref;
    for (const auto& s : cpu::segment_sums(x_.host(), kSegment)) ref.push_back(s.value);
    // Exact: the inputs are integers of magnitude <= 8, so every partial sum of a segment, in any order, is an
    // integer below 2048 in magnitude, which float represents exactly.
    sums_.expect(std::move(ref), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<BlockSumsLauncher>("block_sums")(x_.data(), sums_.data(), n_, s);
  }
  // Reads 4 bytes per element and writes one float per 256: a read stream, so the copy is the ceiling.
  [[nodiscard]] Work work() const override {
    return {.bytes = 4.0 * n_ + 4.0 * ((n_ + kSegment - 1) / kSegment), .flops = 1.0 * n_};
  }

 private:
  std::int64_t n_;
  Input<float> x_;
  Output<float> sums_;
};

class Regroup final : public harness::Problem {
 public:
  explicit Regroup(const Shape& s)
      : Problem(checked_regroup(s)),
        n_(s[0]),
        threshold_(static_cast<float>(s[1])),
        x_(*this, "x", n_),
        y_(*this, "y", n_),
        worklist_(*this, "worklist", n_),
        count_(*this, "count", 1) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, kInputLo, kInputHi));
    heavy_ = std::count_if(x_.host().begin(), x_.host().end(), [&](float v) { return v >= threshold_; });
    expect_chains(y_, n_, [&](std::size_t i) {
      const auto e = cpu::regroup_element(x_.host()[i], threshold_, kHeavySteps, kLightSteps);
      return std::pair{cpu::Element(e), e.steps};
    });
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<RegroupLauncher>("regroup")(x_.data(), y_.data(), n_, threshold_, kHeavySteps, kLightSteps,
                                              worklist_.data(), count_.data(), s);
  }
  // The chains the input needs, 2 flops per step: the heavy elements' long ones and everyone else's short ones.
  // Reading x and writing y is small beside it; the worklist is the kernel's choice, not the exercise's work.
  [[nodiscard]] Work work() const override {
    const double heavy = static_cast<double>(heavy_), light = static_cast<double>(n_ - heavy_);
    return {.bytes = 8.0 * n_, .flops = 2.0 * (heavy * kHeavySteps + light * kLightSteps)};
  }

 private:
  std::int64_t n_;
  float threshold_;
  std::int64_t heavy_ = 0;
  Input<float> x_;
  Output<float> y_;
  harness::Scratch<int> worklist_, count_;
};

}  // namespace

REGISTER_EXERCISE({
    .name = "branches",
    .title = "Even and odd lanes take different paths: remap so every warp takes one",
    .test_shapes = harness::shapes_1d(kBranchSizes),
    .timed_shape = {1 << 24},
    .bound = harness::Bound::compute,
    .make = [](const Shape& s) { return std::make_unique<Branches>(s); },
});

REGISTER_EXERCISE({
    .name = "block_sums",
    .title = "Tree reduction: a warp-contiguous index instead of tid % (2 * s)",
    .test_shapes = harness::shapes_1d(kSumSizes),
    .timed_shape = {1 << 28},
    .make = [](const Shape& s) { return std::make_unique<BlockSums>(s); },
});

REGISTER_EXERCISE({
    .name = "regroup",
    .title = "A few heavy elements in every warp: collect them in a worklist and run them in full warps",
    .test_shapes = regroup_shapes(),
    .timed_shape = {1 << 24, kTimedThreshold},
    .bound = harness::Bound::compute,
    .make = [](const Shape& s) { return std::make_unique<Regroup>(s); },
});

}  // namespace lab02
