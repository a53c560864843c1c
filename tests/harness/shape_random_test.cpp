#include <harness/problem.hpp>
#include <harness/random.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>

TEST_CASE("shapes print and parse as N or RxC", "[harness][shape]") {
  REQUIRE(harness::Shape{1025}.str() == "1025");
  REQUIRE(harness::Shape{4096, 33}.str() == "4096x33");
  REQUIRE(harness::Shape::parse("4096x33") == harness::Shape{4096, 33});
  REQUIRE(harness::Shape::parse("7") == harness::Shape{7});
  for (const char* bad : {"", "x", "3x", "0", "-5", "12a", "3xx4"}) {
    CAPTURE(bad);
    REQUIRE_THROWS_AS(harness::Shape::parse(bad), std::invalid_argument);
  }
}

TEST_CASE("2D test shapes pair every row extent with every column extent", "[harness][shape]") {
  const auto s = harness::shapes_2d({1, 33}, {32, 1025});
  REQUIRE(s.size() == 4);
  REQUIRE(s[1] == harness::Shape{1, 1025});
  REQUIRE(s[2] == harness::Shape{33, 32});
}

TEST_CASE("random integers are reproducible, in range and nonzero", "[harness][random]") {
  const auto a = harness::random_ints(10000, 42, -4, 4);
  REQUIRE(a == harness::random_ints(10000, 42, -4, 4));
  REQUIRE(a != harness::random_ints(10000, 43, -4, 4));
  REQUIRE(std::all_of(a.begin(), a.end(), [](float v) { return v >= -4 && v <= 4 && v != 0 && v == int(v); }));
  for (int v : {-4, -1, 1, 4}) {
    CAPTURE(v);
    REQUIRE(std::count(a.begin(), a.end(), float(v)) > 900);  // about 1250 each
  }
  const auto z = harness::random_ints(1000, 1, 0, 1, false);
  REQUIRE(std::count(z.begin(), z.end(), 0.0f) > 400);
}

TEST_CASE("random floats are reproducible and within lo and hi", "[harness][random]") {
  const auto a = harness::random_floats(10000, 7, -1.0f, 1.0f);
  REQUIRE(a == harness::random_floats(10000, 7, -1.0f, 1.0f));
  REQUIRE(std::all_of(a.begin(), a.end(), [](float v) { return v >= -1 && v < 1; }));
  REQUIRE(*std::min_element(a.begin(), a.end()) < -0.99f);
}
