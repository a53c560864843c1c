// What the referee times beside lab 02's exercises: the compute ceilings, groups of FMA chains with every warp on one
// path and no loads (fma_ceiling.cu), counted with the same 2 flops per step as the exercises' work.
#include "cpu_reference.hpp"
#include "exercises.hpp"
#include "support/fma_ceiling.hpp"

#include <harness/device.hpp>
#include <harness/measures.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace lab02 {
namespace {

using harness::Shape;

class FmaCeiling final : public harness::CeilingOp {
 public:
  struct Chains {
    std::int64_t count;  ///< threads, each running one chain
    int steps;           ///< FMAs per chain
  };
  FmaCeiling(std::vector<Chains> groups, std::string what) : groups_(std::move(groups)), what_(std::move(what)) {
    std::int64_t most = 1;
    for (const auto& g : groups_) most = std::max(most, g.count);
    out_ = harness::DeviceBuffer<float>(static_cast<std::size_t>(most));
  }
  void run(cudaStream_t stream) override {
    for (const auto& g : groups_)
      if (g.count > 0) launch_fma_chains(out_.get(), g.count, g.steps, stream);
  }
  [[nodiscard]] double amount() const override {
    double flops = 0;
    for (const auto& g : groups_) flops += 2.0 * g.steps * static_cast<double>(g.count);
    return flops;
  }
  [[nodiscard]] std::string what() const override { return what_; }

 private:
  std::vector<Chains> groups_;
  std::string what_;
  harness::DeviceBuffer<float> out_;
};

/// The ceiling of "regroup": the chains of the expected number of heavy elements packed into full warps, then the
/// light elements' chains, no divergence and no loads: what the arithmetic costs when no lane waits for another.
std::unique_ptr<harness::CeilingOp> regroup_ceiling(const Shape& s) {
  const std::int64_t n = s[0];
  const double fraction = cpu::heavy_fraction(static_cast<double>(s[1]), kInputLo, kInputHi);
  const auto heavy = static_cast<std::int64_t>(std::llround(static_cast<double>(n) * fraction));
  return std::make_unique<FmaCeiling>(
      std::vector<FmaCeiling::Chains>{{heavy, kHeavySteps}, {n - heavy, kLightSteps}},
      "the expected heavy chains (" + std::to_string(kHeavySteps) + " FMAs) in full warps, then the light ones (" +
          std::to_string(kLightSteps) + "), no loads");
}

}  // namespace

REGISTER_MEASURES("branches", {
    .ceiling =
        [](const Shape& s) {
          return std::make_unique<FmaCeiling>(
              std::vector<FmaCeiling::Chains>{{s[0], kIterations}},
              "the same FMA chains with every warp on one path (" + std::to_string(kIterations) + " per element)");
        },
});

REGISTER_MEASURES("regroup", {.ceiling = regroup_ceiling});

}  // namespace lab02
