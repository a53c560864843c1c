// The repeatability benchmark's verdict (grader/repeatability.hpp): each exercise's f over repeated gradings, held
// against the goals, and one GPU kind's middles against another's; and `grade repeatability` on a real results file.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/formula.hpp"
#include "grader/manifest.hpp"
#include "grader/repeatability.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using grader::RepeatabilityGoal;
using grader::RepeatedFraction;
using grader_test::run_grade;
using grader_test::TempDir;
using nlohmann::json;

namespace {

// A results file of `impl` graded once a value of `fs` (f of lab 1's `copy`; a negative value: not graded).
json results_of(const std::string& impl, const std::vector<double>& fs) {
  json runs = json::array();
  for (std::size_t i = 0; i < fs.size(); ++i) {
    const json copy = {{"name", "copy"}, {"performance_max", 6}, {"status", fs[i] < 0 ? "invalid-run" : "ok"},
                       {"perf_fraction", fs[i] < 0 ? 0.0 : fs[i]}};
    const json tests_only = {{"name", "row_sums"}, {"performance_max", 0}, {"status", "ok"}, {"perf_fraction", 0.0}};
    runs.push_back({{"impl", impl}, {"repeat", i + 1}, {"labs", {{{"lab", 1}, {"exercises", {copy, tests_only}}}}}});
  }
  return {{"schema", 1}, {"runs", runs}};
}

const RepeatabilityGoal& only_goal(const std::vector<RepeatabilityGoal>& goals) {
  REQUIRE(goals.size() == 1);
  return goals.front();
}

bool met(const std::string& impl, const std::vector<double>& fs) {
  const auto goals = grader::repeatability_goals(grader::repeated_fractions({results_of(impl, fs)}));
  return only_goal(goals).met;
}

}  // namespace

TEST_CASE("repeated fractions gather each exercise's f over the repeats of several files", "[grader][repeatability]") {
  const auto r = grader::repeated_fractions({results_of("middle", {0.5, 0.55}), results_of("middle", {0.6, -1}),
                                            results_of("baseline", {0.01})});
  REQUIRE(r.size() == 2);  // row_sums, graded by its tests only, has no f
  CHECK(r[0].impl == "middle");
  CHECK(r[0].lab == 1);
  CHECK(r[0].exercise == "copy");
  CHECK(r[0].fractions == std::vector<double>{0.5, 0.55, 0.6});
  CHECK(r[0].not_graded == 1);
  CHECK(r[1].impl == "baseline");
  CHECK(r[1].fractions == std::vector<double>{0.01});

  CHECK_THROWS_WITH(grader::repeated_fractions({json{{"schema", 1}}}), ContainsSubstring("no runs"));
  CHECK_THROWS(grader::repeated_fractions({json::array()}));
}

TEST_CASE("each implementation's goal: the baseline near 0, the reference at 1, the middle held still",
          "[grader][repeatability]") {
  CHECK(met("baseline", {0.0, 0.05, 0.027}));
  CHECK_FALSE(met("baseline", {0.0, 0.051}));
  CHECK_FALSE(met("baseline", {0.0, -1}));  // a repeat not graded says nothing of its f
  CHECK(met("reference", {1.0, 1.0}));
  CHECK_FALSE(met("reference", {1.0, 0.999}));
  CHECK(met("middle", {0.525, 0.609, 0.55}));
  CHECK_FALSE(met("middle", {0.50, 0.61}));
  CHECK_FALSE(met("middle", {-1, -1}));
  CHECK(grader::repeatability_goals(grader::repeated_fractions({results_of("student", {0.2, 0.9})})).empty());

  const auto goals = grader::repeatability_goals(grader::repeated_fractions({results_of("middle", {0.5, 0.61})}));
  const auto& goal = only_goal(goals);
  CHECK(goal.goal == "spread of f <= 0.10");
  CHECK(goal.found == "f 0.500 to 0.610 (spread 0.110) over 2 repeats");
}

TEST_CASE("two GPU kinds' middles: each median within 0.10 of the other's", "[grader][repeatability]") {
  const auto here = grader::repeated_fractions({results_of("middle", {0.50, 0.52, 0.60})});
  const auto kinds = [&](const std::vector<double>& there_fs) {
    const auto there = grader::repeated_fractions({results_of("middle", there_fs)});
    const auto goals = grader::repeatability_goals(here, &there);
    REQUIRE(goals.size() == 2);  // its own spread, then against the other kind
    return goals[1];
  };
  const auto near = kinds({0.60, 0.62, 0.70});
  CHECK(near.met);  // medians 0.52 and 0.62
  CHECK(near.found == "median 0.520 here, 0.620 there (0.100 apart)");
  CHECK_FALSE(kinds({0.63, 0.70, 0.64}).met);  // 0.64 against 0.52
  CHECK_FALSE(kinds({-1, -1}).met);

  // A middle that only one kind graded misses the comparison, whichever it is.
  const auto baseline_only = grader::repeated_fractions({results_of("baseline", {0.0})});
  const auto one_way = grader::repeatability_goals(here, &baseline_only);
  REQUIRE(one_way.size() == 2);
  CHECK_FALSE(one_way[1].met);
  CHECK(one_way[1].found == "not in the other kind's results");
  const auto other_way = grader::repeatability_goals(baseline_only, &here);
  REQUIRE(other_way.size() == 2);
  CHECK(other_way[0].met);
  CHECK_FALSE(other_way[1].met);
  CHECK(other_way[1].found == "only in the other kind's results");
}

TEST_CASE("grade repeatability reads grade's own results files and exits 4 on a goal missed",
          "[grader][repeatability][e2e]") {
  const TempDir dir;
  // The fake lab's baseline in the student slot, timed at full marks then at the log midpoint: f 1 and 0.5.
  const auto graded = run_grade(dir, {"lab1", "--exercise", "copy", "--impl", "baseline", "--repeat", "2"},
                                {{"FAKE_LAB_STUDENT_MS", "1.0,3.3166247903554"},
                                 {"FAKE_LAB_COUNTER_FILE", (dir.path / "counter").string()}});
  CAPTURE(graded.process.out, graded.process.err);
  REQUIRE(graded.process.exit_code == 0);
  const auto file = (dir.path / "results.json").string();
  const auto missed = run_grade(dir, {"repeatability", file}, {}, true);
  CAPTURE(missed.process.out, missed.process.err);
  CHECK(missed.process.exit_code == 4);
  CHECK_THAT(missed.process.out, ContainsSubstring("lab1 copy (baseline): f <= 0.05 in every repeat: f 0.500 to "
                                                   "1.000 (spread 0.500) over 2 repeats: MISSED\n"));
  CHECK_THAT(missed.process.out, ContainsSubstring("repeatability goals: 0 of 1 met\n"));

  grader_test::write_text(dir.path / "broken.json", "{\"runs\": [{\"impl\": 3}]}");
  const auto unreadable = run_grade(dir, {"repeatability", (dir.path / "broken.json").string()}, {}, true);
  CHECK(unreadable.process.exit_code == 1);
  CHECK_THAT(unreadable.process.err, ContainsSubstring("broken.json: a run: no impl"));
}

namespace {

// f of lab `lab`'s exercise `name` in every repeat of a repeatability results file, scored again from its recorded
// medians by today's manifest: what the same times would earn under the scale that ships.
std::vector<double> rescored(const std::string& file, int lab, const std::string& name) {
  std::ifstream in(std::string(COURSE_SOURCE_DIR) + "/results/" + file);
  REQUIRE(in);
  const json doc = json::parse(in);
  const auto manifest = grader::load_manifest(std::string(COURSE_LABS_DIR) + "/01_coalescing/manifest.json");
  const auto spec = std::find_if(manifest.exercises.begin(), manifest.exercises.end(),
                                 [&](const grader::ExerciseSpec& e) { return e.name == name; });
  REQUIRE(spec != manifest.exercises.end());
  std::vector<double> fs;
  for (const json& run : doc.at("runs"))
    for (const json& l : run.at("labs"))
      for (const json& x : l.at("exercises"))
        if (l.at("lab") == lab && x.at("name") == name) {
          grader::ScoreInputs s;
          s.performance_points = spec->performance_points;
          s.tests_passed = s.tests_total = 1;
          s.timed_run_correct = true;
          s.student_ms = x.at("median_ms").at("student");
          s.reference_ms = x.at("median_ms").at("reference");
          s.baseline_ms = x.at("median_ms").at("baseline");
          s.full_marks_at = manifest.full_marks_at;
          s.zero_at_most = spec->zero_at_most;
          s.zero_margin = spec->zero_margin;
          fs.push_back(grader::score_exercise(s).perf_fraction);
        }
  REQUIRE(!fs.empty());
  return fs;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

TEST_CASE("lab 01's column_sums grades one kernel alike on an H100 and an H200, and its stub at zero on both",
          "[grader][repeatability]") {
  // The known middle runs at the same share of the reference's speed on both kinds, while the stub, whose strided
  // reads did not get faster with the memory, sits further from the reference on the H200: with the zero at the
  // baseline, the middle's median f was 0.517 on the H100 and 0.636 on the H200 (the H200 run's
  // repeatability-goals.txt). The manifest's zero_at_most ties the zero to the reference instead.
  const double h100 = median_of(rescored("2026-11-27-h100-a4961cc/repeatability-middle.json", 1, "column_sums"));
  const double h200 = median_of(rescored("2026-11-27-h200-d3f78d9/repeatability-middle.json", 1, "column_sums"));
  CAPTURE(h100, h200);
  CHECK(h100 > 0.2);
  CHECK(h100 < 0.8);
  CHECK(std::abs(h100 - h200) <= grader::kKindsApartAtMost);
  for (const std::string file : {"2026-11-27-h100-a4961cc/repeatability-baseline.json",
                                 "2026-11-27-h200-d3f78d9/repeatability-baseline.json"})
    for (const double f : rescored(file, 1, "column_sums")) {
      CAPTURE(file);
      CHECK(f <= grader::kBaselineFractionAtMost);
    }
}
