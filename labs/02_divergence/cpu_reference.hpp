#pragma once
// Lab 02's CPU references, in double precision. The GPU's float results are compared against these.
#include <cstdint>
#include <vector>

namespace lab02::cpu {

/// One element of "branches": the value, and the largest |v| along the way (the float rounding error of each step
/// is at most one or two units in the last place of that step's |v|, and no step amplifies earlier errors, since
/// |scale| < 1: so the error bound is 2 * iterations * u * max_abs).
struct Element {
  double value = 0;
  double max_abs = 0;
};
Element branch_element(float x, std::int64_t index, int iterations);

/// A sum and the sum of its terms' magnitudes (what the float rounding error scales with).
struct Sum {
  double value = 0;
  double abs = 0;
};
/// Sums of consecutive segments of `segment` elements; the last one may be shorter.
std::vector<Sum> segment_sums(const std::vector<float>& x, std::int64_t segment);

/// The elements a large "branches" output is checked at: all of them up to 65536; beyond, the first and last 4096
/// (every lane, warp and tail position of the first and last blocks) and every 61st in between (61 is prime, so the
/// samples fall on every lane and both parities).
std::vector<std::size_t> sample_indices(std::int64_t n);

}  // namespace lab02::cpu
