// Lab 04's exercises: five stages of one sum, each its own exercise with the same input, reference and tolerance,
// timed at 2^28 floats beside cub::DeviceReduce::Sum and thrust::reduce (the referee's peers: support/measures.cpp).
#include "cpu_reference.hpp"
#include "reduction.hpp"

#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <string>

namespace lab04 {
namespace {

using harness::Input;
using harness::Output;
using harness::Shape;
using harness::Work;

// The check is exact at every size (generate() says why), so each size is there for the indexing it tests: around
// a float4 (1..5, 7), a warp, a block (255..257, 1023..1025), primes (4099, 8191: not a multiple of any vector
// width, warp, block or grid); then a prime above a grid-stride loop's stride, 2^24 and 2^24 + 3 (a float4 tail at a
// size with many loop trips).
const std::vector<std::int64_t> kSizes = {1,    2,    3,    4,    5,       7,       31,      32,          33,
                                          255,  256,  257,  1023, 1024,    1025,    4099,    8191,        1000003,
                                          1 << 24, (1 << 24) + 3};

class Sum final : public harness::Problem {
 public:
  Sum(const Shape& s, std::string stage) : Problem(s), stage_(std::move(stage)), n_(s[0]), x_(*this, "x", n_),
                                           result_(*this, "result", 1) {}
  void generate(std::uint64_t seed) override {
    // Nonzero integers in [-4, 4]: mean zero, so partial sums in any order stay far below 2^24 and are exact in
    // float (a right answer is exactly the integer sum); nonzero, so a dropped element changes the sum.
    x_.set(harness::random_ints(n_, seed, -4, 4));
    const cpu::Sum s = cpu::sum(x_.host());
    // Exact: float adds these integers exactly while partial sums stay below 2^24, which any order that does not sort
    // the terms by value keeps far behind (harness::integer_sum_tolerance). So a sum that drops, repeats or changes
    // one term, or writes 0, fails at every size, 2^28 included (the probabilistic bound of sum_tolerance was larger
    // than the sums themselves from 2^24 on).
    result_.expect({s.value}, {{harness::integer_sum_tolerance(n_, s.abs, s.peak)}, 0.0});
  }
  void run(const harness::Impl& impl, cudaStream_t s) override {
    impl.launcher<SumLauncher>(stage_)(x_.data(), result_.data(), n_, s);
  }
  // Reads 4 bytes per element, writes one float.
  [[nodiscard]] Work work() const override { return {.bytes = 4.0 * n_ + 4, .flops = 1.0 * n_}; }

 private:
  std::string stage_;
  std::int64_t n_;
  Input<float> x_;
  Output<float> result_;
};

harness::ExerciseSpec stage(const char* name, const char* title) {
  return {
      .name = name,
      .title = title,
      .test_shapes = harness::shapes_1d(kSizes),
      .timed_shape = {1 << 28},
      .make = [name](const Shape& s) { return std::make_unique<Sum>(s, name); },
  };
}

}  // namespace

// REGISTER_EXERCISE takes the spec's initializer; the stages share everything but name and title.
static const harness::ExerciseRegistrar kAtomic{stage("atomic", "Stage 1 (given): one atomicAdd per element"),
                                                HARNESS_STRINGIFY(HARNESS_LAB)};
static const harness::ExerciseRegistrar kWarpAtomic{
    stage("warp_atomic", "Stage 2: warp sum by shuffles, one atomicAdd per warp"), HARNESS_STRINGIFY(HARNESS_LAB)};
static const harness::ExerciseRegistrar kBlockAtomic{
    stage("block_atomic", "Stage 3: block sum, one atomicAdd per block"), HARNESS_STRINGIFY(HARNESS_LAB)};
static const harness::ExerciseRegistrar kGridStride{
    stage("grid_stride", "Stage 4: grid-stride loop, many elements per thread before the block sum"),
    HARNESS_STRINGIFY(HARNESS_LAB)};
static const harness::ExerciseRegistrar kVectorized{
    stage("vectorized", "Stage 5: float4 loads in the grid-stride loop"), HARNESS_STRINGIFY(HARNESS_LAB)};

}  // namespace lab04
