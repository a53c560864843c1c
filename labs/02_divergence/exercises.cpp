// Lab 02's exercises: inputs, CPU references, the work each must do, and the sizes tested and timed.
#include "cpu_reference.hpp"
#include "divergence.hpp"
#include "support/fma_ceiling.hpp"

#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <string>

namespace lab02 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

// Steps per element in "branches": 512 dependent FMAs (1024 flops) per 8 bytes moved, 128 flops per byte, far
// above the ~16 flops per byte where an H200 turns from memory-bound to compute-bound: the arithmetic decides.
constexpr int kIterations = 512;
constexpr double kUnitRoundoff = 0x1p-24;

// Edge sizes around a warp, a warp pair (the remapping's unit: 64 elements), a block and a segment, a prime, and
// large sizes. Inputs are small nonzero integers: a path applied to the wrong element, or a segment missing an
// element, always shows.
const std::vector<std::int64_t> kBranchSizes = {1, 2, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 4099, 65537,
                                                1000003, 1 << 22};
const std::vector<std::int64_t> kSumSizes = {1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4099, 1000003,
                                             1 << 24};

/// The ceiling of "branches": 2^24 threads running the same FMA chains with every warp on one path and no loads,
/// counted with the same 2 flops per step as the exercise's work.
class FmaCeiling final : public harness::CeilingOp {
 public:
  explicit FmaCeiling(std::int64_t n) : n_(n), out_(static_cast<std::size_t>(n)) {}
  void run(cudaStream_t stream) override { launch_fma_chains(out_.get(), n_, kIterations, stream); }
  [[nodiscard]] double amount() const override { return 2.0 * kIterations * static_cast<double>(n_); }
  [[nodiscard]] std::string what() const override {
    return "the same FMA chains with every warp on one path (" + std::to_string(kIterations) + " per element)";
  }

 private:
  std::int64_t n_;
  harness::DeviceBuffer<float> out_;
};

class Branches final : public harness::Problem {
 public:
  explicit Branches(const Shape& s) : Problem(s), n_(s[0]), x_(*this, "x", n_), y_(*this, "y", n_) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -8, 8));
    // The reference takes 512 steps per element: beyond 65536 elements it is computed at samples only.
    auto indices = cpu::sample_indices(n_);
    std::vector<double> ref, atol;
    for (auto i : indices) {
      const auto e = cpu::branch_element(x_.host()[i], static_cast<std::int64_t>(i), kIterations);
      ref.push_back(e.value);
      // One rounding per step (two if a compiler splits the FMA), never amplified since |scale| < 1.
      atol.push_back(2.0 * kIterations * kUnitRoundoff * e.max_abs);
    }
    if (static_cast<std::int64_t>(indices.size()) == n_) {
      y_.expect(std::move(ref), {std::move(atol), 0.0});
    } else {
      y_.expect_at(std::move(indices), std::move(ref), {std::move(atol), 0.0});
    }
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

}  // namespace

REGISTER_EXERCISE({
    .name = "branches",
    .title = "Even and odd lanes take different paths: remap so every warp takes one",
    .test_shapes = harness::shapes_1d(kBranchSizes),
    .timed_shape = {1 << 24},
    .bound = harness::Bound::compute,
    .make = [](const Shape& s) { return std::make_unique<Branches>(s); },
    .ceiling = [](const Shape& s) { return std::make_unique<FmaCeiling>(s[0]); },
});

REGISTER_EXERCISE({
    .name = "block_sums",
    .title = "Tree reduction: a warp-contiguous index instead of tid % (2 * s)",
    .test_shapes = harness::shapes_1d(kSumSizes),
    .timed_shape = {1 << 28},
    .make = [](const Shape& s) { return std::make_unique<BlockSums>(s); },
});

}  // namespace lab02
