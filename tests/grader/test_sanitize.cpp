// `grade --sanitize` without a GPU: compute-sanitizer's command line, finding the tool, and reading its reports from
// captured text (memcheck, racecheck, synccheck, clean runs and the tool's own failures).

#include <algorithm>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/manifest.hpp"
#include "grader/sanitize.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace grader;
using namespace grader_test;

namespace {

// memcheck on a write one element past an array (the shape of the tool's report; the check's own output around it).
constexpr std::string_view kMemcheck = R"(========= COMPUTE-SANITIZER
lab1 check: 3 cases
========= Invalid __global__ write of size 4 bytes
=========     at scale_kernel(const float *, float *, long, float)+0x70 in student.cu:18
=========     by thread (4,0,0) in block (0,0,0)
=========     Address 0x7f1c2e000104 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f1c2e000000 of size 260 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========
========= ERROR SUMMARY: 1 error
========= ERROR SUMMARY: 0 errors
)";

constexpr std::string_view kRacecheck = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at transpose_kernel(const float *, float *, int, int)+0x1c0 in student.cu:31
=========     and Read access at transpose_kernel(const float *, float *, int, int)+0x250 in student.cu:35 [1984 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

constexpr std::string_view kRacecheckHazard = R"(========= COMPUTE-SANITIZER
========= ERROR: Potential RAW hazard detected at __shared__ 0x84 in block (0,0,0) :
=========     Write Thread (1,0,0) at 0x00000130 in student.cu:31:transpose_kernel
=========     Read Thread (33,0,0) at 0x00000190 in student.cu:35:transpose_kernel
=========     Current Value : 0, Incoming Value : 1
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

constexpr std::string_view kSynccheck = R"(========= COMPUTE-SANITIZER
========= Barrier error detected. Invalid arguments
=========     at warp_sum(float)+0x90 in student.cu:12
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 1 error
)";

constexpr std::string_view kClean = R"(========= COMPUTE-SANITIZER
All tests passed (6 assertions in 1 test case)
========= ERROR SUMMARY: 0 errors
========= ERROR SUMMARY: 0 errors
)";

constexpr std::string_view kToolFailed = R"(========= COMPUTE-SANITIZER
========= Error: No attachable process found. compute-sanitizer timed-out.
=========     Default timeout can be adjusted with --launch-timeout. Awaiting target completion.
)";

}  // namespace

TEST_CASE("the sanitizer command is a small-shape check of its exercises under each of its tools",
          "[grader][sanitize]") {
  const auto argv = sanitizer_command("/opt/cuda/bin/compute-sanitizer", {SanitizerTool::kRacecheck}, "/b/lab6",
                                      "student", {"transpose"}, 42, "/dev/fd/3", 7.5);
  const std::vector<std::string> expected{"/b/lab6",     "check",     "--impl",      "student",
                                          "--exercise",  "transpose", "--seeds",     "42",
                                          "--small",     "--results", "/dev/fd/3",   "--sanitizer",
                                          "/opt/cuda/bin/compute-sanitizer",         "--tools",
                                          "racecheck",   "--tool-limit",             "7.5"};
  CHECK(argv == expected);

  SECTION("several exercises and tools go in one check, as the lab binary's comma lists") {
    const auto both = sanitizer_command("cs", {SanitizerTool::kMemcheck, SanitizerTool::kRacecheck}, "/b/lab6",
                                        "student", {"transpose", "row_sums"}, 42, "/dev/fd/3", 60);
    const auto at = std::find(both.begin(), both.end(), "--exercise");
    REQUIRE(at != both.end());
    CHECK(*(at + 1) == "transpose,row_sums");
    const auto tools = std::find(both.begin(), both.end(), "--tools");
    REQUIRE(tools != both.end());
    CHECK(*(tools + 1) == "memcheck,racecheck");
  }
}

TEST_CASE("each tool's verdict is read from its line of the check's results, and only from there",
          "[grader][sanitize]") {
  const std::string results = R"({"plan": {"exercise": "scale", "impl": "student", "cases": 4}}
{"exercise": "scale", "shape": "1", "seed": 1, "ok": true, "message": ""}
{"tool": {"name": "memcheck", "verdict": "clean", "message": ""}}
{"tool": {"name": "racecheck", "verdict": "found", "message": ""}}
{"tool": {"name": "synccheck", "verdict": "failed", "message": "compute-sanitizer killed by signal 9"}}
{"tool": {"name": "initcheck", "verdict": "hung", "message": "its cases had not ended after 60 s, its limit"}}
{"tool": {"name": "nocheck", "verdict": "clean"}}
{"tool": "initcheck clean"}
not json)";
  const auto verdicts = parse_tool_verdicts(results);
  REQUIRE(verdicts.size() == 4);
  CHECK(verdicts.at(SanitizerTool::kMemcheck).kind == ToolVerdict::Kind::kClean);
  CHECK(verdicts.at(SanitizerTool::kRacecheck).kind == ToolVerdict::Kind::kFound);
  CHECK(verdicts.at(SanitizerTool::kSynccheck).kind == ToolVerdict::Kind::kFailed);
  CHECK(verdicts.at(SanitizerTool::kSynccheck).message == "compute-sanitizer killed by signal 9");
  CHECK(verdicts.at(SanitizerTool::kInitcheck).kind == ToolVerdict::Kind::kHung);
  // A malformed line is no verdict (the well-formed one before it stands).
  CHECK(parse_tool_verdicts(R"({"tool": "initcheck clean"})").empty());
  // An unknown verdict is no clean one.
  CHECK(parse_tool_verdicts(R"({"tool": {"name": "memcheck", "verdict": "fine"}})").at(SanitizerTool::kMemcheck).kind ==
        ToolVerdict::Kind::kFailed);
  CHECK(parse_tool_verdicts("").empty());
}

TEST_CASE("sanitizer tools parse by name and nothing else does", "[grader][sanitize]") {
  for (auto tool : {SanitizerTool::kMemcheck, SanitizerTool::kRacecheck, SanitizerTool::kSynccheck,
                    SanitizerTool::kInitcheck})
    CHECK(parse_sanitizer_tool(to_string(tool)) == tool);
  CHECK_FALSE(parse_sanitizer_tool("Memcheck"));
  CHECK_FALSE(parse_sanitizer_tool("leakcheck"));
}

TEST_CASE("memcheck's invalid write is the finding, not the launch failure it causes", "[grader][sanitize]") {
  const auto r = parse_sanitizer_output(kMemcheck);
  CHECK(r.found());
  CHECK(r.errors == 1);
  CHECK(r.first_finding == "Invalid __global__ write of size 4 bytes");
  CHECK(r.tool_error.empty());
}

TEST_CASE("racecheck's race and hazard reports are findings", "[grader][sanitize]") {
  const auto analysis = parse_sanitizer_output(kRacecheck);
  CHECK(analysis.found());
  CHECK(analysis.errors == 1);
  CHECK_THAT(analysis.first_finding, ContainsSubstring("Error: Race reported between Write access"));
  CHECK(analysis.tool_error.empty());

  const auto hazard = parse_sanitizer_output(kRacecheckHazard);
  CHECK(hazard.found());
  CHECK_THAT(hazard.first_finding, ContainsSubstring("Potential RAW hazard detected at __shared__"));
}

TEST_CASE("synccheck's barrier error is a finding", "[grader][sanitize]") {
  const auto r = parse_sanitizer_output(kSynccheck);
  CHECK(r.found());
  CHECK(r.first_finding == "Barrier error detected. Invalid arguments");
}

TEST_CASE("a clean run finds nothing, whatever the check prints", "[grader][sanitize]") {
  const auto r = parse_sanitizer_output(kClean);
  CHECK_FALSE(r.found());
  CHECK(r.errors == 0);
  CHECK(r.first_finding.empty());
  CHECK(parse_sanitizer_output("").errors == 0);
  // Text without the tool's prefix is the check's or the student's, never a finding.
  CHECK_FALSE(parse_sanitizer_output("Invalid __global__ write of size 4 bytes\nERROR SUMMARY: 3 errors\n").found());
}

TEST_CASE("the tool's own failure is told apart from a finding", "[grader][sanitize]") {
  const auto r = parse_sanitizer_output(kToolFailed);
  CHECK_FALSE(r.found());
  CHECK_THAT(r.tool_error, ContainsSubstring("No attachable process found"));
}

TEST_CASE("an error count without a displayed report is still a finding", "[grader][sanitize]") {
  const auto r = parse_sanitizer_output("========= ERROR SUMMARY: 12 errors (10 displayed)\r\n");
  CHECK(r.found());
  CHECK(r.errors == 12);
}

TEST_CASE("compute-sanitizer is found on PATH first, then under CUDA_HOME", "[grader][sanitize]") {
  const TempDir dir;
  const auto make_tool = [](const std::filesystem::path& folder) {
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "compute-sanitizer") << "#!/bin/sh\n";
    std::filesystem::permissions(folder / "compute-sanitizer", std::filesystem::perms::owner_all);
  };
  const auto on_path = dir.path / "path-bin", cuda = dir.path / "cuda";
  make_tool(on_path);
  make_tool(cuda / "bin");
  const auto empty = dir.path / "empty";
  std::filesystem::create_directories(empty);
  CHECK(find_compute_sanitizer(empty.string() + ":" + on_path.string(), cuda.string()) ==
        on_path / "compute-sanitizer");
  CHECK(find_compute_sanitizer(empty.string(), cuda.string()) == cuda / "bin" / "compute-sanitizer");

  SECTION("a file that is not executable does not count") {
    std::filesystem::permissions(on_path / "compute-sanitizer", std::filesystem::perms::owner_read);
    CHECK(find_compute_sanitizer(on_path.string(), cuda.string()) == cuda / "bin" / "compute-sanitizer");
  }
}

TEST_CASE("a manifest's sanitize field names the tools, once each; an unknown tool is refused", "[grader][sanitize]") {
  const std::string exercises =
      R"("exercises": [{"name": "a", "correctness_points": 1, "performance_points": 1, "stub": "slow"}])";
  const auto m = parse_manifest(R"({"title": "t", "sanitize": ["memcheck", "racecheck", "memcheck"], )" + exercises +
                                    "}",
                                "m.json");
  CHECK(m.sanitize == std::vector<SanitizerTool>{SanitizerTool::kMemcheck, SanitizerTool::kRacecheck});
  CHECK(parse_manifest(R"({"title": "t", )" + exercises + "}", "m.json").sanitize.empty());
  CHECK_THROWS_WITH(parse_manifest(R"({"title": "t", "sanitize": ["memchek"], )" + exercises + "}", "m.json"),
                    ContainsSubstring("m.json: field 'sanitize': unknown tool 'memchek'"));
}

TEST_CASE("every lab's manifest names memcheck among its sanitizer tools", "[grader][sanitize]") {
  int labs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(COURSE_LABS_DIR)) {
    if (!std::filesystem::exists(entry.path() / "manifest.json")) continue;
    const auto m = load_manifest(entry.path() / "manifest.json");
    CAPTURE(entry.path().string());
    CHECK(std::find(m.sanitize.begin(), m.sanitize.end(), SanitizerTool::kMemcheck) != m.sanitize.end());
    ++labs;
  }
  CHECK(labs >= 7);
}

namespace {

// A stand-in for compute-sanitizer: logs its command line to FAKE_LAB_SANITIZER_LOG (FAKE_LAB_* variables reach what
// grade runs) and prints `report` for the tool named `tool`, a clean summary for the others.
std::filesystem::path fake_sanitizer(const TempDir& dir, const std::string& tool, const std::string& report) {
  const auto script = dir.path / "compute-sanitizer";
  std::ofstream(script) << "#!/bin/sh\necho \"$@\" >> \"$FAKE_LAB_SANITIZER_LOG\"\n"
                        << "echo '========= COMPUTE-SANITIZER'\necho 'check: 2 cases'\n"
                        << "if [ \"$2\" = '" << tool << "' ]; then printf '%s\\n' '" << report << "'; exit 86; fi\n"
                        << "echo '========= ERROR SUMMARY: 0 errors'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

}  // namespace

TEST_CASE("grade --sanitize turns a memcheck finding into memory-error with no performance points",
          "[grader][sanitize]") {
  const TempDir dir;
  const auto log = dir.path / "sanitizer.log";
  const auto tool = fake_sanitizer(dir, "memcheck",
                                   "========= Invalid __shared__ write of size 4 bytes\n"
                                   "========= ERROR SUMMARY: 1 error");
  const auto calls = dir.path / "calls.log";
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--sanitizer", tool.string()},
                             {{"FAKE_LAB_SANITIZER_LOG", log.string()}, {"FAKE_LAB_CALL_LOG", calls.string()}});
  REQUIRE(run.results.is_object());
  const auto& x = exercise(run.results, "copy");
  CHECK(x.at("status") == "memory-error");
  CHECK_THAT(x.at("message").get<std::string>(), ContainsSubstring("Invalid __shared__ write of size 4 bytes"));
  CHECK(x.at("performance_points") == 0);
  CHECK(x.at("correctness_points") == 4);
  CHECK(x.at("timed_seed").is_null());  // no timed run after a finding
  CHECK(x.at("sanitized") == nlohmann::json::array({"memcheck: Invalid __shared__ write of size 4 bytes"}));
  const auto seed = x.at("seeds").at(0).get<std::uint64_t>();
  // The tool around the student's runner alone, through its front end; the check at the exercise's first seed, small.
  CHECK_THAT(read_text(log), ContainsSubstring("--tool memcheck --error-exitcode 86 --print-limit 10 "
                                               "--report-api-errors no "));
  CHECK_THAT(read_text(log), ContainsSubstring("/runners/lab1-student --exercise copy"));
  CHECK_THAT(read_text(calls), ContainsSubstring(" sanitize copy student seeds=" + std::to_string(seed) +
                                                 " small tools=memcheck\n"));
  CHECK_THAT(run.process.out, ContainsSubstring("copy: memory-error: "));
}

TEST_CASE("grade --sanitize turns a racecheck finding into race, and clean tools let the timing run",
          "[grader][sanitize]") {
  const TempDir dir;
  const auto log = dir.path / "sanitizer.log";
  const auto racy = fake_sanitizer(dir, "racecheck",
                                   "========= Error: Race reported between Write access at k+0x10 in a.cu:3\n"
                                   "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)");
  auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--sanitizer", racy.string()},
                       {{"FAKE_LAB_SANITIZER_LOG", log.string()}});
  REQUIRE(run.results.is_object());
  CHECK(exercise(run.results, "copy").at("status") == "race");
  CHECK(exercise(run.results, "copy").at("sanitized").size() == 2);  // memcheck clean, then racecheck's finding

  const auto clean = fake_sanitizer(dir, "none", "");
  run = run_grade(dir, {"lab1", "--exercise", "copy", "--sanitizer", clean.string()},
                  {{"FAKE_LAB_SANITIZER_LOG", log.string()}});
  REQUIRE(run.results.is_object());
  const auto& x = exercise(run.results, "copy");
  CHECK(x.at("status") == "ok");
  CHECK(x.at("sanitized") == nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
  CHECK(x.at("performance_points").get<double>() > 0);
}

TEST_CASE("a tool that could not work is no finding, whatever its lines say: the verdict decides",
          "[grader][sanitize]") {
  // A front end that cannot reach its temporary folder says so on a "=========" line, in the form of a finding, and
  // exits 1, not 86.
  const TempDir dir;
  const auto script = dir.path / "compute-sanitizer";
  write_text(script, "#!/bin/sh\necho '========= COMPUTE-SANITIZER'\n"
                     "echo '========= Failed to access the temporary directory.'\nexit 1\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--sanitizer", script.string()});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  const auto& x = exercise(run.results, "copy");
  CHECK(x.at("status") == "ok");
  CHECK(x.at("sanitized") ==
        nlohmann::json::array({"memcheck: could not run: Failed to access the temporary directory.",
                               "racecheck: could not run: Failed to access the temporary directory."}));
  CHECK_THAT(run.process.err, ContainsSubstring("again, alone"));  // twice, as any run that says nothing
}

TEST_CASE("without compute-sanitizer, --sanitize says so once and grades without it", "[grader][sanitize]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"lab1", "--sanitizer", (dir.path / "no-such-tool").string()});
  REQUIRE(run.results.is_object());
  const auto& err = run.process.err;
  const auto first = err.find("compute-sanitizer is not installed");
  CHECK(first != std::string::npos);
  CHECK(err.find("compute-sanitizer is not installed", first + 1) == std::string::npos);
  CHECK(exercise(run.results, "copy").at("status") == "ok");
  CHECK(exercise(run.results, "copy").at("sanitized").empty());
}

namespace {

// A stand-in compute-sanitizer that tells whether the runs of a lab went at once: each run logs "sanitizer start TOOL
// EX" to FAKE_LAB_CALL_LOG (the fake lab's call log, so timed runs land in the same file, in order; EX is the check's
// --exercise, "copy,gemm" for a run covering both), enters FAKE_LAB_CROWD_DIR (a file named by its pid) and waits up
// to 3 s for `runs` runs to be there at once; then, after staying 1 s so that the others see it too, it leaves and
// logs "sanitizer end TOOL EX met" (or "alone"). What it reports is `reports`' entry for "TOOL X" (exit 86) when X is
// among the run's exercises, else a clean summary; `crowded_report` ("TOOL X") is reported instead of that when the
// run covers X and met the others, with exit 110 (the check under the tool ran out of GPU memory).
std::filesystem::path crowd_sanitizer(const TempDir& dir, int runs,
                                      const std::vector<std::pair<std::string, std::string>>& reports,
                                      const std::pair<std::string, std::string>& crowded_report = {}) {
  const auto script = dir.path / "bin" / "compute-sanitizer";
  std::filesystem::create_directories(script.parent_path());
  std::ofstream out(script);
  out << "#!/bin/sh\ntool=$2; ex=; prev=\n"
      << "for a in \"$@\"; do [ \"$prev\" = --exercise ] && ex=$a; prev=$a; done\n"
      << "echo \"sanitizer start $tool $ex\" >> \"$FAKE_LAB_CALL_LOG\"\n"
      << "mine=\"$FAKE_LAB_CROWD_DIR/$$\"; touch \"$mine\"; n=0; company=alone\n"
      << "while [ $n -lt 60 ]; do\n"
      << "  if [ \"$(ls \"$FAKE_LAB_CROWD_DIR\" | wc -l)\" -ge " << runs << " ]; then company=met; sleep 1; break; fi\n"
      << "  sleep 0.05; n=$((n + 1))\ndone\n"
      << "rm -f \"$mine\"\necho \"sanitizer end $tool $ex $company\" >> \"$FAKE_LAB_CALL_LOG\"\n"
      << "echo '========= COMPUTE-SANITIZER'\n";
  // "if TOOL is this tool and X is among the run's exercises" as sh
  const auto covers = [](const std::string& run) {
    const auto space = run.find(' ');
    return "if [ \"$tool\" = '" + run.substr(0, space) + "' ] && case \",$ex,\" in *," + run.substr(space + 1) +
           ",*) true;; *) false;; esac";
  };
  if (!crowded_report.first.empty())
    out << covers(crowded_report.first) << " && [ $company = met ]; then printf '%s\\n' '" << crowded_report.second
        << "'; exit 110; fi\n";
  for (const auto& [run, report] : reports)
    out << covers(run) << "; then printf '%s\\n' '" << report << "'; exit 86; fi\n";
  out << "echo '========= ERROR SUMMARY: 0 errors'\n";
  out.close();
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

// The lines of a call log, each without the fake lab's path in front of its check and time lines.
std::vector<std::string> log_lines(const std::filesystem::path& log) {
  std::vector<std::string> lines;
  std::istringstream text(read_text(log));
  for (std::string line; std::getline(text, line);)
    lines.push_back(line.starts_with("sanitizer ") ? line : line.substr(line.find(' ') + 1));
  return lines;
}

std::ptrdiff_t count_prefix(const std::vector<std::string>& lines, const std::string& head) {
  return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(head); });
}

// A crowd folder and the environment that points the stand-in and the fake lab at it and at `log`.
Env crowd_env(const TempDir& dir, const std::filesystem::path& log) {
  const auto crowd = dir.path / "crowd";
  std::filesystem::create_directories(crowd);
  return {{"FAKE_LAB_CALL_LOG", log.string()}, {"FAKE_LAB_CROWD_DIR", crowd.string()}};
}

}  // namespace

TEST_CASE("a lab's sanitizer tools run in one check, tool after tool, after every check and its first timed runs",
          "[grader][sanitize][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto tool = crowd_sanitizer(dir, 1, {});  // memcheck, then racecheck, each over both exercises
  const auto run = run_grade(dir, {"lab1", "--sanitizer", tool.string()}, crowd_env(dir, log));
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  for (const char* name : {"copy", "gemm"}) {
    CAPTURE(name);
    CHECK(exercise(run.results, name).at("status") == "ok");
    CHECK(exercise(run.results, name).at("sanitized") ==
          nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
  }
  const auto lines = log_lines(log);
  CAPTURE(lines);
  // One check under both tools, not a run an exercise and tool: a clean run over both exercises speaks for each (a
  // host makes CUDA processes one at a time).
  CHECK(count_prefix(lines, "sanitize ") == 1);
  CHECK(count_prefix(lines, "sanitize copy,gemm student seeds=") == 1);
  CHECK(count_prefix(lines, "sanitizer start ") == 2);
  const auto memcheck_end = std::find(lines.begin(), lines.end(), "sanitizer end memcheck copy,gemm met");
  const auto racecheck_start = std::find(lines.begin(), lines.end(), "sanitizer start racecheck copy,gemm");
  CHECK(memcheck_end < racecheck_start);  // tool after tool
  CHECK(racecheck_start != lines.end());
  // The check run, its first timed runs in it (`time --check-seeds`), then every sanitizer run: none of these
  // overlap.
  const auto at = [&](const std::string& head, bool last) {
    const auto match = [&](const std::string& l) { return l.starts_with(head); };
    return last ? lines.rend() - std::find_if(lines.rbegin(), lines.rend(), match) - 1
                : std::find_if(lines.begin(), lines.end(), match) - lines.begin();
  };
  CHECK(count_prefix(lines, "time ") == 1);  // both exercises in one timed run
  CHECK(count_prefix(lines, "time copy,gemm student") == 1);
  CHECK(at("check ", true) < at("time ", false));
  CHECK(at("time ", true) < at("sanitize ", false));
}

TEST_CASE("grading several labs starts every lab's sanitizer runs at once, after every check and first timed run",
          "[grader][sanitize][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // Memcheck, then racecheck, over both exercises of each lab: each tool's two runs meet only if both labs' checks
  // under the tools go at once.
  const auto tool = crowd_sanitizer(dir, 2, {});
  auto args = two_fake_labs(dir);
  args.insert(args.end(), {"--sanitizer", tool.string()});
  const auto run = run_grade(dir, args, crowd_env(dir, log));
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.process.exit_code == 0);
  for (const auto& lab : run.results.at("runs").at(0).at("labs"))
    for (const auto& x : lab.at("exercises")) {
      CHECK(x.at("status") == "ok");
      CHECK(x.at("sanitized") == nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
      CHECK(x.at("sanitize_s").get<double>() >= 1);  // its share of a run of two tools of at least 1 s each
    }
  const auto lines = log_lines(log);
  CAPTURE(lines);
  CHECK(count_prefix(lines, "sanitizer start ") == 4);
  CHECK(std::count(lines.begin(), lines.end(), "sanitizer end memcheck copy,gemm met") == 2);
  CHECK(std::count(lines.begin(), lines.end(), "sanitizer end racecheck copy,gemm met") == 2);
  const auto first = [&](const char* head) {
    return std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(head); });
  };
  const auto last = [&](const char* head) {
    return std::find_if(lines.rbegin(), lines.rend(), [&](const std::string& l) { return l.starts_with(head); }).base();
  };
  CHECK(count_prefix(lines, "sanitize ") == 2);  // a check under the tools a lab
  CHECK(count_prefix(lines, "time ") == 2);      // a timed run a lab
  CHECK(last("check ") <= first("time "));  // each lab's first timed runs in its check run, once every check ended
  CHECK(last("time ") <= first("sanitize "));
}

TEST_CASE("a finding in a lab-wide sanitizer run is placed by a run of each exercise, as one after another would",
          "[grader][sanitize][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto tool = crowd_sanitizer(
      dir, 2,
      {{"memcheck gemm", "========= Invalid __shared__ write of size 4 bytes\n========= ERROR SUMMARY: 1 error"},
       {"racecheck copy", "========= Error: Race reported between Write access at k+0x10 in a.cu:3\n"
                          "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"}});
  const auto run = run_grade(dir, {"lab1", "--sanitizer", tool.string()}, crowd_env(dir, log));
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  const auto& copy = exercise(run.results, "copy");
  const auto& gemm = exercise(run.results, "gemm");
  CHECK(copy.at("status") == "race");
  CHECK(gemm.at("status") == "memory-error");
  CHECK_THAT(gemm.at("message").get<std::string>(), ContainsSubstring("Invalid __shared__ write of size 4 bytes"));
  // The tools in the manifest's order, up to the first finding: gemm's racecheck ran beside the others, unread.
  CHECK(copy.at("sanitized") ==
        nlohmann::json::array({"memcheck: clean", "racecheck: Error: Race reported between Write access at k+0x10 in "
                                                  "a.cu:3"}));
  CHECK(gemm.at("sanitized") == nlohmann::json::array({"memcheck: Invalid __shared__ write of size 4 bytes"}));
  for (const auto* x : {&copy, &gemm}) {
    CHECK(x->at("performance_points") == 0);
    CHECK(x->at("timed_seed").is_null());
  }
  CHECK(copy.at("correctness_points") == 4);
  CHECK(gemm.at("correctness_points") == 5);
  const auto lines = log_lines(log);
  CAPTURE(lines);
  // Both tools found something over the lab, so each ran again for each exercise: 2 + 4 runs, those 4 at once.
  CHECK(count_prefix(lines, "sanitizer start memcheck copy,gemm") == 1);
  CHECK(count_prefix(lines, "sanitizer start racecheck copy,gemm") == 1);
  CHECK(count_prefix(lines, "sanitize copy,gemm ") == 1);
  CHECK(count_prefix(lines, "sanitize copy student") == 2);  // a check a tool
  for (const char* one : {"memcheck copy", "memcheck gemm", "racecheck copy", "racecheck gemm"})
    CHECK(std::count(lines.begin(), lines.end(), "sanitizer end " + std::string(one) + " met") == 1);
  CHECK(count_prefix(lines, "sanitizer end ") == 6);
  // A finding is not run again. The first timed run came in the lab's check run, before the sanitizer's: the finding
  // leaves it unread, and nothing more is timed.
  CHECK(count_prefix(lines, "time ") == 1);
  for (const char* name : {"copy", "gemm"}) CHECK(exercise(run.results, name).at("timed_runs") == 0);
}

TEST_CASE("a lab-wide run with a finding for one exercise leaves the other tool's clean run standing",
          "[grader][sanitize][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto tool = crowd_sanitizer(
      dir, 2,
      {{"memcheck gemm", "========= Invalid __shared__ write of size 4 bytes\n========= ERROR SUMMARY: 1 error"}});
  const auto run = run_grade(dir, {"lab1", "--sanitizer", tool.string()}, crowd_env(dir, log));
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  CHECK(exercise(run.results, "copy").at("status") == "ok");
  CHECK(exercise(run.results, "copy").at("sanitized") ==
        nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
  CHECK(exercise(run.results, "gemm").at("status") == "memory-error");
  const auto lines = log_lines(log);
  CAPTURE(lines);
  CHECK(count_prefix(lines, "sanitizer start racecheck") == 1);  // clean over both: not run again
  CHECK(count_prefix(lines, "sanitizer start memcheck") == 3);   // over both, then each
  CHECK(count_prefix(lines, "time ") == 1);                      // copy's
}

TEST_CASE("a sanitizer run crowded out by the others runs again alone", "[grader][sanitize][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  // memcheck finds something in gemm, so it runs again for each exercise, at once; copy's beside gemm's ends like a
  // check out of GPU memory: no finding, exit 110. Alone it is clean.
  const auto tool = crowd_sanitizer(
      dir, 2,
      {{"memcheck gemm", "========= Invalid __shared__ write of size 4 bytes\n========= ERROR SUMMARY: 1 error"}},
      {"memcheck copy", "========= Program hit cudaErrorMemoryAllocation (error 2)\n"
                        "========= Target application returned an error\n"
                        "========= ERROR SUMMARY: 0 errors"});
  const auto run = run_grade(dir, {"lab1", "--sanitizer", tool.string()}, crowd_env(dir, log));
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  CHECK(exercise(run.results, "copy").at("status") == "ok");
  CHECK(exercise(run.results, "copy").at("sanitized") ==
        nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
  CHECK(exercise(run.results, "gemm").at("status") == "memory-error");
  const auto lines = log_lines(log);
  CAPTURE(lines);
  CHECK(count_prefix(lines, "sanitizer start memcheck copy,gemm") == 1);
  CHECK(count_prefix(lines, "sanitizer start memcheck copy") == 3);  // over both, beside gemm's, alone
  CHECK(std::count(lines.begin(), lines.end(), "sanitizer end memcheck copy alone") == 1);
  CHECK(count_prefix(lines, "sanitizer start ") == 5);  // racecheck's clean run over both is not run again
  CHECK_THAT(run.process.err, ContainsSubstring("compute-sanitizer memcheck again, alone"));
}

namespace {

// `grade ARGS` with a clean stand-in compute-sanitizer first on PATH, logging to `log`: what grade does when it could
// find the tool on its own.
GradeRun grade_with_sanitizer_on_path(const TempDir& dir, const std::vector<std::string>& args,
                                      const std::filesystem::path& log) {
  const auto tool = crowd_sanitizer(dir, 1, {});
  const char* path = std::getenv("PATH");
  auto env = crowd_env(dir, log);
  env.emplace_back("PATH", tool.parent_path().string() + ":" + (path ? path : "/usr/bin:/bin"));
  std::filesystem::remove(log);
  std::filesystem::remove(dir.path / "results.json");
  std::vector<std::string> argv{"--labs-dir", FAKE_LABS_DIR, "--bin-dir", FAKE_BIN_DIR, "--work-dir",
                                (dir.path / "work").string(), "--output", (dir.path / "results.json").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_grade(dir, argv, env, /*bare=*/true);  // as typed: no --no-sanitize added for the self-check
}

}  // namespace

TEST_CASE("compute-sanitizer runs by default in the self-check, in a student's own grade only when asked",
          "[grader][sanitize][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "calls.log";
  const auto sanitized = [&](const GradeRun& run, std::size_t impl) {
    CAPTURE(run.process.out, run.process.err);
    REQUIRE(run.results.is_object());
    return exercise(run.results, "copy", impl).at("sanitized");
  };
  const nlohmann::json both = nlohmann::json::array({"memcheck: clean", "racecheck: clean"});

  SECTION("grade LAB --self-check and grade all --self-check: on by default, off with --no-sanitize") {
    for (const char* lab : {"lab1", "all"}) {
      CAPTURE(lab);
      auto run = grade_with_sanitizer_on_path(dir, {lab, "--self-check", "--no-sanitize"}, log);
      CHECK(sanitized(run, 0).empty());
      CHECK(count_prefix(log_lines(log), "sanitizer ") == 0);
      run = grade_with_sanitizer_on_path(dir, {lab, "--self-check"}, log);
      CHECK(sanitized(run, 0) == both);  // reference
      CHECK(sanitized(run, 1) == both);  // stub: copy's is slow, not wrong
      CHECK(count_prefix(log_lines(log), "sanitizer start memcheck copy") == 2);
    }
  }
  SECTION("grade LAB: off unless --sanitize") {
    auto run = grade_with_sanitizer_on_path(dir, {"lab1"}, log);
    CHECK(sanitized(run, 0).empty());
    CHECK(count_prefix(log_lines(log), "sanitizer ") == 0);
    run = grade_with_sanitizer_on_path(dir, {"lab1", "--sanitize"}, log);
    CHECK(sanitized(run, 0) == both);
  }
}

namespace {

// A stand-in compute-sanitizer that logs its command line to FAKE_LAB_SANITIZER_LOG and hangs for a minute, past the
// fake lab's timeouts.sanitize_s (8 s), where the sh condition `hang_if` holds ($tool: the tool, $ex: the check's
// --exercise); otherwise, or after the minute, it reports a clean run.
std::filesystem::path hanging_sanitizer(const TempDir& dir, const std::string& hang_if) {
  const auto script = dir.path / "compute-sanitizer";
  std::ofstream(script) << "#!/bin/sh\necho \"$@\" >> \"$FAKE_LAB_SANITIZER_LOG\"\ntool=$2; ex=; prev=\n"
                        << "for a in \"$@\"; do [ \"$prev\" = --exercise ] && ex=$a; prev=$a; done\n"
                        << "if " << hang_if << "; then sleep 60; fi\n"
                        << "echo '========= COMPUTE-SANITIZER'\necho '========= ERROR SUMMARY: 0 errors'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

}  // namespace

TEST_CASE("a compute-sanitizer run that hangs is run again alone before the time-out costs anything",
          "[grader][sanitize]") {
  // One run of the stand-in (the first to make the folder) hangs, as the real tool now and then does where the same
  // run ends in seconds every other time; every other run is clean.
  const TempDir dir;
  const auto log = dir.path / "sanitizer.log";
  const auto script = hanging_sanitizer(dir, "mkdir \"$FAKE_LAB_SANITIZER_LOG.hung\" 2>/dev/null");
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--sanitizer", script.string()},
                             {{"FAKE_LAB_SANITIZER_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  const auto& x = exercise(run.results, "copy");
  CHECK(x.at("status") == "ok");
  CHECK(x.at("sanitized") == nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
  CHECK(x.at("performance_points").get<double>() > 0);
  std::istringstream calls(read_text(log));
  int runs = 0;
  for (std::string line; std::getline(calls, line);) runs += line.starts_with("--tool ");
  CHECK(runs == 3);  // memcheck and racecheck at once, one of them hung; then that one again, alone
  CHECK_THAT(run.process.err, ContainsSubstring("again, alone"));
}

TEST_CASE("a tool that hangs over the lab is ended at its own limit, the next tool still runs, and a second hang "
          "is final: two time limits, not three",
          "[grader][sanitize]") {
  // memcheck hangs whenever its run covers copy, as the tool does for a submission that keeps the GPU busy; every
  // other run is clean.
  const TempDir dir;
  const auto log = dir.path / "sanitizer.log";
  const auto script =
      hanging_sanitizer(dir, "[ \"$tool\" = memcheck ] && case \",$ex,\" in *,copy,*) true;; *) false;; esac");
  const auto run = run_grade(dir, {"lab1", "--sanitizer", script.string()}, {{"FAKE_LAB_SANITIZER_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  const auto& copy = exercise(run.results, "copy");
  CHECK(copy.at("status") == "timeout");
  CHECK_THAT(copy.at("message").get<std::string>(),
             ContainsSubstring("compute-sanitizer memcheck hung on the small shapes, over the lab's exercises and on "
                               "its own: killed after 8 s"));
  CHECK(copy.at("correctness_points") == 4);
  CHECK(exercise(run.results, "gemm").at("status") == "ok");
  CHECK(exercise(run.results, "gemm").at("sanitized") ==
        nlohmann::json::array({"memcheck: clean", "racecheck: clean"}));
  std::istringstream calls(read_text(log));
  std::vector<std::string> memchecks;
  for (std::string line; std::getline(calls, line);)
    if (line.starts_with("--tool memcheck ")) memchecks.push_back(line);
  CAPTURE(memchecks);
  CHECK(memchecks.size() == 3);  // over both, then copy's and gemm's at once; copy's is not run a third time
  // racecheck ran after memcheck's limit in the lab-wide run, clean over both: no run of its own for either.
  calls = std::istringstream(read_text(log));
  int racechecks = 0;
  for (std::string line; std::getline(calls, line);) racechecks += line.starts_with("--tool racecheck ");
  CHECK(racechecks == 1);
  CHECK_THAT(run.process.err, !ContainsSubstring("again, alone"));
}

TEST_CASE("a submission that hangs every tool has each tool ended at its own limit over the lab, then the runs of "
          "each exercise once, and the hangs are final",
          "[grader][sanitize]") {
  // Every tool hangs whenever its run covers copy, as under a kernel that never ends; gemm is clean.
  const TempDir dir;
  const auto log = dir.path / "sanitizer.log";
  const auto script = hanging_sanitizer(dir, "case \",$ex,\" in *,copy,*) true;; *) false;; esac");
  const auto run = run_grade(dir, {"lab1", "--sanitizer", script.string()}, {{"FAKE_LAB_SANITIZER_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  CHECK(exercise(run.results, "copy").at("status") == "timeout");
  CHECK(exercise(run.results, "gemm").at("status") == "ok");
  // Each tool: over both (ended at its own limit, the next tool after it), then copy's and gemm's at once; copy's
  // memcheck hang is its second, final, and its racecheck run is not read. Without the tools' own limits the run over
  // both was killed in memcheck, and racecheck had no run over the lab.
  std::istringstream calls(read_text(log));
  int memchecks = 0, racechecks = 0;
  for (std::string line; std::getline(calls, line);) {
    memchecks += line.starts_with("--tool memcheck ");
    racechecks += line.starts_with("--tool racecheck ");
  }
  CHECK(memchecks == 3);
  CHECK(racechecks == 3);
  CHECK_THAT(run.process.err, !ContainsSubstring("again, alone"));
}
