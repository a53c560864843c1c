// End to end, a grade that knows its resolution (grader/src/grading/formula.cpp, timed_runs.cpp's finish()): the real `grade`
// against the fake lab, whose noise and metrics are set by the test. A run that leaves f unsure is timed again,
// sampling longer; a run whose scale its noise swamps gives no performance points and says why; an exercise whose
// manifest grades it by a metric earns its share of the reference's value.

#include <cmath>
#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using grader_test::exercise;
using grader_test::run_grade;
using grader_test::TempDir;

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a timed run that leaves f unresolved is run again sampling longer, and the last run grades",
          "[grader][e2e][resolution]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // The fake copy's window is 10 ms / 1 ms; 3.3 ms is halfway up its log scale. At 38% noise a sample, f's spread is
  // 0.077 at the fake's 12 samples, 0.059 at 20 and 0.042 at 40: two more runs (6 s and 12 s, 20 and 40 samples).
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"},
                             {{"FAKE_LAB_CALL_LOG", log.string()},
                              {"FAKE_LAB_NOISE_PCT", "38"},
                              {"FAKE_LAB_STUDENT_MS", "3.3"}});
  CAPTURE(run.process.out, run.process.err);
  const auto calls = grader_test::read_text(log);
  CAPTURE(calls);
  CHECK(count(calls, " time copy student") == 3);
  CHECK_THAT(calls, ContainsSubstring(" time copy student max-seconds=6 min-samples=20\n"));
  CHECK_THAT(calls, ContainsSubstring(" time copy student max-seconds=12 min-samples=40\n"));
  const auto& copy = exercise(run.results, "copy");
  CAPTURE(copy.dump());
  CHECK(copy.at("timed_runs") == 3);
  CHECK(copy.at("status") == "ok");
  CHECK(copy.at("perf_fraction_sd").get<double>() < 0.05);  // the last run's spread, not the first's
  CHECK_THAT(copy.at("perf_fraction").get<double>(), WithinAbs(std::log(10 / 3.3) / std::log(10 / 1.1), 1e-9));

  SECTION("a quiet run is timed once") {
    const TempDir quiet;
    const auto quiet_log = quiet.path / "calls.log";
    const auto once = run_grade(quiet, {"lab1", "--exercise", "copy"},
                                {{"FAKE_LAB_CALL_LOG", quiet_log.string()}, {"FAKE_LAB_STUDENT_MS", "3.3"}});
    CHECK(count(grader_test::read_text(quiet_log), " time copy student") == 1);
    CHECK(exercise(once.results, "copy").at("timed_runs") == 1);
  }
}

TEST_CASE("a run too noisy for its scale keeps its correctness points, gives no performance points and says why",
          "[grader][e2e][resolution]") {
  const TempDir dir;
  // 50% noise a sample against the copy's scale ln(10 / 1.1) = 2.2 < 5 x 0.5: this machine cannot rank a kernel.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"},
                             {{"FAKE_LAB_NOISE_PCT", "50"}, {"FAKE_LAB_STUDENT_MS", "1.0"}});
  CAPTURE(run.process.out, run.process.err);
  const auto& copy = exercise(run.results, "copy");
  CAPTURE(copy.dump());
  CHECK(copy.at("status") == "invalid-run");
  CHECK(copy.at("correctness_points") == 4);
  CHECK(copy.at("performance_points") == 0);  // not the 6 a student at the reference's time would draw
  CHECK_THAT(copy.at("performance_ungraded").get<std::string>(), ContainsSubstring("50.0% noise"));
  CHECK_THAT(copy.at("message").get<std::string>(),
             ContainsSubstring("cannot grade this exercise's performance"));
  CHECK(copy.at("timed_runs") == 1);  // sampling longer cannot narrow a sample's noise: no more runs
}

TEST_CASE("an exercise graded by a metric earns its share of the reference's value, whatever its time window",
          "[grader][e2e][resolution][metric]") {
  const TempDir dir;
  const auto manifest = dir.path / "labs" / "01_fake" / "manifest.json";
  grader_test::write_text(manifest, R"({"title": "Fake lab", "full_marks_at": 1.1, "exercises": [
      {"name": "copy", "correctness_points": 4, "performance_points": 6, "stub": "slow",
       "reference_percent_of_ceiling": 90, "graded_by": {"metric": "overlap", "full_marks_at": 0.8}},
      {"name": "gemm", "correctness_points": 5, "performance_points": 5, "stub": "incorrect"}]})");
  // The fake's overlap: (10 - t) / (10 - 0.9); the reference's (at 1 ms) 0.989; a student at 5.5 ms, 0.495.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--labs-dir", (dir.path / "labs").string()},
                             {{"FAKE_LAB_STUDENT_MS", "5.5"}});
  CAPTURE(run.process.out, run.process.err);
  const auto& copy = exercise(run.results, "copy");
  CAPTURE(copy.dump());
  CHECK(copy.at("status") == "ok");
  const double student = (10 - 5.5) / 9.1, reference = (10 - 1.0) / 9.1;
  CHECK_THAT(copy.at("perf_fraction").get<double>(), WithinAbs(student / (0.8 * reference), 1e-9));
  // By its times the same run would have earned ln(10 / 5.5) / ln(10 / 1.1) = 0.27, not 0.62.
  CHECK(copy.at("perf_fraction").get<double>() > 0.6);
  CHECK_THAT(copy.at("message").get<std::string>(), ContainsSubstring("overlap 0.49 against the reference's 0.99"));
  CHECK(copy.at("metric_errors").at("overlap_student").get<double>() > 0);
}

TEST_CASE("a timed run whose grade the referee's clock moved is timed again, and a run where it did not grades",
          "[grader][e2e][resolution]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // First run: the clock says 3.3 ms where the student's own events say 2.0 (a disturbed runner); the second agrees.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"},
                             {{"FAKE_LAB_CALL_LOG", log.string()},
                              {"FAKE_LAB_COUNTER_FILE", (dir.path / "counter").string()},
                              {"FAKE_LAB_STUDENT_MS", "3.3,3.3"},
                              {"FAKE_LAB_STUDENT_EVENT_MS", "2.0,3.3"}});
  CAPTURE(run.process.out, run.process.err);
  const auto calls = grader_test::read_text(log);
  CAPTURE(calls);
  CHECK(count(calls, " time copy student") == 2);
  const auto& copy = exercise(run.results, "copy");
  CAPTURE(copy.dump());
  CHECK(copy.at("timed_runs") == 2);
  CHECK(copy.at("host_charge") == 0);
  CHECK_THAT(copy.at("perf_fraction").get<double>(), WithinAbs(std::log(10 / 3.3) / std::log(10 / 1.1), 1e-9));
  CHECK_THAT(copy.at("message").get<std::string>(), !ContainsSubstring("referee's clock"));

  SECTION("within full marks the charge moves nothing: timed once") {
    const TempDir fast;
    const auto fast_log = fast.path / "calls.log";
    const auto once = run_grade(fast, {"lab1", "--exercise", "copy"},
                                {{"FAKE_LAB_CALL_LOG", fast_log.string()},
                                 {"FAKE_LAB_STUDENT_MS", "1.05"},
                                 {"FAKE_LAB_STUDENT_EVENT_MS", "0.9"}});
    CHECK(count(grader_test::read_text(fast_log), " time copy student") == 1);
    CHECK(exercise(once.results, "copy").at("performance_points") == 6);
  }
}

TEST_CASE("work hidden from the CUDA events is charged in every retime, and the message says what set the time",
          "[grader][e2e][resolution]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // Every run: events 1.0 ms (full marks by them), the referee's clock 3.3 ms.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"},
                             {{"FAKE_LAB_CALL_LOG", log.string()},
                              {"FAKE_LAB_STUDENT_MS", "3.3"},
                              {"FAKE_LAB_STUDENT_EVENT_MS", "1.0"}});
  CAPTURE(run.process.out, run.process.err);
  CHECK(count(grader_test::read_text(log), " time copy student") == 3);  // the first and kResolveRetimes more
  const auto& copy = exercise(run.results, "copy");
  CAPTURE(copy.dump());
  CHECK(copy.at("timed_runs") == 3);
  CHECK(copy.at("status") == "ok");
  const double f = std::log(10 / 3.3) / std::log(10 / 1.1);
  CHECK_THAT(copy.at("perf_fraction").get<double>(), WithinAbs(f, 1e-9));  // the clock's time grades, not the events'
  CHECK_THAT(copy.at("host_charge").get<double>(), WithinAbs(f - 1, 1e-9));
  CHECK_THAT(copy.at("message").get<std::string>(),
             ContainsSubstring("in the last of 3 timed runs the referee's clock, not the CUDA events, set the "
                               "times (the student's 3.30x its events', the reference's 1.00x), which moved the "
                               "performance fraction by -0.50"));

  SECTION("a reference charged by its host in every run: timed again too, and said") {
    const TempDir slow;
    const auto slow_log = slow.path / "calls.log";
    const auto charged = run_grade(slow, {"lab1", "--exercise", "copy"},
                                   {{"FAKE_LAB_CALL_LOG", slow_log.string()},
                                    {"FAKE_LAB_STUDENT_MS", "3.3"},
                                    {"FAKE_LAB_REFERENCE_CLOCK_OVER_EVENTS", "1.2"}});
    CHECK(count(grader_test::read_text(slow_log), " time copy student") == 3);
    const auto& x = exercise(charged.results, "copy");
    CAPTURE(x.dump());
    CHECK(x.at("host_charge").get<double>() > 0.02);
    CHECK_THAT(x.at("message").get<std::string>(), ContainsSubstring("the reference's 1.20x"));
  }
}
