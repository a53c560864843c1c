// End to end: the real `grade` against a fake lab that attacks it. Each test fails without the defence it names:
// descendants killed before results are read, results through an inherited pipe, a clean environment, a fresh
// directory and limits for the lab, fresh seeds, and results checked against what the grader asked for.

#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using Catch::Matchers::WithinAbs;
using grader_test::exercise;
using grader_test::run_grade;
using grader_test::TempDir;

TEST_CASE("a setsid'd grandchild of the lab is killed before its results are read", "[grader][e2e][hardening]") {
  const TempDir dir;
  const auto marker = dir.path / "forged";
  // copy's forger waits for the lab's check run to end; gemm's check hangs it until its 3 s limit, and hangs again in
  // its own run, so grade still runs when the forger wakes up 1.5 s after the lab's run: a grader that left it alive
  // would find its marker (and, reading later, its results).
  const auto run = run_grade(dir, {"lab1", "--seeds", "1,2", "--check-timeout", "3"},
                             {{"FAKE_LAB_MODE", "setsid_forger:copy,hang_check:gemm"},
                              {"FAKE_LAB_MARKER", marker.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == "wrong");  // the lab's own verdict, not the forger's
  CHECK(copy["tests_passed"] == 5);
  CHECK(copy["tests_total"] == 6);
  CHECK(exercise(run.results, "gemm")["status"] == "timeout");
  const int forger = grader_test::read_pid(marker.string() + ".pid");
  REQUIRE(forger > 0);
  CHECK_FALSE(grader_test::alive_now(forger));
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("results written to a file instead of the results path are ignored", "[grader][e2e][hardening]") {
  const TempDir dir;
  // Where the grader once read them: <work-dir>/lab1/copy.check.jsonl. The fake also forges ./copy.check.jsonl.
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--seeds", "1,2"},
                             {{"FAKE_LAB_MODE", "forge_file"}, {"FAKE_LAB_FORGE_DIR", (dir.path / "work/lab1").string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == "wrong");
  CHECK(copy["tests_passed"] == 5);
  CHECK_THAT(copy["message"].get<std::string>(), ContainsSubstring("1 of 6 tests failed"));
}

TEST_CASE("the lab runs with a clean environment, a fresh directory and resource limits", "[grader][e2e][hardening]") {
  const TempDir dir;
  const grader_test::CoreFilesAllowed cores;  // grade inherits this; its lab must not
  const auto spy_file = dir.path / "spy.json";
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"},
                             {{"FAKE_LAB_MODE", "spy"}, {"FAKE_LAB_SPY_FILE", spy_file.string()},
                              {"GRADER_TEST_SECRET", "hunter2"}, {"LC_NUMERIC", "C"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  CHECK(exercise(run.results, "copy")["status"] == "ok");
  const auto seen = nlohmann::json::parse(grader_test::read_text(spy_file));
  CAPTURE(seen.dump(1));

  const auto& env = seen.at("env");
  CHECK_FALSE(env.contains("GRADER_TEST_SECRET"));
  CHECK(env.contains("PATH"));
  CHECK(env.value("LC_NUMERIC", "") == "C");
  CHECK(env.value("FAKE_LAB_MODE", "") == "spy");
  for (const auto& [name, value] : env.items()) {
    CAPTURE(name);
    CHECK((name == "PATH" || name == "HOME" || name == "LANG" || name.starts_with("LC_") || name == "TMPDIR" ||
           name.starts_with("CUDA_") || name.starts_with("NVIDIA_") || name == "LD_LIBRARY_PATH" ||
           name == "COURSE_REQUIRE_GPU" || name.starts_with("FAKE_LAB_")));
  }

  // A directory of its own under <work-dir>/lab1, also its TMPDIR, gone once the run is over.
  const std::filesystem::path cwd = seen.at("cwd").get<std::string>();
  CHECK(cwd.parent_path() == std::filesystem::canonical(dir.path / "work/lab1"));
  CHECK(env.value("TMPDIR", "") == cwd.string());
  CHECK_FALSE(std::filesystem::exists(cwd));

  CHECK(seen.at("limits").at("core") == 0);
  CHECK(seen.at("limits").at("fsize") == std::uint64_t{1} << 30);
  CHECK(seen.at("limits").at("nofile") == 1024);
  // 0, 1, 2, the results pipe as 3, the socket of its timed part's turn as 4 (a check run that goes on to time), and
  // the fake's own listing of /proc/self/fd.
  CHECK_THAT(seen.at("fds").at("3").get<std::string>(), StartsWith("pipe:"));
  for (const auto& [fd, target] : seen.at("fds").items()) {
    CAPTURE(fd, target);
    const auto& what = target.get<std::string>();
    CHECK((std::stoi(fd) <= 3 || (fd == "4" && what.starts_with("socket:")) || what.starts_with("/proc/")));
  }
}

TEST_CASE("a lab's CUDA processes get the work queues its manifest gives, not the grader's", "[grader][e2e]") {
  // CUDA_DEVICE_MAX_CONNECTIONS: one queue unless the manifest says `work_queues` (Manifest::work_queues); a value in
  // the grader's own environment does not pass (it is not on the lab's allowlist), so every machine grades alike.
  const TempDir dir;
  const auto spy_file = dir.path / "spy.json";
  const auto seen_with = [&](const std::filesystem::path& labs) {
    const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--labs-dir", labs.string()},
                               {{"FAKE_LAB_MODE", "spy"}, {"FAKE_LAB_SPY_FILE", spy_file.string()},
                                {"CUDA_DEVICE_MAX_CONNECTIONS", "32"}});
    CAPTURE(run.process.out, run.process.err);
    REQUIRE(run.process.exit_code == 0);
    return nlohmann::json::parse(grader_test::read_text(spy_file)).at("env").value("CUDA_DEVICE_MAX_CONNECTIONS", "");
  };
  CHECK(seen_with(FAKE_LABS_DIR) == "1");
  CHECK(seen_with(grader_test::fake_lab_with(dir.path, "work_queues", 8)) == "8");
}

TEST_CASE("a lab that writes a file past 1 GiB is stopped by SIGXFSZ and reported", "[grader][e2e][hardening]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"}, {{"FAKE_LAB_MODE", "huge_file"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == "crash");
  CHECK_THAT(copy["message"].get<std::string>(),
             ContainsSubstring("check crashed: killed by SIGXFSZ (a file grew past the 1 GiB limit)"));
}

TEST_CASE("every run draws fresh seeds and records them; --seeds, --timed-seed and --timed-salt-seed win",
          "[grader][e2e][hardening]") {
  const TempDir dir;
  const auto first = run_grade(dir, {"lab1", "--exercise", "copy"});
  const auto second = run_grade(dir, {"lab1", "--exercise", "copy"});
  REQUIRE(first.process.exit_code == 0);
  REQUIRE(second.process.exit_code == 0);
  const auto a = exercise(first.results, "copy"), b = exercise(second.results, "copy");
  CAPTURE(a.dump(), b.dump());
  // The fake ran the seeds it was given (the grader checks every case against them) and echoed the timed seed.
  CHECK(a["status"] == "ok");
  REQUIRE(a["seeds"].size() == 3);
  CHECK(a["seeds"] != b["seeds"]);
  CHECK(a["timed_seed"].is_number_unsigned());
  CHECK(a["timed_seed"] != b["timed_seed"]);
  CHECK(a["timed_shape"] == "1048576");
  // The salt seed is the lab binary's to draw (the grader asks for none): what it reported is recorded.
  CHECK(a["timed_salt_seed"].is_number_unsigned());
  CHECK(a["timed_salt_seed"] != b["timed_salt_seed"]);

  const auto chosen = run_grade(dir, {"lab1", "--exercise", "copy", "--seeds", "5,6", "--timed-seed", "9",
                                      "--timed-salt-seed", "18446744073709551615"});
  REQUIRE(chosen.process.exit_code == 0);
  const auto c = exercise(chosen.results, "copy");
  CHECK(c["status"] == "ok");
  CHECK(c["seeds"] == nlohmann::json({5, 6}));
  CHECK(c["tests_total"] == 6);
  CHECK(c["timed_seed"] == 9);
  CHECK(c["timed_salt_seed"] == std::uint64_t{18446744073709551615u});  // the full 64 bits, through JSON and back
}

TEST_CASE("a replayed timed run that ends wrong is wrong, its salt seed named as asked", "[grader][e2e][hardening]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--timed-seed", "9", "--timed-salt-seed", "11"},
                             {{"FAKE_LAB_MODE", "wrong_after_timing"}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == "wrong");
  CHECK_THAT(copy["message"].get<std::string>(), ContainsSubstring("every test passed, but the timed run was wrong"));
}

TEST_CASE("results that contradict what the grader asked for are bad output", "[grader][e2e][hardening]") {
  struct Case {
    const char* mode;
    double score;  // of copy's 4 correctness + 6 performance points
    const char* message;
  };
  const auto c = GENERATE(values<Case>({
      {"ignore_seeds", 0, "check results contradict the plan: a result at seed 1, which was not asked for (seeds 5,6)"},
      {"plan_mismatch", 0,
       "check results contradict the plan: a plan of 1 cases cannot be every shape at each of the 2 seeds asked for"},
      {"time_wrong_seed", 4, "time results contradict the plan: the result names seed 10, not 9"},
      {"time_wrong_exercise", 4, "time results contradict the plan: the result names exercise 'gemm', not 'copy'"},
      {"time_wrong_salt_seed", 4, "time results contradict the plan: the result names salt seed 12, not 11"},
  }));
  CAPTURE(c.mode);
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--seeds", "5,6", "--timed-seed", "9",
                                   "--timed-salt-seed", "11"},
                             {{"FAKE_LAB_MODE", c.mode}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  const auto copy = exercise(run.results, "copy");
  CHECK(copy["status"] == "bad-output");
  CHECK_THAT(copy["message"].get<std::string>(), ContainsSubstring(c.message));
  CHECK_THAT(copy["score"].get<double>(), WithinAbs(c.score, 1e-9));
  CHECK(copy["median_ms"]["student"].is_null());  // a contradicted timing is not shown either
}
