// Reading what a lab binary wrote: check results (JSON lines) and time results (one JSON object), and rejecting what
// contradicts what the grader asked for.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fmt/format.h>

#include "grader/lab_run.hpp"

using Catch::Matchers::ContainsSubstring;
using grader::CheckPlan;
using grader::contradiction;
using grader::parse_check_results;
using grader::parse_seeds;
using grader::parse_time_results;
using grader::split_check_results;
using grader::TimePlan;

namespace {

// Check results of `cases` (shape, seed) pairs, all passing, after a plan of `planned` cases for `impl`.
std::string check_lines(int planned, const std::vector<std::pair<const char*, int>>& cases,
                        const char* impl = "student") {
  std::string text = fmt::format(R"({{"plan": {{"exercise": "scale", "impl": "{}", "cases": {}}}}})", impl, planned);
  for (const auto& [shape, seed] : cases)
    text += fmt::format("\n{{\"exercise\": \"scale\", \"shape\": \"{}\", \"seed\": {}, \"ok\": true}}", shape, seed);
  return text + "\n";
}

}  // namespace

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

TEST_CASE("a check results stream of several exercises splits into each exercise's lines", "[grader][lab_files]") {
  const std::string a_plan = R"({"plan": {"exercise": "a", "cases": 1}})";
  const std::string b_plan = R"({"plan": {"exercise": "b", "cases": 1}})";
  const std::string a_case = R"({"exercise": "a", "shape": "1", "seed": 1, "ok": true})";
  const std::string b_case = R"({"exercise": "b", "shape": "1", "seed": 1, "ok": false})";
  const auto parts = split_check_results(a_plan + "\n" + b_plan + "\n\n" + a_case + "\n" + b_case + "\n{\"exerc");
  REQUIRE(parts);
  CHECK(parts->size() == 2);
  CHECK(parts->at("a") == a_plan + "\n" + a_case + "\n");
  CHECK(parts->at("b") == b_plan + "\n" + b_case + "\n");
  CHECK(parse_check_results(parts->at("b"), "b").cases == 1);
  // A whole line that is not JSON, or names no exercise, leaves the stream's lines without an owner.
  CHECK_FALSE(split_check_results(a_plan + "\ngarbage\n" + a_case + "\n"));
  CHECK_FALSE(split_check_results(a_plan + "\n{\"shape\": \"1\", \"seed\": 1, \"ok\": true}\n"));
  CHECK_FALSE(split_check_results(R"({"plan": {"cases": 1}})" "\n"));
}

TEST_CASE("a check line cut off by a dying process is ignored", "[grader][lab_files]") {
  const auto f = parse_check_results(
      "{\"plan\": {\"exercise\": \"scale\", \"cases\": 3}}\n{\"shape\": \"1\", \"seed\": 1, \"ok\": true}\n{\"exerc",
      "scale");
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
  CHECK_THAT(parse_check_results("{\"ok\": true, \"shape\": \"1\", \"seed\": -1}\n", "a").error,
             ContainsSubstring("line 1: result without a shape and a non-negative integer seed"));
  CHECK_THAT(parse_check_results("{\"ok\": true, \"seed\": 1}\n", "a").error,
             ContainsSubstring("line 1: result without a shape and a non-negative integer seed"));
  const auto no_plan = parse_check_results("{\"ok\": true, \"shape\": \"1\", \"seed\": 1}\n", "a");
  CHECK(no_plan.error.empty());
  CHECK_FALSE(no_plan.has_plan);
  CHECK(no_plan.total == 0);
}

TEST_CASE("time results give the medians, noise, rates and ceiling", "[grader][lab_files]") {
  const auto f = parse_time_results(R"({"exercise": "scale", "unit": "GB/s", "correct": true, "message": "",
    "runners": {"student": {"median_ms": 17.52, "noise_pct": 0.3, "rate": 122.4},
                "reference": {"median_ms": 0.551, "noise_pct": 0.4, "rate": 3897.2, "event_median_ms": 0.549,
                              "host_gap_ms": 0.31},
                "baseline": {"median_ms": 17.55, "noise_pct": 0.2},
                "ceiling": {"median_ms": 0.5, "rate": 4200, "what": "device-to-device copy"}},
    "percent_of_ceiling": 2.9, "phases_s": {"generate": 2.5, "timing": 4.25, "bogus": "x"}})");
  CHECK(f.error.empty());
  REQUIRE(f.correct.has_value());
  CHECK(*f.correct);
  REQUIRE(f.timing.has_value());
  CHECK(f.timing->unit == "GB/s");
  CHECK(f.timing->student.median_ms == 17.52);
  CHECK(f.timing->student.noise_pct == 0.3);
  CHECK(f.timing->reference->rate == 3897.2);
  CHECK(f.timing->reference->event_median_ms == 0.549);
  CHECK(f.timing->reference->host_gap_ms == 0.31);
  CHECK_FALSE(f.timing->student.event_median_ms.has_value());
  CHECK_FALSE(f.timing->baseline->rate.has_value());
  REQUIRE(f.timing->ceiling.has_value());
  CHECK(f.timing->ceiling->rate == 4200);
  CHECK(f.timing->ceiling_what == "device-to-device copy");
  CHECK(f.timing->percent_of_ceiling == 2.9);
  // Where the run spent its seconds, kept for the grading-time benchmark; a non-number is dropped.
  CHECK(f.timing->phases_s == std::map<std::string, double>{{"generate", 2.5}, {"timing", 4.25}});
  // What the sanity gate on the reference measures: the reference's rate over the ceiling's.
  CHECK(grader::reference_percent_of_ceiling(*f.timing) == 100 * 3897.2 / 4200);
}

TEST_CASE("without both rates the reference's % of ceiling is unknown, which the gate refuses", "[grader][lab_files]") {
  grader::Timing t;
  t.reference = {0.551, 0.4, 3897.2};
  CHECK_FALSE(grader::reference_percent_of_ceiling(t).has_value());  // no ceiling
  t.ceiling = grader::RunnerTiming{0.5, 0.1, std::nullopt};
  CHECK_FALSE(grader::reference_percent_of_ceiling(t).has_value());  // a ceiling without a rate
  t.ceiling->rate = 4200;
  t.reference->rate.reset();
  CHECK_FALSE(grader::reference_percent_of_ceiling(t).has_value());  // a reference without a rate
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

  // Only a run asked to time the student alone may leave the reference and the baseline out.
  const char* student_alone = R"({"correct": true, "runners": {"student": {"median_ms": 471.2}}})";
  CHECK_THAT(parse_time_results(student_alone).timing_problem, ContainsSubstring("runners.reference is missing"));
  const auto alone = parse_time_results(student_alone, true);
  REQUIRE(alone.timing.has_value());
  CHECK(alone.timing->student.median_ms == 471.2);
  CHECK_FALSE(alone.timing->reference.has_value());
  CHECK_FALSE(alone.timing->baseline.has_value());
  CHECK_FALSE(grader::reference_percent_of_ceiling(*alone.timing).has_value());

  CHECK_THAT(parse_time_results("{\"correct\": \"yes\"}").error, ContainsSubstring("'correct' is not true or false"));
  CHECK_THAT(parse_time_results("not json").error, ContainsSubstring("not a JSON object"));
  CHECK_FALSE(parse_time_results("{}").correct.has_value());
}

TEST_CASE("seeds are parsed from a comma-separated list, duplicates dropped", "[grader][lab_files]") {
  CHECK(parse_seeds("11,22, 33") == std::vector<std::uint64_t>{11, 22, 33});
  CHECK(parse_seeds("5,5,6") == std::vector<std::uint64_t>{5, 6});
  CHECK(parse_seeds("18446744073709551615") == std::vector<std::uint64_t>{18446744073709551615u});
  for (const char* bad : {"", "1,,2", "x", "-1", "1.5", "18446744073709551616"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_seeds(bad), std::invalid_argument);
  }
}

TEST_CASE("check results that contradict the plan are rejected with the reason", "[grader][lab_files]") {
  const CheckPlan plan{"scale", "student", {7, 8}};
  const auto why = [&](const std::string& text, bool finished = true) {
    const auto f = parse_check_results(text, "scale");
    REQUIRE(f.error.empty());
    return contradiction(f, plan, finished);
  };
  // Two shapes at both seeds: what was asked for.
  CHECK(why(check_lines(4, {{"1", 7}, {"1", 8}, {"2", 7}, {"2", 8}})).empty());
  CHECK(why(check_lines(4, {{"1", 7}}), false).empty());  // a run that died early

  CHECK_THAT(why(check_lines(4, {{"1", 7}, {"1", 8}, {"2", 7}, {"2", 8}}, "reference")),
             ContainsSubstring("the plan is for implementation 'reference', not 'student'"));
  CHECK_THAT(why(check_lines(2, {{"1", 7}, {"1", 8}}) + check_lines(2, {{"2", 7}, {"2", 8}})),
             ContainsSubstring("2 plan lines for one exercise"));
  CHECK_THAT(why(check_lines(1, {{"1", 7}})),
             ContainsSubstring("a plan of 1 cases cannot be every shape at each of the 2 seeds asked for (7,8)"));
  CHECK_THAT(why(check_lines(4, {{"1", 1}, {"1", 2}, {"2", 1}, {"2", 2}})),
             ContainsSubstring("a result at seed 1, which was not asked for (seeds 7,8)"));
  CHECK_THAT(why(check_lines(4, {{"1", 7}, {"1", 7}}), false),
             ContainsSubstring("two results for shape 1 at the same seed"));
  CHECK_THAT(why(check_lines(4, {{"1", 7}, {"2", 7}, {"3", 7}, {"4", 7}})),
             ContainsSubstring("shape 1 was checked at 1 of the 2 seeds asked for (7,8)"));
}

TEST_CASE("time results that contradict the plan are rejected with the reason", "[grader][lab_files]") {
  TimePlan plan{"scale", "student", 42, std::nullopt, false};
  const auto why = [&](const std::string& fields) {
    const auto f = parse_time_results("{" + fields + R"(, "correct": true})");
    REQUIRE(f.error.empty());
    return contradiction(f, plan);
  };
  CHECK(why(R"("exercise": "scale", "impl": "student", "seed": 42, "shape": "1024")").empty());
  CHECK_THAT(why(R"("exercise": "dot", "impl": "student", "seed": 42, "shape": "1024")"),
             ContainsSubstring("the result names exercise 'dot', not 'scale'"));
  CHECK_THAT(why(R"("impl": "student", "seed": 42, "shape": "1024")"),
             ContainsSubstring("the result names exercise none, not 'scale'"));
  CHECK_THAT(why(R"("exercise": "scale", "impl": "reference", "seed": 42, "shape": "1024")"),
             ContainsSubstring("the result names implementation 'reference', not 'student'"));
  CHECK_THAT(why(R"("exercise": "scale", "impl": "student", "seed": 43, "shape": "1024")"),
             ContainsSubstring("the result names seed 43, not 42"));
  CHECK_THAT(why(R"("exercise": "scale", "impl": "student", "shape": "1024")"),
             ContainsSubstring("the result names seed none, not 42"));
  CHECK_THAT(why(R"("exercise": "scale", "impl": "student", "seed": 42)"),
             ContainsSubstring("the result names no shape"));
  // A salt seed the grader did not name is the binary's to draw; one it named must come back.
  CHECK(why(R"("exercise": "scale", "impl": "student", "seed": 42, "salt_seed": 7, "shape": "1024")").empty());
  plan.salt_seed = 7;
  CHECK(why(R"("exercise": "scale", "impl": "student", "seed": 42, "salt_seed": 7, "shape": "1024")").empty());
  CHECK_THAT(why(R"("exercise": "scale", "impl": "student", "seed": 42, "salt_seed": 8, "shape": "1024")"),
             ContainsSubstring("the result names salt seed 8, not 7"));
  CHECK_THAT(why(R"("exercise": "scale", "impl": "student", "seed": 42, "shape": "1024")"),
             ContainsSubstring("the result names salt seed none, not 7"));
}

TEST_CASE("the first hint among the failed cases is kept, and lines without one still parse", "[grader][lab_files]") {
  const auto f = parse_check_results(
      R"({"plan": {"exercise": "scale", "impl": "student", "cases": 3}}
{"exercise": "scale", "shape": "1", "seed": 1, "ok": false, "message": "1 of 1 elements differ"}
{"exercise": "scale", "shape": "33", "seed": 1, "ok": false, "message": "1 of 33", "hint": "hint: only the tail"}
{"exercise": "scale", "shape": "65", "seed": 1, "ok": false, "message": "1 of 65", "hint": "hint: later"}
)",
      "scale");
  CHECK(f.error.empty());
  CHECK(f.first_failure == "shape 1 seed 1: 1 of 1 elements differ");
  CHECK(f.hint == "hint: only the tail");
}
