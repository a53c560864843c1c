// Tests of `grade batch` and `grade merge` (docs/batch.md): the layout, sharding and recipe parts on their own, and
// whole batches of fake students run by the real `grade` against the fake lab, built by a fake recipe whose
// "compiler" is a shell line (a file saying SYNTAX_ERROR fails to compile, one saying FORBIDDEN is refused) and whose
// "runner" is the student's file, from which the fake lab reads how to misbehave (tests/fakes/fake_lab.cpp).
// The real recipe CMake writes for lab 1 is tested by building the lab's stub with it.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <fmt/format.h>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/batch.hpp"
#include "grader/host_lock.hpp"
#include "grader/placement.hpp"
#include "support.hpp"

extern char** environ;

namespace {

using namespace grader_test;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using nlohmann::json;
namespace batch = grader::batch;

// A submissions folder, a fake recipe and a results folder in one temporary folder.
struct FakeClass {
  TempDir dir;
  fs::path submissions = dir.path / "submissions";
  fs::path recipes = dir.path / "recipes";
  fs::path results = dir.path / "results";
  fs::path call_log = dir.path / "calls.log";
  fs::path labs_dir = FAKE_LABS_DIR;

  explicit FakeClass(const std::string& compile_delay = "0") {
    fs::create_directories(submissions);
    // The course's other runners: the fake lab only needs them to exist.
    write_text(dir.path / "runners" / "lab1-reference", "reference\n");
    write_text(dir.path / "runners" / "lab1-baseline", "baseline\n");
    write_text(dir.path / "contract" / "fake.hpp", "// the lab's contract\n");
    const json recipe = {
        {"schema", 1}, {"lab", 1}, {"id", "01_fake"},
        {"lab_binary", std::string(FAKE_BIN_DIR) + "/lab1"}, {"runners_dir", (dir.path / "runners").string()},
        {"contract", (dir.path / "contract").string()},
        {"compile", {"/bin/sh", "-c",
                     "sleep " + compile_delay + "; if grep -q SYNTAX_ERROR \"$1\"; then echo \"$1:3: error: expected "
                     "';' before '}' token\" >&2; exit 1; fi; cp \"$1\" \"$2\"", "sh", "{source}", "{object}"}},
        // As the real check words it (static_check.cpp format_finding()): "; " inside, which a reader of the
        // batch's joined errors must not take for the end of the failure.
        {"check", {"/bin/sh", "-c", "if grep -q FORBIDDEN \"$1\"; then echo \"student.cu: refused: calls "
                   "'cudaStreamCreate' (rule 'streams': lab 01 allows no streams of your own; see "
                   "labs/01_fake/README.md#rules)\" >&2; exit 1; fi", "sh", "{source}", "{object}"}},
        {"link", {"/bin/cp", "{object}", "{output}"}}};
    write_text(recipes / "lab1.json", recipe.dump(2));
  }

  // A second lab in the course, 02_more, with its recipe: the fake lab's manifest and build again.
  void add_lab2() {
    labs_dir = dir.path / "labs";
    fs::create_directories(labs_dir);
    fs::copy(fs::path(FAKE_LABS_DIR) / "01_fake", labs_dir / "01_fake");
    fs::copy(fs::path(FAKE_LABS_DIR) / "01_fake", labs_dir / "02_more");
    json recipe = json::parse(read_text(recipes / "lab1.json"));
    recipe["lab"] = 2;
    recipe["id"] = "02_more";
    write_text(recipes / "lab2.json", recipe.dump(2));
  }

  // The manifest of lab `id` (the fake lab, or add_lab2()'s 02_more) with `"host_link": true`, as lab 07's: its timed
  // runs cross the host link.
  void use_host_link(const std::string& id = "01_fake") {
    labs_dir = dir.path / "labs";
    fs::create_directories(labs_dir);
    if (!fs::exists(labs_dir / id)) fs::copy(fs::path(FAKE_LABS_DIR) / "01_fake", labs_dir / id);
    json manifest = json::parse(read_text(labs_dir / id / "manifest.json"));
    manifest["host_link"] = true;
    write_text(labs_dir / id / "manifest.json", manifest.dump(2));
  }

  void student(const std::string& path, const std::string& text) { write_text(submissions / path, text + "\n"); }

  std::vector<std::string> args(std::vector<std::string> extra = {}, std::optional<fs::path> into = {}) const {
    std::vector<std::string> a = {GRADE_EXE, "batch", submissions.string(), "--labs-dir", labs_dir.string(),
                                  "--recipes", recipes.string(), "--results", into.value_or(results).string(),
                                  "--check-timeout",
                                  "2", "--time-timeout", "5", "--commit", "abc1234"};
    a.insert(a.end(), extra.begin(), extra.end());
    // A batch sanitizes by default, with the compute-sanitizer of the machine the tests run on: not unless the test
    // asks about the sanitizer.
    const auto has = [&](const char* option) { return std::find(extra.begin(), extra.end(), option) != extra.end(); };
    if (!has("--sanitize") && !has("--sanitizer") && !has("--no-sanitize")) a.push_back("--no-sanitize");
    return a;
  }

  Env env() const { return {{"FAKE_LAB_CALL_LOG", call_log.string()}}; }

  json student_file(const std::string& name) const {
    return json::parse(read_text(results / "students" / (name + ".json")), nullptr, false);
  }

  // Check and time runs per student, from the fake lab's log (each student's lab binary is in work/STUDENT/).
  std::map<std::string, int> calls() const {
    std::map<std::string, int> n;
    std::istringstream log(read_text(call_log));
    for (std::string line; std::getline(log, line);) {
      const auto at = line.find("/work/");
      if (at == std::string::npos) continue;
      const auto start = at + 6;
      ++n[line.substr(start, line.find('/', start) - start)];
    }
    return n;
  }
};

grader::ProcessResult run(const std::vector<std::string>& argv, const Env& env = {}) {
  grader::ProcessOptions options;
  options.argv = argv;
  options.env = env;
  options.timeout_s = 120;
  return grader::run_process(options);
}

std::vector<std::string> names(const json& class_file) {
  std::vector<std::string> n;
  for (const json& row : class_file.at("students")) n.push_back(row.at("student").get<std::string>());
  return n;
}

}  // namespace

TEST_CASE("a shard takes every N-th student of the sorted class, and the shards cover it once", "[batch]") {
  std::vector<batch::StudentFiles> students;
  for (const char* name : {"a", "b", "c", "d", "e"}) students.push_back({name, {}});
  std::multiset<std::string> seen;
  for (int i = 0; i < 2; ++i)
    for (const auto& s : batch::shard(students, i, 2)) seen.insert(s.name);
  CHECK(seen == std::multiset<std::string>{"a", "b", "c", "d", "e"});
  const auto first = batch::shard(students, 0, 2);
  REQUIRE(first.size() == 3);
  CHECK(first[1].name == "c");
  CHECK(batch::parse_shard("1/4") == std::pair{1, 4});
  CHECK_THROWS_AS(batch::parse_shard("4/4"), std::invalid_argument);
  CHECK_THROWS_AS(batch::parse_shard("1"), std::invalid_argument);
  CHECK_THROWS_AS(batch::parse_shard("-1/2"), std::invalid_argument);
}

TEST_CASE("a student's file is found under each documented name, and Gradescope's single submission too", "[batch]") {
  TempDir dir;
  const grader::LabEntry lab{1, "01_coalescing", {}, {}};
  const grader::LabEntry other{3, "03_warp_shuffles", {}, {}};
  write_text(dir.path / "subs" / "alice" / "lab1.cu", "a");
  write_text(dir.path / "subs" / "bob" / "01_coalescing" / "student.cu", "b");
  write_text(dir.path / "subs" / "carol" / "01_coalescing.cu", "c");
  write_text(dir.path / "subs" / "dave" / "student.cu", "d");
  write_text(dir.path / "subs" / "erin" / "notes.txt", "e");
  fs::create_directories(dir.path / "subs" / ".git");
  SECTION("one folder per student, sorted; student.cu counts only when one lab is graded") {
    const auto students = batch::find_students(dir.path / "subs", {&lab});
    REQUIRE(students.size() == 5);
    CHECK(students[0].name == "alice");
    CHECK(students[0].files.at(1).filename() == "lab1.cu");
    CHECK(students[1].files.at(1) == dir.path / "subs" / "bob" / "01_coalescing" / "student.cu");
    CHECK(students[2].files.at(1).filename() == "01_coalescing.cu");
    CHECK(students[3].files.at(1).filename() == "student.cu");
    CHECK(students[4].files.empty());
    const auto two_labs = batch::find_students(dir.path / "subs", {&lab, &other});
    CHECK(two_labs[3].files.empty());
  }
  SECTION("files directly in the folder are one submission, named by --student or the folder") {
    const auto one = batch::find_students(dir.path / "subs" / "alice", {&lab}, "alice@example.edu");
    REQUIRE(one.size() == 1);
    CHECK(one[0].name == "alice@example.edu");
    CHECK(batch::find_students(dir.path / "subs" / "carol", {&lab})[0].name == "carol");
  }
}

TEST_CASE("the first compiler error line is what a compile-error row shows", "[batch]") {
  CHECK(batch::first_error_line("In file included from x.h:1,\nstudent.cu(12): error: identifier \"y\" is undefined\n"
                                "1 error detected\n") == "student.cu(12): error: identifier \"y\" is undefined");
  CHECK(batch::first_error_line("warning: a\nlast words\n\n") == "last words");
  CHECK(batch::first_error_line("/usr/bin/ld: student.o: in function `f':\n/usr/bin/ld: undefined reference to `g'\n"
                                "collect2: error: ld returned 1 exit status\n") ==
        "/usr/bin/ld: undefined reference to `g'");
  // A library the linker cannot find: its line, not collect2's summary.
  CHECK(batch::first_error_line("/usr/bin/ld: cannot find -lcudart: No such file or directory\n"
                                "collect2: error: ld returned 1 exit status\n") ==
        "/usr/bin/ld: cannot find -lcudart: No such file or directory");
  CHECK(batch::expand({"cc", "{source}", "-o", "{object}.o"}, {{"source", "a.cu"}, {"object", "b"}}) ==
        std::vector<std::string>{"cc", "a.cu", "-o", "b.o"});
}

TEST_CASE("a recipe without a link command is refused with the file's name", "[batch]") {
  TempDir dir;
  write_text(dir.path / "lab1.json", R"({"schema": 1, "lab": 1, "lab_binary": "/x", "compile": ["cc"]})");
  CHECK_THROWS_WITH(batch::load_recipe(dir.path / "lab1.json"), ContainsSubstring("lab1.json: no \"link\""));
  CHECK_THROWS_WITH(batch::load_recipe(dir.path / "none.json"), ContainsSubstring("cannot read the build recipe"));
}

// A class file's row as `grade batch` writes it for a student with nothing built: no results, the joined error and
// each lab's build.
json unbuilt_row(const std::string& student, std::vector<std::pair<std::string, std::string>> builds) {
  json b = json::array(), error;
  int lab = 0;
  for (const auto& [outcome, message] : builds) {
    b.push_back({{"lab", ++lab}, {"outcome", outcome}, {"message", message}, {"max_score", 20.0}});
    error = (error.is_null() ? "" : error.get<std::string>() + "; ") + fmt::format("lab{}: {}", lab, message);
  }
  return {{"student", student}, {"results", nullptr}, {"error", error}, {"builds", b}};
}

TEST_CASE("the summary counts each lab's failure of a student graded on several labs", "[batch]") {
  const std::string refusal = "refused: student.cu: refused: calls 'cudaStreamCreate' (rule 'streams': lab 01 allows "
                              "no streams of your own; see labs/01_coalescing/README.md#rules)";
  const json class_file = {{"students", {unbuilt_row("ann", {{"compile error", "compile error: a.cu(1): error: x"},
                                                             {"no submission", "no submission"},
                                                             {"no submission", "no submission"}}),
                                         unbuilt_row("ben", {{"no submission", "no submission"},
                                                             {"refused", refusal},
                                                             {"link error", "link error: undefined reference"}})}}};
  const auto text = batch::format_summary(class_file, 2, std::chrono::seconds(36));
  CHECK_THAT(text, ContainsSubstring("2 students, 0 with results"));
  // From the records' builds, never from their messages: the refusal's "; see ..." is no failure of its own.
  CHECK_THAT(text,
             ContainsSubstring("no submission 3, compile errors 1, refused 1, link errors 1, crashed or hung 0\n"));
  CHECK_THAT(text, ContainsSubstring("  ann: lab1: compile error: a.cu(1): error: x\n"));
  CHECK_THAT(text, ContainsSubstring("  ben: lab2: " + refusal + "\n"));
  CHECK_THAT(text, ContainsSubstring("  ben: lab3: link error: undefined reference\n"));
  CHECK_THAT(text, !ContainsSubstring("no submission\n"));  // a lab not handed in is counted, not listed
  CHECK_THAT(text, !ContainsSubstring("not graded"));
  // Every lab has its row, graded or not, with who was refused, did not compile or link, or handed nothing in.
  CHECK_THAT(text, ContainsSubstring("  lab    graded      min   median      max       of  refused  compile     link "
                                     " missing\n"));
  CHECK_THAT(text, ContainsSubstring("  lab1        0        -        -        -       20        0        1        0 "
                                     "       1\n"));
  CHECK_THAT(text, ContainsSubstring("  lab2        0        -        -        -       20        1        0        0 "
                                     "       1\n"));
  CHECK_THAT(text, ContainsSubstring("  lab3        0        -        -        -       20        0        0        1 "
                                     "       1\n"));
  CHECK_THAT(text, ContainsSubstring("2 students graded in 36.0 s: 200 students per hour"));

  SECTION("a record of an older batch, without builds: one line with its error, split nowhere") {
    const json old = {{"students", {{{"student", "cy"}, {"results", nullptr},
                                     {"error", "lab1: " + refusal + "; lab3: no submission"}}}}};
    const auto legacy = batch::format_summary(old, 1, std::chrono::seconds(1));
    CHECK_THAT(legacy, ContainsSubstring("no submission 0, compile errors 0, refused 0, link errors 0, crashed or "
                                         "hung 0, not graded 1\n"));
    CHECK_THAT(legacy, ContainsSubstring("  cy: lab1: " + refusal + "; lab3: no submission\n"));
  }
}

TEST_CASE("a class graded on two GPU kinds says so: a partial solution's points depend on the kind", "[batch]") {
  const TempDir dir;
  // Per-student files as grade batch writes them, graded on the machines named; one was not graded at all.
  const auto student = [&](const std::string& name, const json& gpu) {
    json file = {{"schema", 1}, {"student", name}, {"error", nullptr},
                 {"runs", {{{"impl", "student"}, {"repeat", 1}, {"labs", json::array()}}}}};
    if (gpu.is_null()) file.erase("runs");
    else file["machine"] = {{"gpu", gpu}, {"sms", 132}};
    write_text(dir.path / (name + ".json"), file.dump());
  };
  student("amy", "NVIDIA H100 80GB HBM3");
  student("bob", "NVIDIA H200");
  student("cat", "NVIDIA H200");
  student("dan", nullptr);
  const auto mixed = batch::merge_class({dir.path}, "2026-11-27T00:00:00Z", "abc1234");
  CHECK_THAT(batch::format_summary(mixed, 3, std::chrono::seconds(3)),
             ContainsSubstring("graded on 2 GPU kinds: NVIDIA H100 80GB HBM3 (1 students), NVIDIA H200 (2 students); "
                               "a partial solution's performance points depend on the kind: grade a class on one "
                               "(docs/batch.md)\n"));

  fs::remove(dir.path / "amy.json");
  const auto one = batch::merge_class({dir.path}, "2026-11-27T00:00:00Z", "abc1234");
  CHECK_THAT(batch::format_summary(one, 2, std::chrono::seconds(2)), !ContainsSubstring("GPU kinds"));
}

TEST_CASE("grade batch grades a class: a good student, a compile error, a refusal, a missing lab, a hang",
          "[batch][slow]") {
  FakeClass c;
  c.student("alice/lab1.cu", "FAKE_LAB_MODE=good");
  c.student("bob/01_fake/student.cu", "SYNTAX_ERROR");
  c.student("carol/README.txt", "no lab here");
  c.student("dave/01_fake.cu", "FAKE_LAB_MODE=hang_check:copy");
  c.student("erin/lab1.cu", "FORBIDDEN");
  const auto r = run(c.args({"--jobs", "2"}), c.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);

  const auto alice = c.student_file("alice");
  CHECK(alice.at("student") == "alice");
  CHECK(alice.at("error").is_null());
  CHECK(alice.at("schema") == 1);
  CHECK(alice.at("commit") == "abc1234");
  CHECK(alice.at("runs").at(0).at("labs").at(0).at("score").get<double>() == 20.0);
  CHECK_THAT(c.student_file("bob").at("error").get<std::string>(),
             StartsWith("compile error: student.cu:3: error: expected ';'"));
  CHECK(c.student_file("carol").at("error") == "no submission");
  CHECK_THAT(c.student_file("erin").at("error").get<std::string>(), StartsWith("refused: calls 'cudaStreamCreate'"));
  const auto dave_lab = c.student_file("dave").at("runs").at(0).at("labs").at(0);
  const auto dave = dave_lab.at("exercises");
  CHECK(dave.at(0).at("status") == "timeout");
  CHECK(dave.at(1).at("status") == "ok");

  const auto class_file = json::parse(read_text(c.results / "class.json"));
  CHECK(class_file.at("kind") == "class");
  CHECK(names(class_file) == std::vector<std::string>{"alice", "bob", "carol", "dave", "erin"});
  CHECK(class_file.at("students").at(0).at("results").at("runs").is_array());
  CHECK_FALSE(class_file.at("students").at(0).at("results").contains("student"));
  CHECK(class_file.at("students").at(1).at("results").is_null());

  CHECK_THAT(r.out,
             ContainsSubstring("no submission 1, compile errors 1, refused 1, link errors 0, crashed or hung 1\n"));
  CHECK_THAT(r.out, !ContainsSubstring("not graded"));  // the refusal's "; see labs/..." is not a failure of its own
  CHECK_THAT(r.out, ContainsSubstring("  erin: lab1: refused: calls 'cudaStreamCreate' (rule 'streams': lab 01 allows "
                                      "no streams of your own; see labs/01_fake/README.md#rules)\n"));
  const json erin_builds = {{{"lab", 1}, {"outcome", "refused"}, {"max_score", 20.0},
                             {"message", "refused: calls 'cudaStreamCreate' (rule 'streams': lab 01 allows no streams "
                                         "of your own; see labs/01_fake/README.md#rules)"}}};
  CHECK(c.student_file("erin").at("builds") == erin_builds);
  CHECK(c.student_file("alice").at("builds").at(0).at("outcome") == "built");
  CHECK(class_file.at("students").at(4).at("builds") == c.student_file("erin").at("builds"));
  const double dave_score = dave_lab.at("score").get<double>();
  CHECK(dave_score < 20);
  // The graded students' scores, then the students whose lab 1 was refused, did not compile or link, or was missing.
  CHECK_THAT(r.out, ContainsSubstring(fmt::format("lab1        2 {:>8.2f} {:>8.2f}    20.00       20        1        1 "
                                                  "       0        1\n", dave_score, (dave_score + 20) / 2)));
  CHECK_THAT(r.out, ContainsSubstring("students per hour"));
  // Only the students that built were graded: one check run and one timed run, each of both exercises.
  const auto calls = c.calls();
  CHECK(calls.at("alice") == 2);
  CHECK(calls.count("bob") == 0);
  CHECK(calls.count("erin") == 0);
  CHECK_FALSE(fs::exists(c.results / "work" / "alice"));  // build folders go once the result is recorded
}

TEST_CASE("on two GPUs each worker grades on cores of its own (shared, with --share-cpus), and timed runs over the "
          "host link take turns",
          "[batch][slow]") {
  FakeClass c;
  c.use_host_link();
  for (const char* name : {"alice", "bob", "carol", "dave"})
    c.student(std::string(name) + "/lab1.cu", "FAKE_LAB_MODE=good");
  const auto spans_log = c.dir.path / "spans.log";
  auto env = c.env();
  env.emplace_back("FAKE_LAB_TIME_SPAN_LOG", spans_log.string());
  std::vector<std::string> args = {"--gpus", "0,1", "--jobs", "2"};
  bool shared = false;
  SECTION("cores of its own (the default)") {}
  SECTION("--share-cpus") {
    shared = true;
    args.emplace_back("--share-cpus");
  }
  const auto r = run(c.args(args), env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> gpus;
  for (const char* name : {"alice", "bob", "carol", "dave"}) {
    const auto file = c.student_file(name);
    CHECK(file.at("runs").at(0).at("labs").at(0).at("score").get<double>() == 20.0);
    gpus.insert(file.at("grading").at("gpu").get<std::string>());
    CHECK(file.at("grading").at("wall_s").get<double>() > 0.2);  // a timed run (both exercises) of 200 ms or more
  }
  CHECK(gpus == std::set<std::string>{"0", "1"});
  CHECK_THAT(r.out, ContainsSubstring("  GPU 0: "));
  CHECK_THAT(r.out, ContainsSubstring("  GPU 1: "));
  const auto class_file = json::parse(read_text(c.results / "class.json"));
  CHECK(class_file.at("students").at(0).contains("grading"));
  CHECK_FALSE(class_file.at("students").at(0).at("results").contains("grading"));

  // Every timed run (one a student, its two exercises together): none began before the one before it ended, though
  // two workers graded at once; and each GPU's runs ran on CPUs of their own.
  std::vector<std::pair<long long, long long>> spans;
  std::map<std::string, std::set<std::string>> cpus;  // GPU -> the CPU lists its timed runs had
  std::istringstream lines(read_text(spans_log));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    long long begin = 0, end = 0;
    std::string gpu, cpu_list;
    fields >> begin >> end >> gpu >> cpu_list;
    spans.emplace_back(begin, end);
    cpus[gpu.substr(4)].insert(cpu_list.substr(5));
  }
  REQUIRE(spans.size() == 4);
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second);
  REQUIRE(cpus.size() == 2);
  CHECK(cpus["0"].size() == 1);
  CHECK(cpus["1"].size() == 1);
  if (grader::allowed_cpus().size() >= 2) {
    const auto a = grader::parse_cpu_list(*cpus["0"].begin()), b = grader::parse_cpu_list(*cpus["1"].begin());
    std::vector<int> both;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
    CHECK_FALSE(a.empty());
    if (shared) {  // each the CPUs near its GPU, whole: where the topology is unknown (no GPU here), every one
      const auto pools =
          grader::near_cpus(grader::allowed_cpus(), {grader::cpus_near_gpu("0"), grader::cpus_near_gpu("1")});
      CHECK(a == pools[0]);
      CHECK(b == pools[1]);
    } else {
      CHECK(both.empty());
    }
  }
}

TEST_CASE("a worker times a lab over the host link after the others' check runs have timed them, claimed or not",
          "[batch][slow]") {
  FakeClass c;
  c.add_lab2();
  c.use_host_link("02_more");  // lab 2 crosses the host link, lab 1 does not
  c.student("alice/lab1.cu", "FAKE_LAB_MODE=good");
  c.student("alice/lab2.cu", "FAKE_LAB_MODE=good");
  // The labs in the order their `time` runs began, from the fake lab's log (each lab's binary is work/alice/labN/).
  const auto timed_order = [&] {
    std::vector<std::string> order;
    std::istringstream log(read_text(c.call_log));
    for (std::string line; std::getline(log, line);)
      if (line.find(" time ") != std::string::npos)
        for (const char* lab : {"lab1", "lab2"})
          if (line.find(std::string("/alice/") + lab + "/") != std::string::npos) order.emplace_back(lab);
    return order;
  };
  std::optional<grader::HostLock> claim;  // another worker's claim on the host link, held by this test
  // Lab 1's first timed runs come in its check run (`time --check-seeds`), before any step after the checks; lab 2's
  // own time run, with the host link's turns, after them, whether another worker has claimed the host link or not.
  SECTION("unclaimed") {}
  SECTION("claimed by another worker: the lab over the host link all the same") {
    fs::create_directories(c.results);
    claim.emplace(c.results / (grader::host_lock_name("host-link") + ".claim"), grader::HostLock::Wait::kNo);
    REQUIRE(claim->held());
  }
  const auto r = run(c.args(), c.env());
  const bool claimed = claim.has_value();
  claim.reset();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto labs = c.student_file("alice").at("runs").at(0).at("labs");
  REQUIRE(labs.size() == 2);  // results in lab order whatever order the labs ran in
  CHECK(labs.at(0).at("lab") == 1);
  CHECK(labs.at(1).at("lab") == 2);
  CHECK(labs.at(0).at("score").get<double>() == 20.0);
  CHECK(labs.at(1).at("score").get<double>() == 20.0);
  CAPTURE(claimed);
  CHECK(timed_order() == std::vector<std::string>{"lab1", "lab2"});
}

TEST_CASE("a class that handed in one lab of two is graded on that lab alone, unless --labs names the other",
          "[batch][slow]") {
  FakeClass c;
  c.add_lab2();
  c.student("alice/lab1.cu", "FAKE_LAB_MODE=good");
  c.student("erin/lab1.cu", "FORBIDDEN");
  SECTION("--labs all (the default): the labs someone handed in") {
    const auto r = run(c.args(), c.env());
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, ContainsSubstring("no student handed in lab2: not graded"));
    CHECK_THAT(r.out, ContainsSubstring("labs: lab1;"));
    CHECK(c.student_file("alice").at("runs").at(0).at("labs").size() == 1);
    CHECK(c.student_file("alice").at("builds").size() == 1);
    CHECK(c.student_file("alice").at("error").is_null());
    CHECK_THAT(c.student_file("erin").at("error").get<std::string>(), !ContainsSubstring("lab2"));
    CHECK_THAT(r.out, ContainsSubstring("no submission 0, compile errors 0, refused 1,"));
    CHECK_THAT(r.out, !ContainsSubstring("lab2"));
  }
  SECTION("--labs lab1,lab2: lab 2 too, counted as not handed in, listed for nobody") {
    const auto r = run(c.args({"--labs", "lab1,lab2"}), c.env());
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(c.student_file("alice").at("runs").at(0).at("labs").size() == 2);
    CHECK(c.student_file("alice").at("error") == "lab2: no submission");
    CHECK_THAT(r.out, ContainsSubstring("no submission 2, compile errors 0, refused 1,"));
    CHECK_THAT(r.out, ContainsSubstring("  lab2        0        -        -        -       20        0        0 "
                                        "       0        2\n"));
    const auto summary = r.out.substr(r.out.find("class summary"));
    CHECK_THAT(summary, ContainsSubstring("  erin: lab1: refused: calls 'cudaStreamCreate'"));
    CHECK_THAT(summary, !ContainsSubstring("no submission\n"));
  }
}

TEST_CASE("grade batch --sanitize runs compute-sanitizer on each student's build, and a finding is memory-error",
          "[batch][slow]") {
  FakeClass c;
  c.student("alice/lab1.cu", "FAKE_LAB_MODE=good");
  // A stand-in compute-sanitizer that logs its command line and reports a memcheck finding.
  const auto tool = c.dir.path / "compute-sanitizer";
  const auto log = c.dir.path / "sanitizer.log";
  write_text(tool, "#!/bin/sh\necho \"$@\" >> '" + log.string() + "'\n"
                   "if [ \"$2\" = memcheck ]; then echo '========= Invalid __shared__ write of size 4 bytes'; "
                   "echo '========= ERROR SUMMARY: 1 error'; exit 86; fi\necho '========= ERROR SUMMARY: 0 errors'\n");
  fs::permissions(tool, fs::perms::owner_all);
  const auto r = run(c.args({"--sanitizer", tool.string()}), c.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto copy = c.student_file("alice").at("runs").at(0).at("labs").at(0).at("exercises").at(0);
  CHECK(copy.at("status") == "memory-error");
  CHECK(copy.at("performance_points") == 0);
  CHECK(copy.at("sanitized") == json::array({"memcheck: Invalid __shared__ write of size 4 bytes"}));
  // The tool ran around the student's own runner, of the lab built in the student's work folder.
  CHECK_THAT(read_text(log), ContainsSubstring("/work/alice/"));
  CHECK_THAT(read_text(log), ContainsSubstring("/runners/lab1-student --exercise copy"));

  // With --no-sanitize nothing runs under the tool, even one named.
  FakeClass plain;
  plain.student("bob/lab1.cu", "FAKE_LAB_MODE=good");
  fs::remove(log);
  REQUIRE(run(plain.args({"--sanitizer", tool.string(), "--no-sanitize"}), plain.env()).exit_code == 0);
  CHECK_FALSE(fs::exists(log));
  CHECK(plain.student_file("bob").at("runs").at(0).at("labs").at(0).at("exercises").at(0).at("status") == "ok");
}

TEST_CASE("on two GPUs the workers' sanitizer runs take turns: no two workers' runs overlap", "[batch][slow]") {
  FakeClass c;
  for (const char* name : {"alice", "bob", "carol", "dave"})
    c.student(std::string(name) + "/lab1.cu", "FAKE_LAB_MODE=good");
  // A clean stand-in compute-sanitizer that takes 0.4 s and logs "<start ns> <end ns> <its GPU>".
  const auto tool = c.dir.path / "compute-sanitizer";
  const auto log = c.dir.path / "sanitizer-spans.log";
  write_text(tool, "#!/bin/sh\nstart=$(date +%s%N); sleep 0.4\n"
                   "echo \"$start $(date +%s%N) $CUDA_VISIBLE_DEVICES\" >> '" + log.string() + "'\n"
                   "echo '========= ERROR SUMMARY: 0 errors'\n");
  fs::permissions(tool, fs::perms::owner_all);
  const auto r = run(c.args({"--gpus", "0,1", "--jobs", "4", "--sanitizer", tool.string()}), c.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  struct Span {
    long long begin = 0, end = 0;
    std::string gpu;
  };
  std::vector<Span> spans;
  std::istringstream lines(read_text(log));
  for (std::string line; std::getline(lines, line);) {
    Span s;
    std::istringstream(line) >> s.begin >> s.end >> s.gpu;
    spans.push_back(s);
  }
  // Two tools a student, tool after tool in one lab-wide run; between workers never at once.
  REQUIRE(spans.size() == 8);
  std::set<std::string> gpus;
  for (const Span& a : spans) {
    gpus.insert(a.gpu);
    for (const Span& b : spans)
      if (a.gpu != b.gpu) CHECK((a.end <= b.begin || b.end <= a.begin));
  }
  CHECK(gpus == std::set<std::string>{"0", "1"});
  for (const char* name : {"alice", "bob", "carol", "dave"})
    CHECK(c.student_file(name).at("runs").at(0).at("labs").at(0).at("score").get<double>() == 20.0);

  // Each record says when its steps ran on the host's monotonic clock, in order: the checks, the sanitizer runs
  // (which hold the spans the tool logged), the lab's own step, which a worker that found the turn another's began
  // while it waited (its first timed runs: a span of its own before the sanitizer's). Two workers' sanitizer steps
  // never overlap either.
  std::vector<std::pair<double, double>> sanitizer_steps;
  for (const char* name : {"alice", "bob", "carol", "dave"}) {
    const json steps = c.student_file(name).at("grading").at("steps");
    INFO(name << ": " << steps.dump());
    const auto from = [&](const json& span) { return span.at(0).get<double>(); };
    const auto to = [&](const json& span) { return span.at(1).get<double>(); };
    CHECK(from(steps.at("checks")) > 0);
    CHECK(from(steps.at("checks")) <= to(steps.at("checks")));
    CHECK(to(steps.at("checks")) <= from(steps.at("sanitizer")));
    CHECK(to(steps.at("sanitizer")) - from(steps.at("sanitizer")) >= 0.8);  // the tool's two runs, in turn
    const json& labs = steps.at("labs");
    REQUIRE((labs.size() == 1 || labs.size() == 2));
    for (const json& lab : labs) CHECK(lab.at("lab") == 1);
    if (labs.size() == 2) CHECK(to(labs.at(0).at("span")) <= from(steps.at("sanitizer")));
    CHECK(to(steps.at("sanitizer")) <= from(labs.back().at("span")));
    sanitizer_steps.emplace_back(from(steps.at("sanitizer")), to(steps.at("sanitizer")));
  }
  double sanitizer_s = 0;  // a student's seconds in its sanitizer step, on average
  for (const auto& [from, to] : sanitizer_steps) sanitizer_s += to - from;
  sanitizer_s /= static_cast<double>(sanitizer_steps.size());
  int overlapping = 0;
  for (std::size_t i = 0; i < sanitizer_steps.size(); ++i)
    for (std::size_t j = i + 1; j < sanitizer_steps.size(); ++j)
      overlapping += sanitizer_steps[i].second > sanitizer_steps[j].first &&
                     sanitizer_steps[j].second > sanitizer_steps[i].first;
  CHECK(overlapping == 0);

  // scripts/class_timeline.py reads the same from the class file: no second of two workers' sanitizer steps at once.
  const auto timeline = run({"python3", std::string(COURSE_SOURCE_DIR) + "/scripts/class_timeline.py",
                             (c.results / "class.json").string()});
  INFO(timeline.out << timeline.err);
  CHECK(timeline.exit_code == 0);
  CHECK_THAT(timeline.out, ContainsSubstring(": 2 worker(s); seconds with two or more workers in the step at once"));
  CHECK_THAT(timeline.out, ContainsSubstring("\n  sanitizer       0.0 / "));
  CHECK_THAT(timeline.out, ContainsSubstring("\n  lab1 "));
  // And a student's seconds in each kind of step: the sanitizer's, as the records say.
  const auto line = timeline.out.find("\n  sanitizer ");
  REQUIRE(line != std::string::npos);
  const auto each = timeline.out.find("), ", line);
  REQUIRE(each != std::string::npos);
  CHECK_THAT(timeline.out.substr(each, timeline.out.find('\n', each + 1) - each), EndsWith(" s a student"));
  CHECK(std::abs(std::stod(timeline.out.substr(each + 3)) - sanitizer_s) < 0.01);
}

TEST_CASE("a worker's first timed runs come in its check runs, before the host's sanitizer turn, free or another's; "
          "the lab over the host link while the turn is another's, where its claim is free",
          "[batch][slow]") {
  FakeClass c;
  c.add_lab2();
  c.use_host_link("02_more");  // lab 2 crosses the host link: timed in its own run, with its claim while waiting
  c.student("alice/lab1.cu", "FAKE_LAB_MODE=good");
  c.student("alice/lab2.cu", "FAKE_LAB_MODE=good");
  // A stand-in compute-sanitizer that writes "sanitizer TOOL" into the fake lab's call log, so that the log holds every
  // check, time and sanitizer run in the order they began; it finds an invalid write where `finds` is set.
  const auto tool = c.dir.path / "compute-sanitizer";
  const auto write_tool = [&](bool finds) {
    write_text(tool, "#!/bin/sh\necho \"sanitizer $2\" >> '" + c.call_log.string() + "'\n" +
                         (finds ? "if [ \"$2\" = memcheck ]; then echo '========= Invalid __global__ write of size 4 "
                                  "bytes'; echo '========= ERROR SUMMARY: 1 error'; exit 86; fi\n"
                                : "") +
                         "echo '========= ERROR SUMMARY: 0 errors'\n");
    fs::permissions(tool, fs::perms::owner_all);
  };
  // The batch with that tool, where `held` with another worker's turn (this host's sanitizer lock, held by the test
  // for the batch's first 3 s) and where `claimed` with another worker's claim on the host link (held throughout):
  // its seconds, and what it and the fake lab wrote, for the checks' messages.
  struct Graded {
    double took = 0;
    std::string said;
  };
  const auto grade = [&](bool finds, bool held, bool claimed = false) {
    write_tool(finds);
    std::optional<grader::HostLock> turn, claim;
    std::thread release;
    fs::create_directories(c.results);
    if (claimed) {
      claim.emplace(c.results / (grader::host_lock_name("host-link") + ".claim"), grader::HostLock::Wait::kNo);
      REQUIRE(claim->held());
    }
    if (held) {
      turn.emplace(c.results / grader::host_lock_name("sanitizer"), grader::HostLock::Wait::kNo);
      REQUIRE(turn->held());
      release = std::thread([&turn] {
        std::this_thread::sleep_for(std::chrono::seconds(3));
        turn.reset();
      });
    }
    const auto started = std::chrono::steady_clock::now();
    const auto r = run(c.args({"--sanitizer", tool.string()}), c.env());
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (release.joinable()) release.join();
    const Graded g{took, r.out + r.err + read_text(c.call_log)};
    INFO(g.said);
    REQUIRE(r.exit_code == 0);
    return g;
  };
  // Where in the log each kind of run first began: "sanitizer", "time lab1", "time lab2" (absent: never).
  const auto first_lines = [&] {
    std::map<std::string, std::size_t> first;
    std::istringstream log(read_text(c.call_log));
    std::size_t n = 0;
    for (std::string line; std::getline(log, line); ++n) {
      std::string kind;
      if (line.rfind("sanitizer ", 0) == 0) kind = "sanitizer";
      for (const char* lab : {"lab1", "lab2"})
        if (line.find(" time ") != std::string::npos &&
            line.find(std::string("/alice/") + lab + "/") != std::string::npos)
          kind = std::string("time ") + lab;
      if (!kind.empty()) first.emplace(kind, n);
    }
    return first;
  };
  const auto labs = [&] { return c.student_file("alice").at("runs").at(0).at("labs"); };
  const auto lab_spans = [&](int lab) {
    std::vector<std::pair<double, double>> spans;
    const json file = c.student_file("alice");  // kept alive: the loop walks a part of it
    for (const json& l : file.at("grading").at("steps").at("labs"))
      if (l.at("lab") == lab) spans.emplace_back(l.at("span").at(0).get<double>(), l.at("span").at(1).get<double>());
    return spans;
  };
  // What scripts/class_phases.py makes of the class file: a student's seconds of timed runs made instead of waiting.
  const auto timed_while_waiting = [&] {
    const auto phases = run({"python3", std::string(COURSE_SOURCE_DIR) + "/scripts/class_phases.py",
                             (c.results / "class.json").string()});
    INFO(phases.out << phases.err);
    REQUIRE(phases.exit_code == 0);
    const auto at = phases.out.find("timed while waiting");
    REQUIRE(at != std::string::npos);
    return std::stod(phases.out.substr(at + std::string("timed while waiting").size()));
  };
  const auto sanitizer_step = [&] {
    const json span = c.student_file("alice").at("grading").at("steps").at("sanitizer");
    return std::pair{span.at(0).get<double>(), span.at(1).get<double>()};
  };

  SECTION("the turn free: lab 1 timed in its check run, then the sanitizer runs, then lab 2 (host link)") {
    INFO(grade(false, false).said);
    const auto first = first_lines();
    REQUIRE(first.size() == 3);
    CHECK(first.at("time lab1") < first.at("sanitizer"));
    CHECK(first.at("sanitizer") < first.at("time lab2"));
    CHECK(lab_spans(1).size() == 1);
    CHECK(labs().at(0).at("sanitizer_wait_s").get<double>() < 1.0);
    CHECK(timed_while_waiting() == 0.0);
  }
  SECTION("the turn another's: lab 1 timed in its check run, lab 2 (host link, its claim free) timed while "
          "waiting; the wait recorded") {
    const auto [took, said] = grade(false, true);
    INFO(said);
    const auto first = first_lines();
    REQUIRE(first.size() == 3);
    CHECK(first.at("time lab1") < first.at("time lab2"));
    CHECK(first.at("time lab2") < first.at("sanitizer"));
    for (int i : {0, 1}) CHECK(labs().at(i).at("score").get<double>() == 20.0);
    const double waited = labs().at(0).at("sanitizer_wait_s").get<double>();
    CHECK(waited > 1.0);  // lab 1's checks and timed runs and lab 2's timed runs end well within the 3 s
    CHECK(waited < took);
    CHECK(took >= 3.0);
    // Lab 2's first timed runs in a step before the sanitizer's, the rest of it after; lab 1's one step after.
    const auto [sanitizer_from, sanitizer_to] = sanitizer_step();
    const auto one = lab_spans(1), two = lab_spans(2);
    REQUIRE(one.size() == 1);
    CHECK(one[0].first >= sanitizer_to);
    REQUIRE(two.size() == 2);
    CHECK(two[0].second <= sanitizer_from);
    CHECK(two[1].first >= sanitizer_to);
  }
  SECTION("the turn another's and the host link claimed by another: lab 2 (host link) after the sanitizer") {
    const auto [took, said] = grade(false, true, true);
    INFO(said);
    const auto first = first_lines();
    REQUIRE(first.size() == 3);
    CHECK(first.at("time lab1") < first.at("sanitizer"));
    CHECK(first.at("sanitizer") < first.at("time lab2"));
    for (int i : {0, 1}) CHECK(labs().at(i).at("score").get<double>() == 20.0);
    CHECK(labs().at(0).at("sanitizer_wait_s").get<double>() > 1.0);  // nothing to time while waiting
    CHECK(took >= 3.0);
    const auto [sanitizer_from, sanitizer_to] = sanitizer_step();
    const auto two = lab_spans(2);
    REQUIRE(two.size() == 1);
    CHECK(two[0].first >= sanitizer_to);
    CHECK(timed_while_waiting() == 0.0);
  }
  SECTION("the turn another's and memcheck finding an invalid write: neither lab's timed run earns anything") {
    INFO(grade(true, true).said);
    const auto first = first_lines();
    CHECK(first.at("time lab1") < first.at("sanitizer"));
    CHECK(first.at("time lab2") < first.at("sanitizer"));  // timed while waiting, then stopped by the finding
    const json graded = labs();  // kept alive: the loop walks a part of it
    int exercises = 0;
    for (int i : {0, 1})
      for (const json& x : graded.at(i).at("exercises")) {
        ++exercises;
        INFO("lab " << i + 1 << " " << x.dump());
        CHECK(x.at("status") == "memory-error");
        CHECK(x.at("performance_points") == 0);
        CHECK(x.at("timed_runs") == 0);  // each lab's run was made, and not read
        CHECK(x.at("correctness_points").get<double>() == x.at("correctness_max").get<double>());
      }
    CHECK(exercises == 4);
  }
}

TEST_CASE("grade batch sanitizes by default with the compute-sanitizer it finds, and not with --no-sanitize",
          "[batch][slow]") {
  FakeClass c;
  c.student("alice/lab1.cu", "FAKE_LAB_MODE=good");
  // A clean stand-in compute-sanitizer, first on PATH, that logs its command line.
  const auto tool = c.dir.path / "tools" / "compute-sanitizer";
  const auto log = c.dir.path / "sanitizer.log";
  write_text(tool, "#!/bin/sh\necho \"$@\" >> '" + log.string() + "'\necho '========= ERROR SUMMARY: 0 errors'\n");
  fs::permissions(tool, fs::perms::owner_all);
  const char* path = std::getenv("PATH");
  auto env = c.env();
  env.emplace_back("PATH", tool.parent_path().string() + ":" + (path ? path : "/usr/bin:/bin"));
  const auto copy = [&] { return c.student_file("alice").at("runs").at(0).at("labs").at(0).at("exercises").at(0); };

  auto argv = c.args({"--no-sanitize"});
  auto r = run(argv, env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(copy().at("status") == "ok");
  CHECK_FALSE(fs::exists(log));
  CHECK(copy().at("sanitized").empty());

  fs::remove_all(c.results);
  argv.pop_back();  // the default: no option about the sanitizer at all
  CHECK(std::find(argv.begin(), argv.end(), "--no-sanitize") == argv.end());
  r = run(argv, env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(copy().at("sanitized") == json::array({"memcheck: clean", "racecheck: clean"}));
  CHECK_THAT(read_text(log), ContainsSubstring("/runners/lab1-student --exercise copy"));
}

TEST_CASE("a batch killed with kill -9 and started again loses nothing and grades nobody twice", "[batch][slow]") {
  FakeClass c("0.4");
  for (const char* name : {"s1", "s2", "s3", "s4", "s5", "s6"}) c.student(std::string(name) + "/lab1.cu", "good");
  auto argv = c.args({"--jobs", "1"});
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  ::setenv("FAKE_LAB_CALL_LOG", c.call_log.c_str(), 1);
  pid_t pid = 0;
  REQUIRE(::posix_spawn(&pid, GRADE_EXE, nullptr, nullptr, raw.data(), environ) == 0);
  const auto recorded = [&] {
    std::set<std::string> names;
    if (fs::exists(c.results / "students"))
      for (const auto& e : fs::directory_iterator(c.results / "students"))
        if (e.path().extension() == ".json" && e.path().filename().string()[0] != '.')
          names.insert(e.path().stem().string());
    return names;
  };
  for (int i = 0; i < 1000 && recorded().size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // its workers die with it (PR_SET_PDEATHSIG)
  const auto before = recorded();
  const auto calls_before = c.calls();
  REQUIRE(before.size() >= 2);
  REQUIRE(before.size() < 6);  // killed mid-way
  std::map<std::string, std::string> files_before;
  for (const auto& name : before) files_before[name] = read_text(c.results / "students" / (name + ".json"));

  const auto r = run(c.args({"--jobs", "1"}), c.env());
  ::unsetenv("FAKE_LAB_CALL_LOG");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring(fmt::format("{} recorded before, {} to grade", before.size(), 6 - before.size())));
  CHECK(recorded().size() == 6);
  const auto calls_after = c.calls();
  for (const auto& name : before) {
    CAPTURE(name);
    CHECK(read_text(c.results / "students" / (name + ".json")) == files_before[name]);
    CHECK(calls_after.at(name) == calls_before.at(name));  // not graded again
    CHECK(calls_after.at(name) == 2);  // the lab's check run and its timed run
  }
  for (const char* name : {"s1", "s2", "s3", "s4", "s5", "s6"})
    if (before.count(name) == 0 && calls_before.count(name) == 0) CHECK(calls_after.at(name) == 2);
  CHECK(names(json::parse(read_text(c.results / "class.json"))).size() == 6);
}

TEST_CASE("grade merge combines the shards of several machines into one class file sorted by student",
          "[batch][slow]") {
  FakeClass c;
  for (const char* name : {"eve", "bob", "dan", "amy", "cat"}) c.student(std::string(name) + "/lab1.cu", "good");
  const auto a = run(c.args({"--shard", "0/2"}, c.dir.path / "a"), c.env());
  const auto b = run(c.args({"--shard", "1/2"}, c.dir.path / "b"), c.env());
  INFO(a.out << a.err << b.out << b.err);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK_FALSE(fs::exists(c.dir.path / "a" / "class.json"));  // a shard leaves the class file to the merge
  CHECK(fs::exists(c.dir.path / "a" / "students" / "amy.json"));
  CHECK(fs::exists(c.dir.path / "a" / "students" / "cat.json"));
  CHECK(fs::exists(c.dir.path / "b" / "students" / "bob.json"));

  const auto out = c.dir.path / "class.json";
  const auto m = run({GRADE_EXE, "merge", (c.dir.path / "a").string(), (c.dir.path / "b" / "students").string(),
                      "--output", out.string()});
  INFO(m.out << m.err);
  REQUIRE(m.exit_code == 0);
  const auto merged = json::parse(read_text(out));
  CHECK(merged.at("schema") == 1);
  CHECK(merged.at("kind") == "class");
  CHECK(merged.at("commit") == "abc1234");
  CHECK(merged.contains("date"));
  CHECK(names(merged) == std::vector<std::string>{"amy", "bob", "cat", "dan", "eve"});
  for (const json& row : merged.at("students")) CHECK(row.at("error").is_null());

  // A class file is an input too; a student in two inputs is an error, not a silent choice.
  const auto again = run({GRADE_EXE, "merge", out.string(), (c.dir.path / "a").string(), "--output",
                          (c.dir.path / "twice.json").string()});
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.err, ContainsSubstring("student 'amy' is in more than one input"));
}

TEST_CASE("grade batch --slurm writes a job array of shards on one GPU each and a merge job after them", "[batch]") {
  FakeClass c;
  c.student("amy/lab1.cu", "good");
  const auto r = run(c.args({"--slurm", "--array-size", "3", "--partition", "gpu"}));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto script = read_text(c.results / "slurm" / "batch.sbatch");
  CHECK_THAT(script, ContainsSubstring("#SBATCH --array=0-2\n"));
  CHECK_THAT(script, ContainsSubstring("#SBATCH --gres=gpu:1\n"));
  CHECK_THAT(script, ContainsSubstring("#SBATCH --partition=gpu\n"));
  CHECK_THAT(script, ContainsSubstring("--shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\""));
  CHECK_THAT(script, ContainsSubstring("'--check-timeout' '2'"));
  CHECK_THAT(script, !ContainsSubstring("--array-size"));
  CHECK_THAT(read_text(c.results / "slurm" / "merge.sbatch"),
             ContainsSubstring("' merge '" + c.results.string() + "' --output '" + c.results.string() + "/class.json'"));
  CHECK_THAT(r.out, ContainsSubstring("sbatch --dependency=afterany:"));
  CHECK_FALSE(fs::exists(c.results / "students"));  // nothing graded here
}

namespace {

// Builds lab N's stub by the recipe CMake wrote (build/submission/labN.json) into a runner and asks the private lab
// binary to list its implementations (no GPU needed): the student's must have the stub's exercises.
void build_stub_by_recipe(int lab, const std::string& id) {
  const fs::path bin = COURSE_BIN_DIR;
  const fs::path recipe_file = bin / "submission" / fmt::format("lab{}.json", lab);
  if (!fs::exists(recipe_file) || !fs::exists(bin / fmt::format("lab{}", lab)))
    SKIP(fmt::format("lab {} is not configured and built here (make lab{})", lab, lab));
  const auto recipe = batch::load_recipe(recipe_file);
  CHECK(recipe.id == id);
  // Every file the commands name exists (objects, libraries, tools) once the lab is built.
  for (const auto* argv : {&recipe.compile, &recipe.check, &recipe.link})
    for (const auto& arg : *argv)
      if (!arg.empty() && arg[0] == '/') {
        CAPTURE(arg);
        CHECK(fs::exists(arg));
      }
  TempDir dir;
  const auto built = batch::build_submission(recipe, fs::path(COURSE_LABS_DIR) / id / "stub.cu", dir.path / "lab", 600);
  INFO(built.message);
  REQUIRE(built.kind == batch::BuildOutcome::Kind::kBuilt);
  const auto list = run({(built.bin_dir / fmt::format("lab{}", lab)).string(), "list"});
  INFO(list.out << list.err);
  REQUIRE(list.exit_code == 0);
  const auto j = json::parse(list.out);
  CHECK(j.at("implementations").at("student") == j.at("implementations").at("baseline"));
  CHECK(j.at("implementations").contains("reference"));

  write_text(dir.path / "broken.cu", "int f() { return x; }\n");
  const auto broken = batch::build_submission(recipe, dir.path / "broken.cu", dir.path / "broken", 600);
  CHECK(broken.kind == batch::BuildOutcome::Kind::kCompileError);
  CHECK_THAT(broken.message, StartsWith("compile error: broken.cu(1): error: identifier \"x\" is undefined"));
}

}  // namespace

TEST_CASE("the recipe CMake writes for lab 1 builds the stub into a runner that lab1 lists", "[batch][slow]") {
  build_stub_by_recipe(1, "01_coalescing");
}

TEST_CASE("the recipe CMake writes for lab 7 builds the stub into a runner that lab7 lists", "[batch][slow]") {
  build_stub_by_recipe(7, "07_streams");
}

TEST_CASE("a student's compile reaches nothing of the course or of the class: not by #include, not by .incbin",
          "[batch][slow]") {
  const fs::path bin = COURSE_BIN_DIR;
  const fs::path recipe_file = bin / "submission" / "lab1.json";
  if (!fs::exists(recipe_file) || !fs::exists(bin / "lab1")) SKIP("lab 1 is not configured and built here (make lab1)");
  const auto recipe = batch::load_recipe(recipe_file);
  const fs::path course = fs::path(COURSE_LABS_DIR).parent_path();
  const std::string solution = (course / "solutions" / "01_coalescing" / "solution.cu").string();
  const std::string stub = read_text(course / "labs" / "01_coalescing" / "stub.cu");
  TempDir dir;
  const auto build = [&](const std::string& student, const std::string& text) {
    write_text(dir.path / "submissions" / student / "lab1.cu", text);
    return batch::build_submission(recipe, dir.path / "submissions" / student / "lab1.cu", dir.path / student, 600);
  };
  write_text(dir.path / "submissions" / "bob" / "lab1.cu", stub);
  // A classmate's file beside this one: the compile takes a copy alone in a folder of its own.
  const auto sibling = build("eve", "#include \"../bob/lab1.cu\"\n");
  CHECK(sibling.kind == batch::BuildOutcome::Kind::kCompileError);
  CHECK_THAT(sibling.message, ContainsSubstring("No such file"));
  // The course's solution by its full path: out of the confined compile's reach, else refused by name.
  const auto included = build("mallory", "#include \"" + solution + "\"\n");
  INFO(included.message);
  CHECK((included.kind == batch::BuildOutcome::Kind::kCompileError ||
         included.kind == batch::BuildOutcome::Kind::kRefused));
  CHECK_THAT(included.message, ContainsSubstring("Permission denied") || ContainsSubstring("rule 'includes'"));
  // The same file pulled in by the assembler, where no #include shows it: only the confined compile stops that.
  if (grader::Ruleset({}, {}).abi() == 0) SKIP("this kernel has no Landlock: the compile is not confined here");
  CHECK(included.kind == batch::BuildOutcome::Kind::kCompileError);
  const auto embedded = build("trudy", stub + "\nasm(\".section .rodata\\n.incbin \\\"" + solution + "\\\"\\n.text\");\n");
  INFO(embedded.message);
  CHECK(embedded.kind == batch::BuildOutcome::Kind::kCompileError);
}
