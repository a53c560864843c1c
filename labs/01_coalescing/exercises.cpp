// Lab 01's exercises: inputs, CPU references, the work each must do, and the sizes tested and timed.
#include "coalescing.hpp"
#include "cpu_reference.hpp"

#include <harness/problem.hpp>
#include <harness/random.hpp>

namespace lab01 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

constexpr float kAlpha = 3.0f;

// Edge sizes around a warp and a block, a prime (divides by no tile or vector width), and a large size. Inputs are
// small nonzero integers: products and partial sums stay exact in float, and a zeroed element always shows.
const std::vector<std::int64_t> kSizes = {1, 31, 32, 33, 1023, 1024, 1025, 1000003, 1 << 24};

class Scale final : public harness::Problem {
 public:
  explicit Scale(const Shape& s) : Problem(s), n_(s[0]), x_(*this, "x", n_), y_(*this, "y", n_) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -8, 8));
    y_.expect(cpu::scale(x_.host(), kAlpha), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<ScaleLauncher>("scale")(x_.data(), y_.data(), n_, kAlpha, s);
  }
  // Reads 4 bytes and writes 4 bytes per element: the same traffic as a copy, so the copy is the ceiling.
  [[nodiscard]] Work work() const override { return {.bytes = 8.0 * n_, .flops = 1.0 * n_}; }

 private:
  std::int64_t n_;
  Input<float> x_;
  Output<float> y_;
};

class Dot final : public harness::Problem {
 public:
  explicit Dot(const Shape& s) : Problem(s), n_(s[0]), x_(*this, "x", n_), y_(*this, "y", n_), r_(*this, "result", 1) {}
  void generate(std::uint64_t seed) override {
    x_.set(harness::random_ints(n_, seed, -4, 4));
    y_.set(harness::random_ints(n_, seed + 1000, -4, 4));
    const cpu::Sum d = cpu::dot(x_.host(), y_.host());
    // Integer products and sums: exact (harness::integer_sum_tolerance says when and why).
    r_.expect({d.value}, {{harness::integer_sum_tolerance(n_, d.abs, d.peak)}, 0.0});
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<DotLauncher>("dot")(x_.data(), y_.data(), r_.data(), n_, s);
  }
  // Reads 8 bytes per element and writes one float: a read-only stream.
  [[nodiscard]] Work work() const override { return {.bytes = 8.0 * n_ + 4, .flops = 2.0 * n_}; }

 private:
  std::int64_t n_;
  Input<float> x_, y_;
  Output<float> r_;
};

class ColumnSums final : public harness::Problem {
 public:
  explicit ColumnSums(const Shape& s)
      : Problem(s), rows_(s[0]), cols_(s[1]), a_(*this, "a", rows_ * cols_), sums_(*this, "sums", cols_) {}
  void generate(std::uint64_t seed) override {
    a_.set(harness::random_ints(rows_ * cols_, seed, -8, 8));
    const auto sums = cpu::column_sums(a_.host(), rows_, cols_);
    std::vector<double> ref, atol;
    for (const auto& c : sums) {
      ref.push_back(c.value);
      atol.push_back(harness::integer_sum_tolerance(rows_, c.abs, c.peak));
    }
    sums_.expect(std::move(ref), {std::move(atol), 0.0});
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<ColumnSumsLauncher>("column_sums")(a_.data(), sums_.data(), rows_, cols_, s);
  }
  // Reads the matrix once, writes one float per column.
  [[nodiscard]] Work work() const override {
    return {.bytes = 4.0 * rows_ * cols_ + 4.0 * cols_, .flops = 1.0 * rows_ * cols_};
  }

 private:
  std::int64_t rows_, cols_;
  Input<float> a_;
  Output<float> sums_;
};

}  // namespace

REGISTER_EXERCISE({
    .name = "scale",
    .title = "Scale a vector: adjacent threads, adjacent words",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = {1 << 28},
    .make = [](const Shape& s) { return std::make_unique<Scale>(s); },
});

REGISTER_EXERCISE({
    .name = "dot",
    .title = "Dot product: coalesced loads, then one atomic per block",
    .test_shapes = harness::shapes_1d(kSizes),
    .timed_shape = {1 << 28},
    .make = [](const Shape& s) { return std::make_unique<Dot>(s); },
});

REGISTER_EXERCISE({
    .name = "column_sums",
    .title = "Column sums of a row-major matrix: map threadIdx.x to the contiguous index",
    .test_shapes = [] {
      auto shapes = harness::shapes_2d({1, 31, 33, 1025}, {1, 32, 33, 1023, 1024});
      for (Shape s : {Shape{997, 1009}, Shape{1024, 1025}, Shape{4096, 4100}}) shapes.push_back(s);
      return shapes;
    }(),
    .timed_shape = {16384, 16384},
    .make = [](const Shape& s) { return std::make_unique<ColumnSums>(s); },
});

}  // namespace lab01
