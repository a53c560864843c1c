// What the referee times beside lab 03's exercises: the shuffle unit's rate, full warps doing the same number of
// __shfl_xor_sync reductions of registers (shuffle_ceiling.cu), counted like the exercises' work (n * reps). A shape
// is n x block x reps (warp_shuffles.hpp).
#include "support/shuffle_ceiling.hpp"

#include <harness/device.hpp>
#include <harness/measures.hpp>

#include <string>

namespace lab03 {
namespace {

class ShuffleCeiling final : public harness::CeilingOp {
 public:
  ShuffleCeiling(std::int64_t n, int reps) : n_(n), reps_(reps), out_(static_cast<std::size_t>(n)) {}
  void run(cudaStream_t stream) override { launch_butterflies(out_.get(), n_, reps_, stream); }
  [[nodiscard]] double amount() const override { return static_cast<double>(n_) * reps_; }
  [[nodiscard]] std::string what() const override {
    return "full-warp __shfl_xor_sync reductions of registers, " + std::to_string(reps_) + " per thread";
  }

 private:
  std::int64_t n_;
  int reps_;
  harness::DeviceBuffer<float> out_;
};

std::unique_ptr<harness::CeilingOp> ceiling(const harness::Shape& s) {
  return std::make_unique<ShuffleCeiling>(s[0], static_cast<int>(s[2]));
}

}  // namespace

REGISTER_MEASURES("warp_sum", {.ceiling = ceiling});
REGISTER_MEASURES("warp_allreduce", {.ceiling = ceiling});
REGISTER_MEASURES("warp_scan", {.ceiling = ceiling});
REGISTER_MEASURES("block_sum", {.ceiling = ceiling});

}  // namespace lab03
