#pragma once
/// @file random.hpp
/// @brief Seeded, reproducible input generation: the same (seed, index) gives the same value on every machine.
///
/// Counter-based (splitmix64 of seed and index) rather than a sequential engine, so 2^28 values take a fraction of a
/// second and any element can be recomputed alone when a failure is reported.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace harness {

/// splitmix64 of (seed, index): a well-mixed 64-bit value.
std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) noexcept;

/// `n` integers drawn uniformly from [lo, hi], as floats, never 0 when `nonzero`. Small integers keep sums and
/// products exact in float32, so results compare bit for bit; nonzero values make a dropped or zeroed element visible.
std::vector<float> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi, bool nonzero = true);
/// `n` floats uniform in [lo, hi).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi);

}  // namespace harness
