// The self-check's verdicts (grader/self_check.hpp) on hand-made results: what holds a reference to full marks and a
// stub to its manifest's expectation.
#include "grader/self_check.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace grader;

namespace {

/// One exercise that passed every test, with the correctness points earned and `fraction` of the performance.
LabResult lab_with(double performance_max, double fraction) {
  ExerciseResult x;
  x.name = "row_sums";
  x.tests_passed = x.tests_total = 12;
  x.correctness_max = 2;
  x.performance_max = performance_max;
  x.score = {2, fraction, performance_max * fraction, 2 + performance_max * fraction};
  LabResult lab;
  lab.number = 6;
  lab.exercises.push_back(x);
  return lab;
}

Manifest manifest_with(double performance_points) {
  Manifest m;
  m.exercises.push_back({"row_sums", 2, performance_points, StubKind::kSlow, std::nullopt, {}});
  return m;
}

}  // namespace

TEST_CASE("a reference below full marks fails the self-check where performance points are at stake",
          "[grader][self-check]") {
  const auto verdicts = self_check_verdicts(lab_with(6, 0.84), manifest_with(6), "reference");
  REQUIRE(verdicts.size() == 1);
  CHECK_FALSE(verdicts[0].passed);
  CHECK(verdicts[0].detail.find("performance fraction 0.840") != std::string::npos);
  CHECK(self_check_verdicts(lab_with(6, 1.0), manifest_with(6), "reference")[0].passed);
}

TEST_CASE("an exercise worth no performance points does not judge the reference's time, only its tests",
          "[grader][self-check]") {
  // Timed with three samples for the report: its fraction against itself is noise (0.84 seen on an H200).
  const auto verdicts = self_check_verdicts(lab_with(0, 0.84), manifest_with(0), "reference");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].passed);
  CHECK(verdicts[0].detail.find("not judged") != std::string::npos);
  auto failed = lab_with(0, 1.0);
  failed.exercises[0].tests_passed = 11;  // its tests still count
  CHECK_FALSE(self_check_verdicts(failed, manifest_with(0), "reference")[0].passed);
}
