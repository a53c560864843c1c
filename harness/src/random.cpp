#include <harness/random.hpp>

namespace harness {

std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) noexcept { return detail::splitmix(seed, index); }

namespace {
RandomValues make(const RandomRecipe& recipe, std::size_t n) {
  RandomValues v;
  v.recipe = recipe;
  v.resize(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = detail::random_value(recipe, recipe.seed, i);
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
