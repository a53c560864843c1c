// Compiled into every lab's CPU test binary (add_lab): checks, without a GPU, that the lab's registered exercises,
// its manifest and the course's testing rules agree. Only the lab's own files decide what is checked.
#include <harness/launcher.hpp>
#include <harness/problem.hpp>

#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>

namespace {
nlohmann::json manifest() {
  std::ifstream f(LAB_MANIFEST);
  return nlohmann::json::parse(f);
}
}  // namespace

TEST_CASE("the manifest lists exactly the registered exercises, in teaching order", "[lab][manifest]") {
  const auto m = manifest();
  const auto& exercises = harness::lab().exercises;
  REQUIRE(m.at("exercises").size() == exercises.size());
  for (std::size_t i = 0; i < exercises.size(); ++i) {
    CAPTURE(i);
    REQUIRE(m["exercises"][i].at("name").get<std::string>() == exercises[i].name);
    const auto stub = m["exercises"][i].at("stub").get<std::string>();
    REQUIRE((stub == "slow" || stub == "incorrect"));
  }
}

TEST_CASE("every exercise is tested at the edge sizes and timed at a large size", "[lab][sizes]") {
  // Sizes around a warp and a block, in some dimension of some test shape.
  const std::set<std::int64_t> required = {1, 31, 32, 33, 1023, 1024, 1025};
  for (const auto& e : harness::lab().exercises) {
    CAPTURE(e.name);
    REQUIRE(e.make);
    REQUIRE_FALSE(e.title.empty());
    std::set<std::int64_t> seen;
    for (const auto& s : e.test_shapes) seen.insert(s.dims.begin(), s.dims.end());
    for (auto r : required) {
      CAPTURE(r);
      CHECK(seen.contains(r));
    }
    // Timed work must be far above launch overhead: the noise measurements in shared/anchors show 4-20% spread at
    // 2^20 floats and under 1% at 2^24 and above.
    std::int64_t elements = 1;
    for (auto d : e.timed_shape.dims) elements *= d;
    CHECK(elements >= (std::int64_t{1} << 24));
  }
}
