// Lab 05's exercises: inputs, CPU references, the work each must do, and the sizes tested and timed.
//
// All three exercises compute the same product, C = A * B in FP32; they differ in the kernel you start from (the
// stub) and the one you are measured against (the reference). Inputs are integers in [-8, 8]: every product is an
// integer of magnitude at most 64, and every partial sum of a row of C is an integer of magnitude at most 64 * k,
// which float represents exactly while it is below 2^24, i.e. for k < 262144. So every summation order gives the
// same, exact result, and the comparison is bit for bit at every shape here (4096^3 included): a missing barrier or
// a dropped k-tile cannot hide in a tolerance.
#include "cpu_reference.hpp"
#include "matmul.hpp"

#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <stdexcept>

namespace lab05 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Tolerance;
using harness::Work;

constexpr int kMaxInput = 8;
// Products of more multiply-adds than this are checked at sampled elements (cpu::sample_indices), not everywhere:
// 2^26 double multiply-adds take the CPU about 0.1 s.
constexpr std::int64_t kFullReferenceLimit = std::int64_t{1} << 26;

class Matmul final : public harness::Problem {
 public:
  Matmul(const Shape& s, const char* exercise)
      : Problem(s), exercise_(exercise), m_(s[0]), n_(s[1]), k_(s[2]),
        a_(*this, "a", m_ * k_), b_(*this, "b", k_ * n_), c_(*this, "c", m_ * n_) {
    if (kMaxInput * kMaxInput * k_ >= (std::int64_t{1} << 24))
      throw std::logic_error("k too large for exact integer sums (course bug: use a tolerance)");
  }
  void generate(std::uint64_t seed) override {
    a_.set(harness::random_ints(m_ * k_, seed, -kMaxInput, kMaxInput));
    b_.set(harness::random_ints(k_ * n_, seed + 1000, -kMaxInput, kMaxInput));
    if (m_ * n_ * k_ <= kFullReferenceLimit) {
      c_.expect(cpu::matmul(a_.host(), b_.host(), m_, n_, k_), Tolerance::exact());
    } else {
      auto indices = cpu::sample_indices(m_, n_, seed);
      auto ref = cpu::matmul_at(a_.host(), b_.host(), m_, n_, k_, indices);
      c_.expect_at(std::move(indices), std::move(ref), Tolerance::exact());
    }
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<MatmulLauncher>(exercise_)(a_.data(), b_.data(), c_.data(), m_, n_, k_, s);
  }
  // 2mnk flops; each matrix read or written once at least. At 4096^3 that is 137 GFLOP against 201 MB: 680 flops per
  // byte, far beyond the ~15 flops per byte at which an H200's FP32 units outrun its memory. Compute-bound.
  [[nodiscard]] Work work() const override {
    return {.bytes = 4.0 * (m_ * k_ + k_ * n_ + m_ * n_), .flops = 2.0 * m_ * n_ * k_};
  }

 private:
  const char* exercise_;
  std::int64_t m_, n_, k_;
  Input<float> a_, b_;
  Output<float> c_;
};

// Shapes are m x n x k. Every extent around a warp and a block appears; none of 31, 33, 1023, 1025, 127, 129 is a
// multiple of any tile (8, 16, 32, 64, 128) nor of the float4 width; k = 1 and 1 x n / m x 1 products are the
// degenerate cases; the last two shapes are large multiples (the fast path of a tiled kernel) and large
// non-multiples.
const std::vector<Shape> kShapes = {
    {1, 1, 1},       {31, 33, 1},      {32, 32, 32},      {33, 31, 33},       {1, 1025, 31},
    {1023, 1, 33},   {127, 129, 8},    {128, 128, 128},   {129, 255, 7},      {1023, 1025, 9},
    {1025, 1023, 64}, {1024, 1024, 1024}, {1025, 1023, 1025}, {2048, 4096, 512}, {1000, 2000, 3000},
};
const Shape kTimed = {4096, 4096, 4096};

std::function<std::unique_ptr<harness::Problem>(const Shape&)> maker(const char* exercise) {
  return [exercise](const Shape& s) { return std::make_unique<Matmul>(s, exercise); };
}

}  // namespace

REGISTER_EXERCISE({
    .name = "naive",
    .title = "Naive matmul: map threadIdx.x to the column, so a warp reads a row segment of B",
    .test_shapes = kShapes,
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make = maker("naive"),
});

REGISTER_EXERCISE({
    .name = "smem_tiled",
    .title = "Shared-memory tiling: stage tiles of A and B, reuse each one 32 times",
    .test_shapes = kShapes,
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make = maker("smem_tiled"),
});

REGISTER_EXERCISE({
    .name = "register_blocked",
    .title = "Register blocking: each thread computes an 8x8 tile of C from registers",
    .test_shapes = kShapes,
    .timed_shape = kTimed,
    .bound = harness::Bound::compute,
    .make = maker("register_blocked"),
});

}  // namespace lab05
