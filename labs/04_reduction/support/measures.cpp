// What the referee times beside lab 04's stages: the library peers (library_sums.cu), on the stage's own input with
// their own output, and each stage's place in the staircase.
#include "support/library_sums.hpp"

#include <harness/cuda_check.hpp>
#include <harness/measures.hpp>

#include <map>
#include <string>

namespace lab04 {
namespace {

const harness::Input<float>& input_of(harness::Problem& p) { return harness::buffer_named<harness::Input<float>>(p, "x"); }

/// The library peers: the same input, their own output. Not graded; they show where the staircase ends.
std::vector<harness::Peer> library_peers() {
  return {
      {"cub::DeviceReduce::Sum",
       [](harness::Problem& p, cudaStream_t s) {
         static void* out = nullptr;  // one float for the peer's result, kept for the process (see library_sums)
         if (!out) CUDA_CHECK(cudaMalloc(&out, sizeof(float)));
         cub_sum(input_of(p).data(), static_cast<float*>(out), p.shape()[0], s);
       }},
      {"thrust::reduce",
       [](harness::Problem& p, cudaStream_t s) { (void)thrust_sum(input_of(p).data(), p.shape()[0], s); }},
  };
}

/// Each stage's place in the staircase. The baseline of stage k is stage k-1's kernel (the stub the student starts
/// from), so baseline / student is the speedup this stage earned; the library ratios say how far there is to go.
/// For the given first stage, the baseline is the stage itself.
std::map<std::string, double> staircase(const harness::Medians& m) {
  const double student = m.at("student");
  return {{"speedup_over_previous_stage", m.at("baseline") / student},
          {"fraction_of_cub_speed", m.at("cub::DeviceReduce::Sum") / student},
          {"fraction_of_thrust_speed", m.at("thrust::reduce") / student},
          {"reference_fraction_of_cub_speed", m.at("cub::DeviceReduce::Sum") / m.at("reference")}};
}

}  // namespace

REGISTER_MEASURES("atomic", {.peers = library_peers(), .metrics = staircase});
REGISTER_MEASURES("warp_atomic", {.peers = library_peers(), .metrics = staircase});
REGISTER_MEASURES("block_atomic", {.peers = library_peers(), .metrics = staircase});
REGISTER_MEASURES("grid_stride", {.peers = library_peers(), .metrics = staircase});
REGISTER_MEASURES("vectorized", {.peers = library_peers(), .metrics = staircase});

}  // namespace lab04
