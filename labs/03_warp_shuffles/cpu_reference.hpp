#pragma once
// Lab 03's CPU references, in double precision: what the test kernels of test_kernels.cuh must store, given the
// layout of warp_shuffles.hpp (n = x.size() elements in blocks of `block` threads, warps inside blocks).
#include <cstdint>
#include <vector>

namespace lab03::cpu {

/// reps (reps + 1) / 2: the weight of one operation's result summed over the repetitions r * x, r = 1 .. reps.
double repetition_weight(int reps);
/// Number of warps that hold at least one element (the length of warp_sum's output).
std::int64_t warps_with_elements(std::int64_t n, int block);

std::vector<double> warp_sums(const std::vector<float>& x, int block, int reps);
std::vector<double> warp_allreduce(const std::vector<float>& x, int block, int reps);
std::vector<double> warp_scans(const std::vector<float>& x, int block, int reps);
std::vector<double> block_sums(const std::vector<float>& x, int block, int reps);

}  // namespace lab03::cpu
