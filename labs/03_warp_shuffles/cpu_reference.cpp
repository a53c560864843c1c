#include "cpu_reference.hpp"

#include "warp_shuffles.hpp"

#include <algorithm>
#include <stdexcept>

namespace lab03::cpu {
namespace {

/// One warp of the layout: where its elements start and how many it has.
struct Warp {
  std::int64_t g;      // global warp index
  std::int64_t first;  // index of its lane 0's element
  int lanes;           // calling lanes
};

/// Calls f(warp) for every warp holding at least one element, in order of g.
template <class F>
void for_each_warp(std::int64_t n, int block, F f) {
  if (block < 1 || block > 1024) throw std::invalid_argument("block must be in 1..1024");
  const std::int64_t per_block = (block + 31) / 32;
  for (std::int64_t b = 0; b * block < n; ++b) {
    const std::int64_t in_block = std::min<std::int64_t>(block, n - b * block);
    for (std::int64_t w = 0; 32 * w < in_block; ++w)
      f(Warp{b * per_block + w, b * block + 32 * w, static_cast<int>(std::min<std::int64_t>(32, in_block - 32 * w))});
  }
}

}  // namespace

double repetition_weight(int reps) { return 0.5 * reps * (reps + 1.0); }

std::int64_t warps_with_elements(std::int64_t n, int block) {
  std::int64_t count = 0;
  for_each_warp(n, block, [&](const Warp&) { ++count; });
  return count;
}

std::vector<double> warp_sums(const std::vector<float>& x, int block, int reps) {
  std::vector<double> out;
  const double weight = repetition_weight(reps);
  for_each_warp(static_cast<std::int64_t>(x.size()), block, [&](const Warp& w) {
    double s = 0;
    for (int l = 0; l < w.lanes; ++l) s += x[w.first + l];
    out.push_back(weight * s);
  });
  return out;
}

std::vector<double> warp_allreduce(const std::vector<float>& x, int block, int reps) {
  std::vector<double> out(x.size());
  const double weight = repetition_weight(reps);
  for_each_warp(static_cast<std::int64_t>(x.size()), block, [&](const Warp& w) {
    double s = 0, broadcast = 0;
    for (int l = 0; l < w.lanes; ++l) s += x[w.first + l];
    for (int r = 1; r <= reps; ++r) broadcast += r * static_cast<double>(x[w.first + broadcast_source(w.g, r, w.lanes)]);
    for (int l = 0; l < w.lanes; ++l) out[w.first + l] = weight * s + broadcast;
  });
  return out;
}

std::vector<double> warp_scans(const std::vector<float>& x, int block, int reps) {
  std::vector<double> out(x.size());
  const double weight = repetition_weight(reps);
  for_each_warp(static_cast<std::int64_t>(x.size()), block, [&](const Warp& w) {
    double prefix = 0;
    for (int l = 0; l < w.lanes; ++l) {
      prefix += x[w.first + l];
      out[w.first + l] = weight * prefix;
    }
  });
  return out;
}

std::vector<double> block_sums(const std::vector<float>& x, int block, int reps) {
  if (block < 1 || block > 1024) throw std::invalid_argument("block must be in 1..1024");
  const std::size_t b = static_cast<std::size_t>(block);
  std::vector<double> out((x.size() + b - 1) / b);
  for (std::size_t i = 0; i < x.size(); ++i) out[i / b] += x[i];
  for (auto& s : out) s *= repetition_weight(reps);
  return out;
}

}  // namespace lab03::cpu
