// End to end: the real `grade` executable grading the fake lab binary (tests/fakes), which misbehaves on demand.
// Every failure mode must give the right status and a score, and the grader itself must exit 0 and never crash.

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/sources_hash.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using grader_test::exercise;
using grader_test::run_grade;
using grader_test::TempDir;
using grader_test::two_fake_labs;

namespace {

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

double number(const nlohmann::json& j) { return j.get<double>(); }

}  // namespace

TEST_CASE("grading a well-behaved lab gives full marks and complete results", "[grader][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--commit", "c0ffee0"});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  CHECK_THAT(run.process.out, ContainsSubstring("lab1 Fake lab   (impl: student)"));
  CHECK_THAT(run.process.out, ContainsSubstring("20.0/20 (100.0%)"));
  CHECK_THAT(run.process.out, ContainsSubstring("results: " + (dir.path / "results.json").string()));

  const auto& j = run.results;
  REQUIRE(j.is_object());
  CHECK(j["schema"] == 1);
  CHECK(j["commit"] == "c0ffee0");
  CHECK(j["machine"]["gpu"] == "Fake GPU 80GB");
  CHECK(j["machine"]["sms"] == 132);
  CHECK(j["grader"]["check_timeout_s"].is_null());
  CHECK(j["date"].get<std::string>().size() == 20);
  const auto& lab = j["runs"][0]["labs"][0];
  CHECK(lab["lab"] == 1);
  CHECK(lab["id"] == "01_fake");
  CHECK(lab["title"] == "Fake lab");
  CHECK(lab["check_timeout_s"] == 30.0);
  CHECK(number(lab["score"]) == 20.0);
  CHECK(number(lab["max_score"]) == 20.0);

  const auto copy = exercise(j, "copy");
  CHECK(copy["status"] == "ok");
  CHECK(copy["tests_passed"] == 9);  // 3 shapes at 3 fresh seeds
  CHECK(copy["tests_total"] == 9);
  CHECK(number(copy["score"]) == 10.0);
  CHECK(number(copy["perf_fraction"]) == 1.0);
  CHECK(copy["unit"] == "GB/s");
  CHECK_THAT(number(copy["median_ms"]["student"]), WithinAbs(1.02, 1e-12));
  CHECK(number(copy["median_ms"]["reference"]) == 1.0);
  CHECK(number(copy["median_ms"]["baseline"]) == 10.0);
  CHECK(number(copy["median_ms"]["ceiling"]) == 0.9);
  CHECK(number(copy["noise_pct"]["student"]) == 0.3);
  CHECK_THAT(number(copy["rate"]), WithinAbs(2.0 * 4 * 268435456 / 1.02e-3 / 1e9, 1e-6));
  CHECK(copy["ceiling_what"] == "device-to-device copy");
  CHECK_THAT(number(copy["percent_of_ceiling"]), WithinAbs(90 / 1.02, 1e-9));
  CHECK_THAT(number(copy["reference_percent_of_ceiling"]), WithinAbs(90, 1e-9));  // as the manifest records: graded
  const auto gemm = exercise(j, "gemm");
  CHECK(gemm["status"] == "ok");
  CHECK(gemm["tests_total"] == 6);
  CHECK(gemm["unit"] == "GFLOP/s");
}

TEST_CASE("every failure mode of a lab is reported with its status and a score", "[grader][e2e]") {
  struct Case {
    const char* mode;
    const char* status;
    int passed, total;
    double score;  // of copy's 4 correctness + 6 performance points
    const char* message;
  };
  const auto c = GENERATE(values<Case>({
      {"wrong", "wrong", 5, 6, 4.0 * 5 / 6, "1 of 6 tests failed; first: shape 1 seed 2: 3 of 1000 elements differ"},
      {"hang_check", "timeout", 1, 6, 4.0 / 6, "check hung: killed after 2 s (1 of 6 tests passed)"},
      {"hang_time", "timeout", 6, 6, 4.0, "time hung: killed after 2 s"},
      {"segfault", "crash", 3, 6, 2.0, "check crashed: killed by SIGSEGV (3 of 6 tests passed)"},
      {"abort", "crash", 1, 6, 4.0 / 6, "killed by SIGABRT (1 of 6 tests passed); last stderr: terminate called"},
      {"garbage", "bad-output", 0, 0, 0.0, "check results unreadable: line 1 is not a JSON object"},
      {"exit_early", "bad-output", 0, 0, 0.0, "check exited 0 but sent no results (nothing came through /dev/fd/3)"},
      {"cuda_error", "cuda-error", 2, 6, 4.0 * 2 / 6,
       "check stopped by a CUDA error (2 of 6 tests passed): CUDA error: an illegal memory access was encountered "
       "(cudaErrorIllegalAddress) at copy.cu:42"},
      {"missing", "missing", 0, 0, 0.0, "the student implementation has no launcher for copy (exit 113)"},
      {"slow_student", "ok", 6, 6, 4.0, "6/6 tests passed; 10.00x the reference time"},
      {"wrong_after_timing", "wrong", 6, 6, 4.0,
       "every test passed, but the timed run was wrong: output became wrong after the timed runs"},
      // The reference at 5x its time: 18% of its ceiling where the manifest records 90%. The student, at 1.02x the
      // usual reference, would look five times faster than it: the run is not graded.
      {"slow_reference", "invalid-run", 6, 6, 4.0,
       "the reference ran at 18.0% of its ceiling where it usually reaches 90%: this run is not graded (a busy or "
       "throttled GPU?)"},
  }));
  CAPTURE(c.mode);
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--check-timeout", "2", "--time-timeout", "2", "--seeds", "1,2"},
                             {{"FAKE_LAB_MODE", c.mode}, {"FAKE_LAB_EXERCISE", "copy"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.signal == 0);
  REQUIRE(run.process.exit_code == 0);
  REQUIRE(run.results.is_object());

  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == c.status);
  CHECK(copy["tests_passed"] == c.passed);
  CHECK(copy["tests_total"] == c.total);
  CHECK_THAT(number(copy["score"]), WithinAbs(c.score, 1e-9));
  CHECK(number(copy["perf_fraction"]) == 0.0);
  CHECK(number(copy["max_score"]) == 10.0);
  CHECK_THAT(copy["message"].get<std::string>(), ContainsSubstring(c.message));
  // The time the lab binary ran is recorded, killed runs included: a hung `time` ran until its 2 s limit.
  if (std::string(c.mode) == "hang_time") CHECK((number(copy["wall_s"]) >= 2.0 && number(copy["wall_s"]) < 10.0));
  CHECK(number(copy["wall_s"]) > 0);
  if (std::string(c.status) != "ok") {
    CHECK_THAT(run.process.out, ContainsSubstring(std::string("  copy: ") + c.status + ": "));
    CHECK_THAT(run.process.out, ContainsSubstring(c.message));
  }
  // The misbehaviour stays in its exercise.
  const auto gemm = exercise(run.results, "gemm");
  CHECK(gemm["status"] == "ok");
  CHECK(number(gemm["score"]) == 10.0);
  CHECK_THAT(number(run.results["runs"][0]["labs"][0]["score"]), WithinAbs(10.0 + c.score, 1e-9));
}

TEST_CASE("the sanity gate refuses a reference below 0.6 of its usual standing, and only that", "[grader][e2e]") {
  struct Case {
    const char* slowdown;  // of the reference's time; the manifest records copy's reference at 90% of its ceiling
    const char* status;
    double score;
  };
  const auto c = GENERATE(values<Case>({
      {"1.6", "ok", 10.0},           // 56.25% of the ceiling: at least 0.6 x 90%, graded (full marks at 1.02 ms)
      {"1.7", "invalid-run", 4.0},   // 52.9%: below 54%, correctness points only
  }));
  CAPTURE(c.slowdown);
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"},
                             {{"FAKE_LAB_MODE", "slow_reference:copy"}, {"FAKE_LAB_REFERENCE_SLOWDOWN", c.slowdown}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == c.status);
  CHECK_THAT(number(copy["score"]), WithinAbs(c.score, 1e-9));
  CHECK_THAT(number(copy["reference_percent_of_ceiling"]), WithinAbs(90 / std::stod(c.slowdown), 1e-9));
  CHECK(number(copy["median_ms"]["reference"]) == std::stod(c.slowdown));  // the times stay visible
}

TEST_CASE("the performance fraction of the real run follows the log scale", "[grader][e2e]") {
  const TempDir dir;
  // sqrt(10 ms baseline * 1.1 ms full marks): half the performance points.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"}, {{"FAKE_LAB_STUDENT_MS", "3.3166247903554"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK_THAT(number(copy["perf_fraction"]), WithinAbs(0.5, 1e-9));
  CHECK_THAT(number(copy["score"]), WithinAbs(7.0, 1e-9));
  // The fake's runners: 12 samples at 0.3% noise each, on a 10x window: f is known to about a thousandth.
  CHECK_THAT(number(copy["window"]), WithinAbs(10.0, 1e-9));
  CHECK(number(copy["perf_fraction_sd"]) > 0);
  CHECK(number(copy["perf_fraction_sd"]) < 0.01);
  CHECK_THAT(copy["message"].get<std::string>(), !ContainsSubstring("+-"));  // resolved: nothing to say
  CHECK(run.results["runs"][0]["labs"][0]["exercises"].size() == 1);
  CHECK_THAT(run.process.out, ContainsSubstring("7.0/10"));
}

TEST_CASE("seeds and timeouts from the command line reach the lab", "[grader][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"1", "--seeds", "1,2,3", "--check-timeout", "7", "--time-timeout", "9"});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  CHECK(exercise(run.results, "copy")["tests_total"] == 9);
  CHECK(exercise(run.results, "gemm")["tests_total"] == 6);
  CHECK(exercise(run.results, "copy")["seeds"] == nlohmann::json({1, 2, 3}));
  CHECK(run.results["grader"]["check_timeout_s"] == 7.0);
  CHECK(run.results["grader"]["time_timeout_s"] == 9.0);
  CHECK(run.results["runs"][0]["labs"][0]["time_timeout_s"] == 9.0);
}

TEST_CASE("every form of the LAB argument grades the same lab", "[grader][e2e]") {
  const auto arg = GENERATE("lab1", "1", "01", "01_fake", "fake", "all");
  CAPTURE(arg);
  const TempDir dir;
  const auto run = run_grade(dir, {arg, "--exercise", "gemm"});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  REQUIRE(run.results["runs"][0]["labs"].size() == 1);
  CHECK(run.results["runs"][0]["labs"][0]["id"] == "01_fake");
}

TEST_CASE("the --impl option grades another implementation in the student slot", "[grader][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--impl", "reference"}, {{"FAKE_LAB_MODE", "wrong"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  CHECK(run.results["runs"][0]["impl"] == "reference");
  CHECK_THAT(run.process.out, ContainsSubstring("(impl: reference)"));
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == "ok");  // the fake misbehaves only as the student
  CHECK(number(copy["median_ms"]["student"]) == 1.0);
}

TEST_CASE("stopping the grader kills the lab binary it is running", "[grader][e2e]") {
  const TempDir dir;
  const auto pid_file = dir.path / "lab.pid";
  grader::ProcessOptions options;
  options.argv = {GRADE_EXE, "lab1", "--labs-dir", FAKE_LABS_DIR, "--bin-dir", FAKE_BIN_DIR, "--work-dir",
                  (dir.path / "work").string(), "--output", (dir.path / "results.json").string()};
  options.env = {{"FAKE_LAB_MODE", "hang_check"}, {"FAKE_LAB_EXERCISE", ""}, {"FAKE_LAB_PID_FILE", pid_file.string()}};
  options.timeout_s = 1.5;  // SIGTERM reaches the grader's group only: the lab has a group of its own
  const auto run = grader::run_process(options);
  CHECK(run.timed_out);
  CHECK(run.signal == SIGTERM);
  const int lab = grader_test::read_pid(pid_file);
  REQUIRE(lab > 0);
  const bool lab_dead = grader_test::dead(lab);
  if (!lab_dead) ::kill(lab, SIGKILL);
  CHECK(lab_dead);
}

TEST_CASE("no GPU prints one clear line and exits 3", "[grader][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1"}, {{"FAKE_LAB_MODE", "no_gpu"}});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 3);
  CHECK(run.process.out.empty());
  CHECK(count_lines(run.process.err) == 1);
  CHECK_THAT(run.process.err, ContainsSubstring("grade: grading needs an NVIDIA GPU, and lab1 sees none: no CUDA GPU "
                                                "is visible: cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable "
                                                "device is detected)\n"));
  CHECK(run.results.is_null());
}

TEST_CASE("a lab that is not built is named with its make command and exits 5", "[grader][e2e]") {
  const TempDir dir;
  const TempDir empty_bin;
  const auto run = run_grade(dir, {"lab1", "--bin-dir", empty_bin.path.string()});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 5);
  CHECK_THAT(run.process.err, ContainsSubstring("lab1 is not built: run `make lab1` in the build directory"));
}

TEST_CASE("an unknown lab exits 5 and lists the labs found", "[grader][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab7"});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 5);
  CHECK_THAT(run.process.err, ContainsSubstring("grade: unknown lab 'lab7'; labs found: lab1 (01_fake)"));
}

TEST_CASE("a broken manifest is named with its field and nothing is graded", "[grader][e2e]") {
  const TempDir dir;
  const auto manifest = dir.path / "labs" / "01_fake" / "manifest.json";
  grader_test::write_text(manifest, R"({"title": "Fake lab", "exercises": [
      {"name": "copy", "correctness_points": 4, "performance_points": 6, "stub": "fast"}]})");
  const auto run = run_grade(dir, {"lab1", "--labs-dir", (dir.path / "labs").string()});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 5);
  CHECK_THAT(run.process.err,
             ContainsSubstring(manifest.string() + ": field 'exercises[0].stub': unknown value 'fast'"));
}

TEST_CASE("the --list option shows each lab and whether it is built", "[grader][e2e]") {
  const TempDir dir;
  auto run = run_grade(dir, {"--list"});
  CHECK(run.process.exit_code == 0);
  CHECK_THAT(run.process.out, ContainsSubstring("lab1") && ContainsSubstring("01_fake") &&
                                  ContainsSubstring("Fake lab") && ContainsSubstring(" built\n"));
  const TempDir empty_bin;
  run = run_grade(dir, {"--list", "--bin-dir", empty_bin.path.string()});
  CHECK(run.process.exit_code == 0);
  CHECK_THAT(run.process.out, ContainsSubstring("not built (make lab1)"));
}

TEST_CASE("the --help option exits 0 and documents every option and exit code", "[grader][e2e][cli]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"--help"}, {}, true);
  CAPTURE(run.process.out);
  CHECK(run.process.exit_code == 0);
  for (const char* text : {"LAB", "--impl", "--self-check", "--repeat", "--seeds", "--timed-seed", "--exercise",
                           "--check-timeout",
                           "--time-timeout", "--labs-dir", "--bin-dir", "--work-dir", "--output", "--commit", "--list",
                           "Examples:", "grade lab1", "Exit codes:", "3  no CUDA GPU", "4  --self-check",
                           "5  nothing gradable"}) {
    CAPTURE(text);
    CHECK_THAT(run.process.out, ContainsSubstring(text));
  }
}

TEST_CASE("bad command lines exit 1 with a message", "[grader][e2e][cli]") {
  const auto args = GENERATE(std::vector<std::string>{"--bogus"}, std::vector<std::string>{"lab1", "--repeat", "0"},
                             std::vector<std::string>{"lab1", "--repeat", "x"},
                             std::vector<std::string>{"lab1", "--check-timeout", "-1"},
                             std::vector<std::string>{"lab1", "--self-check", "--impl", "reference"},
                             std::vector<std::string>{}, std::vector<std::string>{"lab1", "--exercise", "nope"},
                             std::vector<std::string>{"lab1", "--seeds", "1,x"},
                             std::vector<std::string>{"lab1", "--timed-seed", "-3"});
  CAPTURE(args);
  const TempDir dir;
  const auto run = run_grade(dir, args);
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 1);
  CHECK_FALSE(run.process.err.empty());
  CHECK(run.results.is_null());
}

TEST_CASE("self-check passes when the reference earns full marks and the stubs behave", "[grader][e2e][self_check]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"--self-check"}, {{"FAKE_LAB_MODE", "slow_student:copy,wrong:gemm"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  CHECK_THAT(run.process.out, ContainsSubstring("self-check lab1 copy (reference, full marks): PASS"));
  CHECK_THAT(run.process.out, ContainsSubstring("self-check lab1 gemm (reference, full marks): PASS"));
  CHECK_THAT(run.process.out, ContainsSubstring("self-check lab1 copy (stub, stub slow): PASS passes 9/9 tests, "
                                                "earns 0.00 of 6 performance points (limit 0.6)"));
  CHECK_THAT(run.process.out,
             ContainsSubstring("self-check lab1 gemm (stub, stub incorrect): PASS fails 1 of 6 tests as intended"));
  CHECK_THAT(run.process.out, ContainsSubstring("self-check lab1: PASS (4 of 4 expectations met)"));
  const auto& j = run.results;
  REQUIRE(j["runs"].size() == 2);
  CHECK(j["runs"][0]["impl"] == "reference");
  CHECK(j["runs"][1]["impl"] == "stub");  // the shipped stub.cu, never the student's copy
  CHECK(j["self_check"]["passed"] == true);
  CHECK(j["self_check"]["verdicts"].size() == 4);
  CHECK(number(j["runs"][0]["labs"][0]["score"]) == 20.0);
}

TEST_CASE("self-check exits 4 when a stub does not behave as its manifest says", "[grader][e2e][self_check]") {
  struct Case {
    const char* mode;
    const char* failure;
  };
  const auto c = GENERATE(values<Case>({
      {"wrong:gemm", "self-check lab1 copy (stub, stub slow): FAIL stub too fast: earns 6.00 of 6 performance points"},
      {"slow_student", "self-check lab1 gemm (stub, stub incorrect): FAIL must fail at least one test: 6/6 tests"},
  }));
  CAPTURE(c.mode);
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--self-check"}, {{"FAKE_LAB_MODE", c.mode}});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 4);
  CHECK_THAT(run.process.out, ContainsSubstring(c.failure));
  CHECK_THAT(run.process.out, ContainsSubstring("self-check lab1: FAIL (3 of 4 expectations met)"));
  CHECK(run.results["self_check"]["passed"] == false);
}

TEST_CASE("self-check exits 4 when the reference ran far below its usual standing", "[grader][e2e][self_check]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--self-check"}, {{"FAKE_LAB_MODE", "slow_reference:copy,wrong:gemm"}});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 4);
  CHECK_THAT(run.process.out,
             ContainsSubstring("self-check lab1 copy (reference, full marks): FAIL 9/9 tests, status invalid-run: the "
                               "reference ran at 18.0% of its ceiling where it usually reaches 90%"));
  CHECK_THAT(run.process.out, ContainsSubstring("self-check lab1 gemm (reference, full marks): PASS"));
  CHECK(run.results["self_check"]["passed"] == false);
  CHECK(exercise(run.results, "copy")["status"] == "invalid-run");
}

TEST_CASE("the --repeat option grades N times and reports the spread between repeats", "[grader][e2e]") {
  const TempDir dir;
  // The first timed run is at full marks (10/10), the second at the log midpoint (7/10): a 30% spread.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--repeat", "2"},
                             {{"FAKE_LAB_STUDENT_MS", "1.0,3.3166247903554"},
                              {"FAKE_LAB_COUNTER_FILE", (dir.path / "counter").string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto& j = run.results;
  REQUIRE(j["runs"].size() == 2);
  CHECK(j["runs"][0]["repeat"] == 1);
  CHECK(j["runs"][1]["repeat"] == 2);
  CHECK_THAT(number(j["runs"][0]["labs"][0]["score"]), WithinAbs(10.0, 1e-9));
  CHECK_THAT(number(j["runs"][1]["labs"][0]["score"]), WithinAbs(7.0, 1e-9));
  CHECK_THAT(number(j["repeat_spread"]["largest_percent"]), WithinAbs(30.0, 1e-6));
  CHECK_THAT(run.process.out, ContainsSubstring("(impl: student, repeat 2 of 2)"));
  CHECK_THAT(run.process.out, ContainsSubstring("repeat spread lab1 (student): 30.0% of max score"));
  CHECK_THAT(run.process.out, ContainsSubstring("largest repeat spread: 30.0% of max score over 2 repeats"));
  // Each exercise's performance fraction over the repeats: 1 and the log midpoint, 0.5.
  CHECK_THAT(run.process.out,
             ContainsSubstring("repeat f lab1 copy (student): f 0.500 to 1.000 (spread 0.500) over 2 repeats\n"));
  REQUIRE(j["repeat_spread"]["exercises"].size() == 1);
  const auto& copy = j["repeat_spread"]["exercises"][0];
  CHECK(copy["exercise"] == "copy");
  CHECK_THAT(number(copy["lowest"]), WithinAbs(0.5, 1e-6));
  CHECK(copy["highest"] == 1.0);
  CHECK(copy["graded"] == 2);
  CHECK(copy["not_graded"] == 0);

  SECTION("a repeat whose performance was not graded is counted apart, its f left out") {
    const TempDir noisy;
    // 50% noise a sample: every run invalid-run (too narrow a scale for its noise), f 0 but not a grade.
    const auto ungraded = run_grade(noisy, {"lab1", "--exercise", "copy", "--repeat", "2"},
                                    {{"FAKE_LAB_NOISE_PCT", "50"}});
    CAPTURE(ungraded.process.out);
    CHECK_THAT(ungraded.process.out,
               ContainsSubstring("repeat f lab1 copy (student): f never graded, 2 not graded\n"));
    CHECK(ungraded.results["repeat_spread"]["exercises"][0]["lowest"].is_null());
  }
}

TEST_CASE("without --commit the results record git's commit or unknown", "[grader][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"});
  REQUIRE(run.process.exit_code == 0);
  const auto commit = run.results["commit"].get<std::string>();
  CAPTURE(commit);
  CHECK((commit == "unknown" || commit.size() == 40));
}

TEST_CASE("peers and metrics of a timed run reach the results file and the table", "[grader][e2e]") {
  TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--impl", "reference"});
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  const double reference_ms = copy.at("median_ms").at("reference").get<double>();
  REQUIRE(copy.at("peers").at("library").at("median_ms").get<double>() == reference_ms / 2);
  REQUIRE(copy.at("metrics").at("fraction_of_library_speed").get<double>() ==
          (reference_ms / 2) / copy.at("median_ms").at("student").get<double>());
  REQUIRE(run.process.out.find("fraction_of_library_speed") != std::string::npos);
}

TEST_CASE("an exercise worth no performance points is timed for the report only, at the fewest samples, in the "
          "lab's one timed run; the others within the manifest's sampling_s",
          "[grader][e2e]") {
  const TempDir dir;
  const auto manifest = dir.path / "labs" / "01_fake" / "manifest.json";
  grader_test::write_text(manifest, R"({"title": "Fake lab", "sampling_s": 1.5, "exercises": [
      {"name": "copy", "correctness_points": 4, "performance_points": 0, "stub": "slow"},
      {"name": "gemm", "correctness_points": 5, "performance_points": 5, "stub": "incorrect"}]})");
  const auto log = dir.path / "calls.log";
  const auto run = run_grade(dir, {"lab1", "--labs-dir", (dir.path / "labs").string()},
                             {{"FAKE_LAB_CALL_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 0);
  const auto calls = grader_test::read_text(log);
  CAPTURE(calls);
  // One run for both: the exercise with points first, then the one the lab binary times with the student alone.
  CHECK_THAT(calls, ContainsSubstring(" time gemm,copy student max-seconds=1.5 student-only-for=copy\n"));
  CHECK(grader_test::lab_calls(log, "time").size() == 1);
  // The student alone was timed: its time is reported, the reference's and the baseline's are not, and the
  // exercise keeps its correctness points (no sanity gate on a reference that did not run).
  const auto& copy = run.results.at("runs").at(0).at("labs").at(0).at("exercises").at(0);
  CAPTURE(copy.dump());
  CHECK(copy.at("status") == "ok");
  CHECK(copy.at("median_ms").at("student").is_number());
  CHECK(copy.at("median_ms").at("reference").is_null());
  CHECK(copy.at("median_ms").at("baseline").is_null());
  CHECK(copy.at("score") == 4);
  CHECK_THAT(copy.at("message").get<std::string>(), ContainsSubstring("timed for the report only"));
  const auto& gemm = run.results.at("runs").at(0).at("labs").at(0).at("exercises").at(1);
  CHECK(gemm.at("median_ms").at("reference").is_number());

  // Timed on its own (the only exercise graded), it is a run with the student alone, as the lab's run timed it.
  std::filesystem::remove(log);
  const auto alone = run_grade(dir, {"lab1", "--labs-dir", (dir.path / "labs").string(), "--exercise", "copy"},
                               {{"FAKE_LAB_CALL_LOG", log.string()}});
  CHECK(grader_test::lab_calls(log, "time") == std::vector<std::string>{"time copy student"});
  CHECK_THAT(grader_test::read_text(log), ContainsSubstring(" time copy student max-seconds=0 student-only\n"));
  const auto& copy_alone = alone.results.at("runs").at(0).at("labs").at(0).at("exercises").at(0);
  for (const char* key : {"status", "score", "median_ms", "message"}) CHECK(copy_alone.at(key) == copy.at(key));
}

TEST_CASE("the labs' checks run at once, a crowded-out one runs again alone, and a lab's checks end before its first "
          "timed run",
          "[grader][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto crowd = dir.path / "crowd";
  std::filesystem::create_directories(crowd);
  // `crowded` fails a check that finds another check running beside it, as a GPU out of memory would: only checks
  // run at once meet. The two labs' runs meet; so do each lab's runs of one exercise each; alone, each passes.
  const auto run = run_grade(dir, two_fake_labs(dir),
                             {{"FAKE_LAB_CALL_LOG", log.string()},
                              {"FAKE_LAB_MODE", "crowded"},
                              {"FAKE_LAB_CROWD_DIR", crowd.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  for (const auto& lab : run.results.at("runs").at(0).at("labs")) {
    CHECK(lab.at("score") == lab.at("max_score"));  // 20/20 each
    for (const auto& x : lab.at("exercises")) CHECK(x.at("status") == "ok");
  }

  const auto calls = grader_test::lab_call_lines(log);
  CAPTURE(calls);
  const auto count = [&](const std::string& call) { return std::count(calls.begin(), calls.end(), call); };
  for (const char* lab : {"lab1", "lab2"}) {
    CHECK(count(std::string(lab) + " check copy,gemm student") == 1);
    CHECK(count(std::string(lab) + " check copy student") == 2);  // beside gemm's (crowded out), then alone
    CHECK(count(std::string(lab) + " check gemm student") == 2);
  }
  // Each lab's checks end before its first timed run.
  for (const char* lab : {"lab1", "lab2"}) {
    const auto mine = [&](const std::string& c, const char* what) { return c.starts_with(std::string(lab) + what); };
    const auto first_time = std::find_if(calls.begin(), calls.end(), [&](auto& c) { return mine(c, " time "); });
    const auto last_check = std::find_if(calls.rbegin(), calls.rend(), [&](auto& c) { return mine(c, " check "); });
    REQUIRE(first_time != calls.end());
    CHECK(last_check.base() <= first_time);
  }
}

TEST_CASE("grading several labs runs every lab's checks before the first timed run of any", "[grader][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto run = run_grade(dir, two_fake_labs(dir), {{"FAKE_LAB_CALL_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  REQUIRE(run.results.at("runs").at(0).at("labs").size() == 2);
  const auto calls = grader_test::lab_call_lines(log);
  CAPTURE(calls);
  const auto is = [](const char* what) { return [what](const std::string& c) { return c.find(what) != c.npos; }; };
  const auto first_time = std::find_if(calls.begin(), calls.end(), is(" time "));
  const auto last_check = std::find_if(calls.rbegin(), calls.rend(), is(" check "));
  REQUIRE(first_time != calls.end());
  CHECK(std::count(calls.begin(), calls.end(), "lab2 check copy,gemm student") == 1);  // one run for the lab
  CHECK(last_check.base() <= first_time);
  // Each lab's check run went on to time its exercises (`time --check-seeds`): one timed run a lab, no run of its own.
  for (const char* lab : {"lab1", "lab2"}) {
    CAPTURE(lab);
    CHECK_THAT(run.process.err, ContainsSubstring(std::string(lab) + " copy, gemm: check, then time, one run for all"));
    CHECK(std::count(calls.begin(), calls.end(), std::string(lab) + " time copy,gemm student") == 1);
  }
  CHECK_THAT(run.process.err, !ContainsSubstring(": time, one run for all"));
  // The labs' results are as graded one by one: every exercise ok, lab after lab.
  for (const auto& lab : run.results.at("runs").at(0).at("labs"))
    for (const auto& x : lab.at("exercises")) CHECK(x.at("status") == "ok");
}

TEST_CASE("a check that failed on its own merits is not run again", "[grader][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto run = run_grade(dir, {"lab1"}, {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_MODE", "wrong:gemm"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  CHECK(exercise(run.results, "gemm")["status"] == "wrong");
  const auto calls = grader_test::read_text(log);
  CAPTURE(calls);
  CHECK(count_lines(calls) == 2);  // check copy,gemm; time copy
}

TEST_CASE("the results file records the fingerprints of the sources it graded, which change with a lab's code",
          "[grader][e2e][sources]") {
  const TempDir dir;
  const auto labs = dir.path / "labs";
  std::filesystem::create_directories(labs / "01_fake");
  std::filesystem::copy_file(std::filesystem::path(FAKE_LABS_DIR) / "01_fake" / "manifest.json", labs / "01_fake" / "manifest.json");
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--labs-dir", labs.string()});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  const auto& sources = run.results.at("sources");
  CHECK(sources.at("lab1") == grader::course_sources(labs).at("lab1"));
  CHECK(sources.at("lab1").get<std::string>().size() == 16);
  grader_test::write_text(labs / "01_fake" / "stub.cu", "// changed\n");
  CHECK(grader::course_sources(labs).at("lab1") != sources.at("lab1").get<std::string>());
}
