// End to end, a lab's checks in one `labN check --exercise a,b` (grader/src/grading/lab_run.cpp, plan_checks() and
// read_checks()): the real `grade` against the fake lab, whose call log says which runs it made. Each exercise the
// lab's run checked whole is graded as its own check would grade it; one it did not (the one that hung or crashed it,
// those after, all of a run whose results cannot be split) is checked on its own, and that run decides. A lab whose
// manifest says `check_apart` makes a run each, at once.

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

TEST_CASE("a lab that checks its exercises apart makes a run each, and each is graded as if checked alone",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto labs = grader_test::fake_lab_with(dir.path, "check_apart", true);
  const auto mode = GENERATE(as<std::string>{}, "good", "wrong:gemm", "segfault:copy");
  CAPTURE(mode);
  const auto apart = run_grade(dir, {"lab1", "--seeds", "1,2", "--labs-dir", labs.string()},
                               {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_MODE", mode}});
  CAPTURE(apart.process.out, apart.process.err);
  REQUIRE(apart.results.is_object());
  CHECK_THAT(apart.process.err, ContainsSubstring("lab1 copy, gemm: check, a run each"));
  auto calls = grader_test::lab_calls(log, "check");
  std::sort(calls.begin(), calls.end());
  // copy's run crashed beside gemm's, as a crowded GPU could make it: once more alone.
  CHECK(calls == (mode == "segfault:copy"
                      ? std::vector<std::string>{"check copy student", "check copy student", "check gemm student"}
                      : std::vector<std::string>{"check copy student", "check gemm student"}));
  for (const char* name : {"copy", "gemm"}) {
    CAPTURE(name);
    const auto alone = run_grade(dir, {"lab1", "--seeds", "1,2", "--exercise", name}, {{"FAKE_LAB_MODE", mode}});
    REQUIRE(alone.results.is_object());
    const auto& x = exercise(apart.results, name);
    const auto& y = exercise(alone.results, name);
    for (const char* key : {"status", "tests_passed", "tests_total", "correctness_points", "seeds"})
      CHECK(x.at(key) == y.at(key));
    CHECK(x.at("check_s").get<double>() > 0);
  }
}

TEST_CASE("grading several labs, a lab checked apart runs its checks at once with the others' and times on its own",
          "[grader][e2e][together]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto args = grader_test::two_fake_labs(dir);
  // lab 2 checks apart; lab 1 as ever, its check run going on to time once every check run has ended (lab 2's two
  // among them: one hold too few and the grader fails, one too many and lab 1's turn never comes).
  grader_test::set_manifest_field(dir.path / "labs" / "02_fake" / "manifest.json", "check_apart", true);
  const auto run = run_grade(dir, args, {{"FAKE_LAB_CALL_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto calls = grader_test::lab_call_lines(log);
  CAPTURE(calls);
  const auto count = [&](const std::string& call) { return std::count(calls.begin(), calls.end(), call); };
  CHECK_THAT(run.process.err, ContainsSubstring("lab1 copy, gemm: check, then time, one run for all"));
  CHECK_THAT(run.process.err, ContainsSubstring("lab2 copy, gemm: check, a run each"));
  CHECK(count("lab2 check copy student") == 1);
  CHECK(count("lab2 check gemm student") == 1);
  CHECK(count("lab2 check copy,gemm student") == 0);
  CHECK(count("lab1 time copy,gemm student") == 1);  // its check run's timed part
  CHECK(count("lab2 time copy,gemm student") == 1);  // a timed run of its own, after every check
  const auto first_time = std::find_if(calls.begin(), calls.end(), [](auto& c) { return c.find(" time ") != c.npos; });
  const auto last_check =
      std::find_if(calls.rbegin(), calls.rend(), [](auto& c) { return c.find(" check ") != c.npos; });
  REQUIRE(first_time != calls.end());
  CHECK(last_check.base() <= first_time);
  for (const auto& lab : run.results.at("runs").at(0).at("labs"))
    for (const auto& x : lab.at("exercises")) CHECK(x.at("status") == "ok");
}
