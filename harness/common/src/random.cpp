#include <harness/random.hpp>

#include <harness/parallel.hpp>

namespace harness {

std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) noexcept { return detail::splitmix(seed, index); }

namespace {
// Counter-based values fill in any order: large arrays are split over the host's cores (2^28 values took 1.5 s on
// one core of the GPU machine, in every `time` run of a 2^28-element exercise).
RandomValues make(const RandomRecipe& recipe, std::size_t n) {
  RandomValues v;
  v.recipe = recipe;
  v.resize(n);
  constexpr std::size_t kPerThread = 1 << 20;
  parallel_chunks(n, kPerThread, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) v[i] = detail::random_value(recipe, recipe.seed, i);
  });
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
