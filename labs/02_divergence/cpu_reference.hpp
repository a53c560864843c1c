#pragma once
// Lab 02's CPU references, in double precision. The GPU's float results are compared against these.
#include <cstdint>
#include <vector>

namespace lab02::cpu {

/// One FMA chain of "branches" or "regroup": the value, and the largest |v| along the way (the float rounding error
/// of each step is at most one or two units in the last place of that step's |v|, and no step amplifies earlier
/// errors, since |scale| < 1: so the error bound is 2 * steps * u * max_abs).
struct Element {
  double value = 0;
  double max_abs = 0;
};
/// `steps` steps of v = v * scale + shift from v = x, in double precision (the float constants, exactly).
Element fma_chain(float x, float scale, float shift, int steps);
/// Exercise 1: the path of the index's parity.
Element branch_element(float x, std::int64_t index, int iterations);

/// One element of "regroup": heavy (x >= threshold) takes `heavy_steps` of the heavy path, light `light_steps` of
/// the light one. The same error bound as branch_element, with the path's own number of steps.
struct RegroupElement : Element {
  bool heavy = false;
  int steps = 0;  ///< the steps of the path taken
};
RegroupElement regroup_element(float x, float threshold, int heavy_steps, int light_steps);

/// The share of the integers lo..hi that are >= threshold: the expected fraction of heavy elements when the inputs
/// are drawn uniformly from them (the ceiling of "regroup" packs that many heavy chains into full warps).
double heavy_fraction(double threshold, int lo, int hi);

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
