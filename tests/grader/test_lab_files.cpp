// Reading what a lab binary wrote: check results (JSON lines) and time results (one JSON object).

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/lab_run.hpp"

using Catch::Matchers::ContainsSubstring;
using grader::parse_check_results;
using grader::parse_time_results;

TEST_CASE("check results count the plan, the cases and the passes", "[grader][lab_files]") {
  const auto f = parse_check_results(
      R"({"plan": {"exercise": "scale", "impl": "student", "cases": 4}}
{"exercise": "scale", "shape": "1", "seed": 1, "ok": true, "message": ""}

{"exercise": "scale", "shape": "31", "seed": 1, "ok": false, "message": "3 of 31 elements differ"}
{"exercise": "scale", "shape": "32", "seed": 1, "ok": false, "message": "later failure"}
)",
      "scale");
  CHECK(f.error.empty());
  CHECK(f.has_plan);
  CHECK(f.total == 4);
  CHECK(f.cases == 3);
  CHECK(f.passed == 1);
  CHECK(f.first_failure == "shape 31 seed 1: 3 of 31 elements differ");
}

TEST_CASE("a check line cut off by a dying process is ignored", "[grader][lab_files]") {
  const auto f = parse_check_results(
      "{\"plan\": {\"exercise\": \"scale\", \"cases\": 3}}\n{\"exercise\": \"scale\", \"ok\": true}\n{\"exerc", "scale");
  CHECK(f.error.empty());
  CHECK(f.total == 3);
  CHECK(f.passed == 1);
}

TEST_CASE("unusable check results say what is wrong", "[grader][lab_files]") {
  CHECK_THAT(parse_check_results("garbage\n{\"plan\": {\"cases\": 1}}\n", "a").error,
             ContainsSubstring("line 1 is not a JSON object: garbage"));
  CHECK_THAT(parse_check_results("{\"plan\": {\"exercise\": \"b\", \"cases\": 1}}\n", "a").error,
             ContainsSubstring("line 1: plan is for exercise 'b', not 'a'"));
  CHECK_THAT(parse_check_results("{\"plan\": {\"cases\": -1}}\n", "a").error,
             ContainsSubstring("plan without a valid 'cases' count"));
  CHECK_THAT(parse_check_results("{\"plan\": {\"cases\": 1}}\n{\"ok\": \"yes\"}\n", "a").error,
             ContainsSubstring("line 2: result without a true/false 'ok'"));
  const auto no_plan = parse_check_results("{\"ok\": true}\n", "a");
  CHECK(no_plan.error.empty());
  CHECK_FALSE(no_plan.has_plan);
  CHECK(no_plan.total == 0);
}

TEST_CASE("time results give the medians, noise, rates and ceiling", "[grader][lab_files]") {
  const auto f = parse_time_results(R"({"exercise": "scale", "unit": "GB/s", "correct": true, "message": "",
    "runners": {"student": {"median_ms": 17.52, "noise_pct": 0.3, "rate": 122.4},
                "reference": {"median_ms": 0.551, "noise_pct": 0.4, "rate": 3897.2},
                "baseline": {"median_ms": 17.55, "noise_pct": 0.2},
                "ceiling": {"median_ms": 0.5, "rate": 4200, "what": "device-to-device copy"}},
    "percent_of_ceiling": 2.9})");
  CHECK(f.error.empty());
  REQUIRE(f.correct.has_value());
  CHECK(*f.correct);
  REQUIRE(f.timing.has_value());
  CHECK(f.timing->unit == "GB/s");
  CHECK(f.timing->student.median_ms == 17.52);
  CHECK(f.timing->student.noise_pct == 0.3);
  CHECK(f.timing->reference.rate == 3897.2);
  CHECK_FALSE(f.timing->baseline.rate.has_value());
  REQUIRE(f.timing->ceiling.has_value());
  CHECK(f.timing->ceiling->rate == 4200);
  CHECK(f.timing->ceiling_what == "device-to-device copy");
  CHECK(f.timing->percent_of_ceiling == 2.9);
}

TEST_CASE("incomplete or unusable time results say what is wrong", "[grader][lab_files]") {
  const auto wrong = parse_time_results(R"({"correct": false, "message": "became wrong", "runners": {}})");
  CHECK(wrong.error.empty());
  CHECK(wrong.correct == false);
  CHECK(wrong.message == "became wrong");
  CHECK_FALSE(wrong.timing.has_value());
  CHECK(wrong.timing_problem == "runners.student is missing");

  const auto no_baseline = parse_time_results(
      R"({"correct": true, "runners": {"student": {"median_ms": 1}, "reference": {"median_ms": 1},
          "baseline": {"median_ms": 0}}})");
  CHECK_FALSE(no_baseline.timing.has_value());
  CHECK_THAT(no_baseline.timing_problem, ContainsSubstring("runners.baseline.median_ms"));

  CHECK_THAT(parse_time_results("{\"correct\": \"yes\"}").error, ContainsSubstring("'correct' is not true or false"));
  CHECK_THAT(parse_time_results("not json").error, ContainsSubstring("not a JSON object"));
  CHECK_FALSE(parse_time_results("{}").correct.has_value());
}
