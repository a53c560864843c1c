#include <harness/launcher.hpp>

#include <catch2/catch_test_macros.hpp>

namespace {
using Unary = int (*)(int);
using Binary = int (*)(int, int);
int twice(int x) { return 2 * x; }
}  // namespace

TEST_CASE("an implementation returns the launcher registered for an exercise", "[harness][launcher]") {
  harness::Impl impl("student");
  impl.add("double", Unary{twice});
  REQUIRE(impl.has("double"));
  REQUIRE(impl.launcher<Unary>("double")(21) == 42);
}

TEST_CASE("a missing launcher or a wrong signature is an error, not a crash", "[harness][launcher]") {
  harness::Impl impl("student");
  impl.add("double", Unary{twice});
  REQUIRE_THROWS_AS(impl.launcher<Unary>("triple"), harness::MissingLauncher);
  REQUIRE_THROWS_AS(impl.launcher<Binary>("double"), std::logic_error);
  REQUIRE_THROWS_AS(impl.add("double", Unary{twice}), std::logic_error);
}
