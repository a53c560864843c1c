#pragma once
/// @file random.hpp
/// @brief Seeded, reproducible input generation: the same (seed, index) gives the same value on every machine, on the
/// host and on the GPU.
///
/// Counter-based (splitmix64 of seed and index) rather than a sequential engine, so 2^28 values take a fraction of a
/// second, any element can be recomputed alone when a failure is reported, and the GPU can make fresh inputs of the
/// same kind between timed runs (random_on_device) without the host in the loop.
#include <cstddef>
#include <cstdint>
#include <vector>

/// @cond INTERNAL
#ifdef __CUDACC__
#define HARNESS_HOST_DEVICE __host__ __device__
#else
#define HARNESS_HOST_DEVICE
#endif
/// @endcond

namespace harness {

/// splitmix64 of (seed, index): a well-mixed 64-bit value.
std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) noexcept;

/// How an array of random values was made: enough to make another of the same kind from another seed.
struct RandomRecipe {
  /// Integers as floats, or uniform floats.
  enum class Kind { ints, floats };
  Kind kind = Kind::ints;  ///< which generator
  std::uint64_t seed = 0;  ///< the seed it was made from
  double lo = 0;           ///< smallest value (ints) or lower bound (floats)
  double hi = 0;           ///< largest value (ints) or upper bound, excluded (floats)
  bool nonzero = true;     ///< ints: 0 never drawn
};

/// Random values, with the recipe that made them (an Input keeps it to make fresh inputs on the GPU).
struct RandomValues : std::vector<float> {
  RandomRecipe recipe;  ///< how they were made
};

/// `n` integers drawn uniformly from [lo, hi], as floats, never 0 when `nonzero`. Small integers keep sums and
/// products exact in float32, so results compare bit for bit; nonzero values make a dropped or zeroed element visible.
RandomValues random_ints(std::size_t n, std::uint64_t seed, int lo, int hi, bool nonzero = true);
/// `n` floats uniform in [lo, hi).
RandomValues random_floats(std::size_t n, std::uint64_t seed, float lo, float hi);
/// Writes into the device array `out` the `n` values that `recipe` with its seed replaced by `seed` makes: the same
/// values random_ints or random_floats would return. Enqueued on the legacy default stream; synchronous.
void random_on_device(const RandomRecipe& recipe, std::uint64_t seed, float* out, std::size_t n);

/// @cond INTERNAL
namespace detail {
// The generators' arithmetic, shared by the host functions above and the GPU kernel.
HARNESS_HOST_DEVICE inline std::uint64_t splitmix(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
HARNESS_HOST_DEVICE inline float random_value(const RandomRecipe& r, std::uint64_t seed, std::uint64_t i) {
  if (r.kind == RandomRecipe::Kind::floats) {
    const double u = static_cast<double>(splitmix(seed, i) >> 11) * 0x1p-53;  // [0, 1)
    const double lo = static_cast<float>(r.lo), span = static_cast<float>(r.hi) - static_cast<float>(r.lo);
#ifdef __CUDA_ARCH__
    // Rounded multiply, then rounded add, as the host does: nvcc would fuse them into one FMA, whose single rounding
    // can differ in the last bit, and the GPU's inputs must equal the host's bit for bit (Input::set).
    return static_cast<float>(__dadd_rn(lo, __dmul_rn(span, u)));
#else
    return static_cast<float>(lo + span * u);
#endif
  }
  const int lo = static_cast<int>(r.lo), hi = static_cast<int>(r.hi);
  const bool skip_zero = r.nonzero && lo <= 0 && hi >= 0;
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo + 1) - (skip_zero ? 1 : 0);
  int x = lo + static_cast<int>(splitmix(seed, i) % span);
  if (skip_zero && x >= 0) ++x;  // shift [0, hi-1] to [1, hi]
  return static_cast<float>(x);
}
}  // namespace detail
/// @endcond

}  // namespace harness
