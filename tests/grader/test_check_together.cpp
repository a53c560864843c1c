// End to end, a lab's checks in one `labN check --exercise a,b` (grader/src/grading/lab_run.cpp, plan_checks() and
// finish_checks()): the real `grade` against the fake lab, whose call log says which runs it made. Each exercise the
// lab's run checked whole is graded as its own check would grade it; one it did not (the one that hung or crashed it,
// those after, all of a run whose results cannot be split) is checked on its own, and that run decides.

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using grader_test::exercise;
using grader_test::run_grade;
using grader_test::TempDir;

namespace {

// The `check` lines of the call log: the first, then the others sorted (runs made at once log in any order).
std::vector<std::string> check_calls(const std::filesystem::path& log) {
  auto calls = grader_test::lab_calls(log, "check");
  if (!calls.empty()) std::sort(calls.begin() + 1, calls.end());
  return calls;
}

}  // namespace

TEST_CASE("a lab's exercises are checked in one run, and each is graded as if checked alone",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto mode = GENERATE(as<std::string>{}, "good", "wrong:gemm", "wrong:copy");
  CAPTURE(mode);
  const auto together = run_grade(dir, {"lab1", "--seeds", "1,2"},
                                  {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_MODE", mode}});
  CAPTURE(together.process.out, together.process.err);
  REQUIRE(together.results.is_object());
  CHECK(check_calls(log) == std::vector<std::string>{"check copy,gemm student"});
  for (const char* name : {"copy", "gemm"}) {
    CAPTURE(name);
    const auto alone = run_grade(dir, {"lab1", "--seeds", "1,2", "--exercise", name}, {{"FAKE_LAB_MODE", mode}});
    REQUIRE(alone.results.is_object());
    const auto& x = exercise(together.results, name);
    const auto& y = exercise(alone.results, name);
    for (const char* key : {"status", "tests_passed", "tests_total", "correctness_points", "seeds", "hint"})
      CHECK(x.at(key) == y.at(key));
    // A passing exercise's message ends in its timing, which the two runs measure apart: its tests part must match.
    const auto message = [&](const nlohmann::json& r) {
      const auto text = r.at("message").get<std::string>();
      return r.at("status") == "ok" ? text.substr(0, text.find(';')) : text;
    };
    CHECK(message(x) == message(y));
    CHECK(x.at("check_s").get<double>() > 0);
  }
  CHECK(exercise(together.results, "gemm").at("status") == (mode == "wrong:gemm" ? "wrong" : "ok"));
}

TEST_CASE("an exercise that hangs the lab's check run is checked on its own; the ones checked whole keep the "
          "run's verdict",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto run = run_grade(dir, {"lab1", "--seeds", "1,2", "--check-timeout", "2"},
                             {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_MODE", "hang_check:gemm"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  CHECK(check_calls(log) == std::vector<std::string>{"check copy,gemm student", "check gemm student"});
  CHECK(exercise(run.results, "copy").at("status") == "ok");
  CHECK(exercise(run.results, "gemm").at("status") == "timeout");
  CHECK_THAT(exercise(run.results, "gemm").at("message").get<std::string>(),
             ContainsSubstring("check hung: killed after 2 s (1 of 4 tests passed)"));
}

TEST_CASE("an exercise that crashes the lab's check run, and every one after it, is checked on its own",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto run = run_grade(dir, {"lab1", "--seeds", "1,2"},
                             {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_MODE", "segfault:copy"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  // copy crashed beside gemm's run, as a crowded GPU could make it: once more alone, as any check that crashes in a
  // crowd.
  CHECK(check_calls(log) == std::vector<std::string>{"check copy,gemm student", "check copy student",
                                                     "check copy student", "check gemm student"});
  CHECK(exercise(run.results, "copy").at("status") == "crash");
  CHECK_THAT(exercise(run.results, "copy").at("message").get<std::string>(),
             ContainsSubstring("check crashed: killed by SIGSEGV (3 of 6 tests passed)"));
  CHECK(exercise(run.results, "gemm").at("status") == "ok");
}

TEST_CASE("a lab's check results that cannot be split by exercise are checked one exercise at a time",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // gemm's turn writes garbage where its plan line goes: the run's lines no longer say whose they are.
  const auto run = run_grade(dir, {"lab1", "--seeds", "1,2"},
                             {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_MODE", "garbage:gemm"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  CHECK(check_calls(log) == std::vector<std::string>{"check copy,gemm student", "check copy student",
                                                     "check gemm student", "check gemm student"});  // gemm again, alone
  CHECK(exercise(run.results, "copy").at("status") == "ok");
  CHECK(exercise(run.results, "gemm").at("status") == "bad-output");
  CHECK_THAT(exercise(run.results, "gemm").at("message").get<std::string>(),
             ContainsSubstring("check results unreadable: line 1 is not a JSON object"));
}

TEST_CASE("a lab's check run is read whole when its exercises' reports together outgrow one run's limit",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // 200 seeds of 19 digits: copy's 600 lines (about 50 KB) and gemm's 400 fit one run's 64 KiB each, not together (as
  // lab 03's four exercises of 216 cases did not).
  std::string seeds;
  for (int i = 0; i < 200; ++i) seeds += (seeds.empty() ? "" : ",") + std::to_string(1'000'000'000'000'000'000ULL + i);
  const auto run = run_grade(dir, {"lab1", "--seeds", seeds}, {{"FAKE_LAB_CALL_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  CHECK(check_calls(log) == std::vector<std::string>{"check copy,gemm student"});
  for (const char* name : {"copy", "gemm"}) {
    CAPTURE(name);
    CHECK(exercise(run.results, name).at("status") == "ok");
    CHECK(exercise(run.results, name).at("tests_total") == (name == std::string("copy") ? 600 : 400));
  }
}
