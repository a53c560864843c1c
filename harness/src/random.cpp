#include <harness/random.hpp>

namespace harness {

std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<float> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi, bool nonzero) {
  std::vector<float> v(n);
  const bool skip_zero = nonzero && lo <= 0 && hi >= 0;
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo + 1) - (skip_zero ? 1 : 0);
  for (std::size_t i = 0; i < n; ++i) {
    int x = lo + static_cast<int>(hash64(seed, i) % span);
    if (skip_zero && x >= 0) ++x;  // shift [0, hi-1] to [1, hi]
    v[i] = static_cast<float>(x);
  }
  return v;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(hash64(seed, i) >> 11) * 0x1p-53;  // [0, 1)
    v[i] = static_cast<float>(lo + (hi - lo) * u);
  }
  return v;
}

}  // namespace harness
