#include <harness/random.hpp>

#include <algorithm>
#include <thread>

namespace harness {

std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) noexcept { return detail::splitmix(seed, index); }

namespace {
// Counter-based values fill in any order: large arrays are split over the host's cores (2^28 values took 1.5 s on
// one core of the GPU machine, in every `time` run of a 2^28-element exercise).
RandomValues make(const RandomRecipe& recipe, std::size_t n) {
  RandomValues v;
  v.recipe = recipe;
  v.resize(n);
  const auto fill = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) v[i] = detail::random_value(recipe, recipe.seed, i);
  };
  constexpr std::size_t kPerThread = 1 << 20;
  const std::size_t threads =
      std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), (n + kPerThread - 1) / kPerThread);
  if (threads <= 1) {
    fill(0, n);
    return v;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(fill, n * t / threads, n * (t + 1) / threads);
  for (auto& thread : pool) thread.join();
  return v;
}
}  // namespace

RandomValues random_ints(std::size_t n, std::uint64_t seed, int lo, int hi, bool nonzero) {
  return make({RandomRecipe::Kind::ints, seed, static_cast<double>(lo), static_cast<double>(hi), nonzero}, n);
}

RandomValues random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  return make({RandomRecipe::Kind::floats, seed, lo, hi, false}, n);
}

}  // namespace harness
