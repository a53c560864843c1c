// End to end, a lab's first timed runs in one `labN time` (grader/src/grading/timed_runs.cpp, time_together()): the real
// `grade` against the fake lab, whose call log says which runs it made. Each exercise is graded as it would be
// alone; one that the lab-wide run did not time well (wrong, after a wrong one, in a run that hung, or with a result
// that contradicts the plan) is timed on its own, and that run decides.

#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using grader_test::exercise;
using grader_test::run_grade;
using grader_test::TempDir;

namespace {

std::vector<std::string> time_calls(const std::filesystem::path& log) { return grader_test::lab_calls(log, "time"); }

}  // namespace

TEST_CASE("a lab's exercises are timed in one run, and each is graded as if timed alone", "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto together = run_grade(dir, {"lab1"}, {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_STUDENT_MS", "3.3"}});
  REQUIRE(together.results.is_object());
  CHECK(time_calls(log) == std::vector<std::string>{"time copy,gemm student"});
  for (const char* name : {"copy", "gemm"}) {
    CAPTURE(name);
    const auto alone = run_grade(dir, {"lab1", "--exercise", name}, {{"FAKE_LAB_STUDENT_MS", "3.3"}});
    REQUIRE(alone.results.is_object());
    const auto& x = exercise(together.results, name);
    const auto& y = exercise(alone.results, name);
    CHECK(x.at("status") == "ok");
    for (const char* key : {"status", "score", "performance_points", "perf_fraction", "median_ms", "message"})
      CHECK(x.at(key) == y.at(key));
    CHECK(x.at("timed_runs") == 1);
    CHECK(x.at("timed_seed").is_number());
    CHECK(x.at("time_s").get<double>() > 0);
  }
}

TEST_CASE("an exercise wrong in the lab's timed run is timed alone, and so is every one after it",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  SECTION("the first is wrong: the run stops there, and both are timed alone") {
    const auto run = run_grade(dir, {"lab1"}, {{"FAKE_LAB_CALL_LOG", log.string()},
                                               {"FAKE_LAB_MODE", "wrong_after_timing"},
                                               {"FAKE_LAB_EXERCISE", "copy"}});
    REQUIRE(run.results.is_object());
    CHECK(time_calls(log) ==
          std::vector<std::string>{"time copy,gemm student", "time copy student", "time gemm student"});
    CHECK(exercise(run.results, "copy").at("status") == "wrong");
    CHECK_THAT(exercise(run.results, "copy").at("message").get<std::string>(),
               ContainsSubstring("every test passed, but the timed run was wrong: output became wrong"));
    CHECK(exercise(run.results, "gemm").at("status") == "ok");
    CHECK(exercise(run.results, "gemm").at("timed_runs") == 1);
  }
  SECTION("the second is wrong: the first keeps its result from the lab's run") {
    const auto run = run_grade(dir, {"lab1"}, {{"FAKE_LAB_CALL_LOG", log.string()},
                                               {"FAKE_LAB_MODE", "wrong_after_timing"},
                                               {"FAKE_LAB_EXERCISE", "gemm"}});
    REQUIRE(run.results.is_object());
    CHECK(time_calls(log) == std::vector<std::string>{"time copy,gemm student", "time gemm student"});
    CHECK(exercise(run.results, "copy").at("status") == "ok");
    CHECK(exercise(run.results, "gemm").at("status") == "wrong");
  }
}

TEST_CASE("a lab timed run that hangs or contradicts its plan decides nothing: the exercises are timed alone",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  SECTION("a hang in the second exercise: killed at the time limit, then each alone") {
    const auto run = run_grade(dir, {"lab1", "--time-timeout", "2"}, {{"FAKE_LAB_CALL_LOG", log.string()},
                                                                      {"FAKE_LAB_MODE", "hang_time"},
                                                                      {"FAKE_LAB_EXERCISE", "gemm"}});
    REQUIRE(run.results.is_object());
    CHECK(time_calls(log) ==
          std::vector<std::string>{"time copy,gemm student", "time copy student", "time gemm student"});
    CHECK(exercise(run.results, "copy").at("status") == "ok");
    CHECK(exercise(run.results, "gemm").at("status") == "timeout");
    CHECK_THAT(exercise(run.results, "gemm").at("message").get<std::string>(),
               ContainsSubstring("time hung: killed after 2 s"));
  }
  SECTION("a result naming another seed: that exercise alone, whose run then decides") {
    const auto run = run_grade(dir, {"lab1"}, {{"FAKE_LAB_CALL_LOG", log.string()},
                                               {"FAKE_LAB_MODE", "time_wrong_seed"},
                                               {"FAKE_LAB_EXERCISE", "copy"}});
    REQUIRE(run.results.is_object());
    CHECK(time_calls(log) == std::vector<std::string>{"time copy,gemm student", "time copy student"});
    CHECK(exercise(run.results, "copy").at("status") == "bad-output");
    CHECK_THAT(exercise(run.results, "copy").at("message").get<std::string>(),
               ContainsSubstring("time results contradict the plan: the result names seed"));
    CHECK(exercise(run.results, "gemm").at("status") == "ok");
  }
}

TEST_CASE("a replay with --timed-salt-seed times each exercise alone, as the replay of one run must",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto run = run_grade(dir, {"lab1", "--timed-seed", "9", "--timed-salt-seed", "11"},
                             {{"FAKE_LAB_CALL_LOG", log.string()}});
  REQUIRE(run.results.is_object());
  CHECK(time_calls(log) == std::vector<std::string>{"time copy student", "time gemm student"});
}
