// The mutants' spoiling of outputs (mutations.hpp): each output is copied to the host, changed, and copied back (an
// output in shared host memory is changed where it is, through a copy all the same).
#include "mutations.hpp"

#include <harness/cuda_check.hpp>
#include <harness/problem.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

namespace harness::runner {
namespace {

/// A change of `v` no tolerance of the course accepts: 1 for integers, 1% of the value (at least 1) for floats.
template <class T>
T nudged(T v) {
  if constexpr (std::is_floating_point_v<T>) return v + std::max<T>(T(1), std::fabs(v) / T(100));
  return v == std::numeric_limits<T>::max() ? v - 1 : v + 1;
}

/// The outputs of the first run, per output size, for `stale`.
template <class T>
std::map<std::size_t, std::vector<T>>& first_outputs() {
  static std::map<std::size_t, std::vector<T>> kept;
  return kept;
}

template <class T>
void mutate(std::vector<T>& v, const std::string& mutation) {
  const std::vector<T> right = v;
  const std::size_t n = v.size(), mid = n / 2;
  if (mutation == "zeros") {
    std::fill(v.begin(), v.end(), T(0));
  } else if (mutation == "constant") {
    std::fill(v.begin(), v.end(), nudged(right[0]));
  } else if (mutation == "sampled_only") {  // right where a sampling check would look: every 64th and the last
    for (std::size_t i = 0; i < n; ++i)
      if (i % 64 != 0 && i + 1 != n) v[i] = nudged(v[i]);
  } else if (mutation == "shifted") {
    std::rotate(v.begin(), v.begin() + 1, v.end());
  } else if (mutation == "tail_missing") {  // the elements past the last full block of 256 never written
    for (std::size_t i = n / 256 * 256; i < n; ++i) v[i] = T(0);
  } else if (mutation == "one_element_off") {
    v[mid] = nudged(v[mid]);
  } else if (mutation == "nan") {
    if constexpr (std::is_floating_point_v<T>) {
      v[mid] = std::numeric_limits<T>::quiet_NaN();
    } else {
      v[mid] = std::numeric_limits<T>::min();
    }
  } else if (mutation == "stale") {
    auto [kept, first] = first_outputs<T>().try_emplace(n, right);
    v = kept->second;
    if (first) v[mid] = nudged(v[mid]);  // the first run has no earlier answer to give: wrong all the same
  } else {
    throw std::invalid_argument("unknown mutation '" + mutation + "'");
  }
  // Tiny or uniform outputs can leave a mutation right (a shifted constant, no tail past 256): spoil one element.
  if (v == right) v[0] = nudged(v[0]);
}

template <class T>
bool mutate_if(Buffer* buffer, const std::string& mutation) {
  auto* out = dynamic_cast<Output<T>*>(buffer);
  if (!out) return false;
  std::vector<T> v(out->size());
  const std::size_t bytes = v.size() * sizeof(T);
  if (out->memory() == Memory::host) {  // shared host memory (lab 07): the referee reads these very pages
    std::memcpy(v.data(), out->data(), bytes);
    mutate(v, mutation);
    std::memcpy(out->data(), v.data(), bytes);
    return true;
  }
  CUDA_CHECK(cudaMemcpy(v.data(), out->data(), bytes, cudaMemcpyDeviceToHost));
  mutate(v, mutation);
  CUDA_CHECK(cudaMemcpy(out->data(), v.data(), bytes, cudaMemcpyHostToDevice));
  return true;
}

}  // namespace

const std::vector<std::string>& mutation_names() {
  static const std::vector<std::string> names{"zeros", "constant", "sampled_only", "shifted",
                                              "tail_missing", "one_element_off", "nan", "stale"};
  return names;
}

void mutate_outputs(Problem& problem, const std::string& mutation) {
  if (std::find(mutation_names().begin(), mutation_names().end(), mutation) == mutation_names().end())
    throw std::invalid_argument("unknown mutation '" + mutation + "'");
  for (Buffer* b : problem.buffers())
    if (b->role() == Buffer::Role::output && !mutate_if<float>(b, mutation) && !mutate_if<std::int32_t>(b, mutation))
      throw std::logic_error("output '" + b->name() + "' has a type the mutants do not know (course bug)");
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace harness::runner
