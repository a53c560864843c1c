// The console table and the JSON results file, checked by parsing the JSON back.

#include <chrono>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/report.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using namespace grader;

namespace {

// lab1 with `scale` (timed, 4/10) and `saxpy` (crashed, 2/10).
LabResult sample_lab() {
  LabResult lab;
  lab.number = 1;
  lab.id = "01_coalescing";
  lab.title = "Memory coalescing";
  lab.weight = 2;
  lab.check_timeout_s = 120;
  lab.time_timeout_s = 300;

  ExerciseResult scale;
  scale.name = "scale";
  scale.tests_passed = scale.tests_total = 27;
  scale.correctness_max = 4;
  scale.performance_max = 6;
  scale.score = {4, 0.001, 0.006, 4.006};
  scale.message = "27/27 tests passed";
  Timing t;
  t.unit = "GB/s";
  t.student = {17.52, 0.3, 122.4};
  t.reference = {0.551, 0.4, 3897.2, 0.549, 0.31};
  t.baseline = {17.55, 0.2, 122.3};
  t.ceiling = RunnerTiming{0.5, 0.1, 4200};
  t.ceiling_what = "device-to-device copy";
  t.percent_of_ceiling = 2.9;
  scale.timing = t;

  ExerciseResult saxpy;
  saxpy.name = "saxpy";
  saxpy.status = Status::kCrash;
  saxpy.message = "check crashed: killed by SIGSEGV (3 of 6 tests passed)";
  saxpy.tests_passed = 3;
  saxpy.tests_total = 6;
  saxpy.correctness_max = 4;
  saxpy.performance_max = 6;
  saxpy.score = {2, 0, 0, 2};

  lab.exercises = {scale, saxpy};
  return lab;
}

}  // namespace

TEST_CASE("the results JSON holds every field and parses back", "[grader][report]") {
  Report report;
  report.date = iso8601_utc(std::chrono::system_clock::time_point{});
  report.commit = "abc1234";
  report.machine = {{"gpu", "NVIDIA H100"}};
  report.check_timeout_s = 2;
  report.runs.push_back({"student", 1, {sample_lab()}});

  const auto j = nlohmann::json::parse(to_json(report).dump());
  CHECK(j["schema"] == 1);
  CHECK(j["date"] == "1970-01-01T00:00:00Z");
  CHECK(j["commit"] == "abc1234");
  CHECK(j["machine"]["gpu"] == "NVIDIA H100");
  CHECK(j["grader"]["check_timeout_s"] == 2.0);
  CHECK(j["grader"]["time_timeout_s"].is_null());
  CHECK_FALSE(j.contains("self_check"));
  CHECK_FALSE(j.contains("repeat_spread"));
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0]["impl"] == "student");
  CHECK(j["runs"][0]["repeat"] == 1);
  const auto& lab = j["runs"][0]["labs"][0];
  CHECK(lab["lab"] == 1);
  CHECK(lab["id"] == "01_coalescing");
  CHECK(lab["title"] == "Memory coalescing");
  CHECK_THAT(lab["score"].get<double>(), WithinAbs(6.006, 1e-12));
  CHECK(lab["max_score"] == 20.0);
  CHECK(lab["weight"] == 2.0);

  const auto& scale = lab["exercises"][0];
  CHECK(scale["name"] == "scale");
  CHECK(scale["status"] == "ok");
  CHECK(scale["score"] == 4.006);
  CHECK(scale["max_score"] == 10.0);
  CHECK(scale["correctness_points"] == 4.0);
  CHECK(scale["performance_points"] == 0.006);
  CHECK(scale["perf_fraction"] == 0.001);
  CHECK(scale["tests_passed"] == 27);
  CHECK(scale["tests_total"] == 27);
  CHECK(scale["unit"] == "GB/s");
  CHECK(scale["median_ms"]["student"] == 17.52);
  CHECK(scale["median_ms"]["reference"] == 0.551);
  CHECK(scale["median_ms"]["baseline"] == 17.55);
  CHECK(scale["median_ms"]["ceiling"] == 0.5);
  CHECK(scale["noise_pct"]["reference"] == 0.4);
  // The runner's own event median and its host gap: what tells a slow kernel from a slow runner.
  CHECK(scale["event_median_ms"]["reference"] == 0.549);
  CHECK(scale["host_gap_ms"]["reference"] == 0.31);
  CHECK(scale["event_median_ms"]["baseline"].is_null());
  CHECK(scale["rate"] == 122.4);
  CHECK(scale["ceiling_rate"] == 4200.0);
  CHECK(scale["ceiling_what"] == "device-to-device copy");
  CHECK(scale["percent_of_ceiling"] == 2.9);
  CHECK_THAT(scale["reference_percent_of_ceiling"].get<double>(), WithinAbs(100 * 3897.2 / 4200, 1e-9));

  const auto& saxpy = lab["exercises"][1];
  CHECK(saxpy["status"] == "crash");
  CHECK_THAT(saxpy["message"].get<std::string>(), ContainsSubstring("SIGSEGV"));
  CHECK(saxpy["score"] == 2.0);
  for (const char* key :
       {"unit", "rate", "ceiling_rate", "ceiling_what", "percent_of_ceiling", "reference_percent_of_ceiling"}) {
    CAPTURE(key);
    CHECK(saxpy[key].is_null());
  }
  for (const char* runner : {"student", "reference", "baseline", "ceiling"}) {
    CAPTURE(runner);
    CHECK(saxpy["median_ms"][runner].is_null());
    CHECK(saxpy["noise_pct"][runner].is_null());
    CHECK(saxpy["host_gap_ms"][runner].is_null());
  }
}

TEST_CASE("the console table shows a row per exercise, the total and each problem", "[grader][report]") {
  const auto table = format_lab_table(sample_lab(), "(impl: student)");
  CAPTURE(table);
  CHECK(table.rfind("lab1 Memory coalescing   (impl: student)\n", 0) == 0);
  CHECK_THAT(table, ContainsSubstring("exercise  tests    student ms      reference ms    baseline ms     GB/s"));
  CHECK_THAT(table, ContainsSubstring("scale     27/27    17.52 ±0.3%     0.551 ±0.4%     17.55 ±0.2%     122.4     "
                                      "2.9%    4.0/10\n"));
  CHECK_THAT(table, ContainsSubstring("saxpy     3/6      -               -               -               -         "
                                      "-       2.0/10\n"));
  CHECK_THAT(table, ContainsSubstring("6.0/20 (30.0%)\n"));
  CHECK_THAT(table, ContainsSubstring("  saxpy: crash: check crashed: killed by SIGSEGV (3 of 6 tests passed)\n"));
  CHECK_THAT(table, !ContainsSubstring("scale: ok"));
}

TEST_CASE("a table mixing units names the unit in each cell", "[grader][report]") {
  auto lab = sample_lab();
  lab.exercises[1].timing = lab.exercises[0].timing;
  lab.exercises[1].timing->unit = "GFLOP/s";
  const auto table = format_lab_table(lab, "");
  CAPTURE(table);
  CHECK_THAT(table, ContainsSubstring(" rate "));
  CHECK_THAT(table, ContainsSubstring("122.4 GB/s"));
  CHECK_THAT(table, ContainsSubstring("122.4 GFLOP/s"));
}

TEST_CASE("a lab that is not built says how to build it", "[grader][report]") {
  auto lab = sample_lab();
  lab.built = false;
  lab.message = "lab1 is not built: run `make lab1` in the build directory";
  for (auto& x : lab.exercises) {
    x.status = Status::kNoBinary;
    x.timing.reset();
    x.score = {};
  }
  const auto table = format_lab_table(lab, "(impl: student)");
  CAPTURE(table);
  CHECK_THAT(table, ContainsSubstring("0.0/20 (0.0%)"));
  CHECK_THAT(table, ContainsSubstring("  lab1 is not built: run `make lab1` in the build directory\n"));
  CHECK(to_json(lab)["exercises"][0]["status"] == "no-binary");
}

TEST_CASE("the weighted total weighs each lab's percentage", "[grader][report]") {
  auto a = sample_lab();  // 6.006 of 20, weight 2
  auto b = sample_lab();
  b.weight = 1;
  b.exercises[1].score = {4, 1, 6, 10};  // 14.006 of 20
  CHECK_THAT(weighted_percent({a, b}), WithinAbs(100 * (2 * 6.006 / 20 + 14.006 / 20) / 3, 1e-9));
  b.weight = 0;
  CHECK_THAT(weighted_percent({a, b}), WithinAbs(100 * 6.006 / 20, 1e-9));
  CHECK(weighted_percent({}) == 0);
}

TEST_CASE("the repeat spread is the largest score difference in percent of the maximum", "[grader][report]") {
  auto first = sample_lab();
  auto second = sample_lab();
  second.exercises[0].score.total = 7.006;  // lab score 9.006 instead of 6.006
  const std::vector<RunRecord> runs = {{"student", 1, {first}}, {"student", 2, {second}}, {"student", 3, {first}}};
  const auto spreads = repeat_spreads(runs);
  REQUIRE(spreads.size() == 1);
  CHECK(spreads[0].lab == 1);
  CHECK(spreads[0].impl == "student");
  CHECK_THAT(spreads[0].lowest, WithinAbs(6.006, 1e-12));
  CHECK_THAT(spreads[0].highest, WithinAbs(9.006, 1e-12));
  CHECK_THAT(spreads[0].percent, WithinAbs(15.0, 1e-9));
}

TEST_CASE("durations print with about four significant digits", "[grader][report]") {
  CHECK(format_ms(17.5249) == "17.52");
  CHECK(format_ms(0.551) == "0.551");
  CHECK(format_ms(0.0123) == "0.0123");
  CHECK(format_ms(1.5) == "1.500");
  CHECK(format_ms(123.45) == "123.5");
  CHECK(format_ms(1234.4) == "1234");
}

TEST_CASE("a failed exercise's hint shows under its failure line and in the JSON", "[grader][report]") {
  auto lab = sample_lab();
  auto& saxpy = lab.exercises.at(1);
  saxpy.status = Status::kWrong;
  saxpy.message = "3 of 6 tests failed; first: shape 33 seed 1: ...";
  saxpy.hint = "hint: only elements past the last full block of 32 are wrong";
  const auto table = format_lab_table(lab, "(impl: student)");
  CHECK_THAT(table, ContainsSubstring("  saxpy: wrong: 3 of 6 tests failed; first: shape 33 seed 1: ...\n"
                                      "    hint: only elements past the last full block of 32 are wrong\n"));
  CHECK(to_json(lab).at("exercises").at(1).at("hint") == saxpy.hint);
  CHECK(to_json(lab).at("exercises").at(0).at("hint").is_null());
}
