// Lab 06's exercises: inputs, CPU references, the work each must do, and the sizes tested and timed. Their ceilings
// are the referee's (support/measures.cpp).
#include "cpu_reference.hpp"
#include "row_sums.hpp"
#include "transpose.hpp"

#include <harness/cuda_check.hpp>
#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <stdexcept>

namespace lab06 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

class Transpose final : public harness::Problem {
 public:
  Transpose(const Shape& s, const char* exercise)
      : Problem(s), exercise_(exercise), rows_(s[0]), cols_(s[1]), in_(*this, "in", rows_ * cols_),
        out_(*this, "out", rows_ * cols_) {}
  void generate(std::uint64_t seed) override {
    // Random floats, not small integers: a transpose only moves values, so any float compares exactly, and values
    // that are (almost surely) all different make an element delivered to the wrong place visible.
    in_.set(harness::random_floats(rows_ * cols_, seed, -1.0f, 1.0f));
    out_.expect(cpu::transpose(in_.host(), rows_, cols_), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<TransposeLauncher>(exercise_)(in_.data(), out_.data(), rows_, cols_, s);
  }
  // Reads and writes every element once: 8 bytes per element, no arithmetic. Memory-bound.
  [[nodiscard]] Work work() const override { return {.bytes = 8.0 * rows_ * cols_, .flops = 0}; }

 private:
  const char* exercise_;
  std::int64_t rows_, cols_;
  Input<float> in_;
  Output<float> out_;
};

// Every extent around a warp and a block, in both dimensions, so non-square and non-multiple-of-32 shapes of every
// kind appear (31 x 1025 and 1025 x 31 included); then larger non-square ones, one of them with both extents odd.
const std::vector<Shape> kShapes = [] {
  auto shapes = harness::shapes_2d({1, 31, 32, 33, 1023, 1024, 1025}, {1, 31, 32, 33, 1025});
  for (Shape s : {Shape{4097, 1000}, Shape{1000, 4097}, Shape{2048, 4096}}) shapes.push_back(s);
  return shapes;
}();
// 8192 x 16384 floats: 512 MiB each way, 1 GiB moved, about 0.3 ms at the copy's speed on an H200 (the anchors'
// same-pattern copy moved 512 MiB in 0.179 ms): far above launch overhead. Non-square, so a transpose that only
// works for square matrices cannot be timed.
const Shape kTimed = {8192, 16384};

std::function<std::unique_ptr<harness::Problem>(const Shape&)> maker(const char* exercise) {
  return [exercise](const Shape& s) { return std::make_unique<Transpose>(s, exercise); };
}

class RowSums final : public harness::Problem {
 public:
  explicit RowSums(const Shape& s)
      : Problem(s), rows_(s[0]), cols_(s[1]), in_(*this, "in", rows_ * cols_), out_(*this, "out", rows_) {
    if (cols_ > kWidestExactRow)
      throw std::invalid_argument("row_sums: rows longer than 2^21 floats are not compared exactly; use fewer columns");
  }
  void generate(std::uint64_t seed) override {
    in_.set(harness::random_ints(rows_ * cols_, seed, -8, 8));
    // Exact: the inputs are nonzero integers of magnitude <= 8, so every partial sum of a row, in any order, is an
    // integer of magnitude <= 8 * cols <= 2^24 (cols <= 2^21, checked above; 8000 at the timed shape), which float
    // represents exactly. An element dropped, added twice or taken from another row moves a sum by a nonzero integer.
    out_.expect(cpu::row_sums(in_.host(), rows_, cols_), Tolerance::exact());
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<RowSumsLauncher>("row_sums")(in_.data(), out_.data(), rows_, cols_, s);
  }
  // Reads 4 bytes per element and writes 4 per row, one add per element: a read stream, memory-bound.
  [[nodiscard]] Work work() const override {
    return {.bytes = 4.0 * rows_ * cols_ + 4.0 * rows_, .flops = 1.0 * rows_ * cols_};
  }

 private:
  static constexpr std::int64_t kWidestExactRow = std::int64_t{1} << 21;
  std::int64_t rows_, cols_;
  Input<float> in_;
  Output<float> out_;
};

// row_sums: rows around a warp (32 rows per warp), a block (256 rows) and 4 blocks, times columns around a 32-column
// slice, a ragged width (1000 = 31 slices + 8) and 1025; then many blocks, and rows of thousands of slices.
const std::vector<Shape> kRowSumsShapes = [] {
  auto shapes = harness::shapes_2d({1, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025}, {1, 31, 32, 33, 63, 1000, 1025});
  for (Shape s : {Shape{8193, 1000}, Shape{65537, 100}, Shape{3, 100003}}) shapes.push_back(s);
  return shapes;
}();
// 262144 x 1000 floats: 1.05 GB read, 0.24 ms at the rate of the anchors' float4 reduction (4389 GB/s), 0.455 ms
// as the reference reads it on the H200 (lab 06's sheet says why): far above launch overhead. 1000 columns is 31 full 32-column slices and a ragged one, so the edge handling is timed
// too; 262144 rows is 1024 blocks of 256 rows.
const Shape kRowSumsTimed = {262144, 1000};

}  // namespace

REGISTER_EXERCISE({
    .name = "transpose_tiled",
    .title = "Transpose through a shared-memory tile: coalesced reads and coalesced writes",
    .test_shapes = kShapes,
    .timed_shape = kTimed,
    .make = maker("transpose_tiled"),
});

REGISTER_EXERCISE({
    .name = "transpose_padded",
    .title = "Pad the tile by one word per row: column reads of the tile without bank conflicts",
    .test_shapes = kShapes,
    .timed_shape = kTimed,
    .make = maker("transpose_padded"),
});

REGISTER_EXERCISE({
    .name = "row_sums",
    .title = "Thread-per-row sums from a shared-memory tile: the row walk without bank conflicts",
    .test_shapes = kRowSumsShapes,
    .timed_shape = kRowSumsTimed,
    .make = [](const Shape& s) { return std::make_unique<RowSums>(s); },
});

}  // namespace lab06
