// `grade export` end to end: results files come from the real `grade` grading the fake lab (tests/fakes), and every
// export is read back by a real consumer: the Gradescope output against a JSON schema written from Gradescope's
// specification (tests/grader/data), the JUnit XML by xmllint against a JUnit XSD, the CSV by python3's csv module.
// xmllint (libxml2-utils) and python3 are test requirements (.ci/run installs them): a missing one fails, not skips.
// The Gradescope export's text is also rendered in headless Chromium (CI installs Debian's chromium); where none was
// found at configure, that test SKIPs.

#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fmt/format.h>

#include "grader/export.hpp"
#include "json_schema.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using grader_test::read_text;
using grader_test::run_grade;
using grader_test::schema_problems;
using grader_test::TempDir;
using grader_test::write_text;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kData = GRADER_TEST_DATA_DIR;

// Grades the fake lab with FAKE_LAB_MODE `mode` (plus `args`) and returns the results file, saved as `name`.
json graded(const TempDir& dir, const std::string& mode, const std::string& name, std::vector<std::string> args = {}) {
  args.insert(args.begin(), "lab1");
  const auto run = run_grade(dir, args, {{"FAKE_LAB_MODE", mode}});
  INFO(run.process.out << run.process.err);
  REQUIRE(run.results.is_object());
  write_text(dir.path / name, run.results.dump(2));
  return run.results;
}

grader::ProcessResult export_command(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "export");
  return run_grade(dir, args, {}, true).process;
}

grader::ProcessResult tool(std::vector<std::string> argv) {
  grader::ProcessOptions options;
  options.argv = std::move(argv);
  options.timeout_s = 60;
  const auto run = grader::run_process(options);
  // CI installs both (.ci/run); a machine without them (the lent GPU machine has no xmllint) cannot run the consumer.
  if (!run.started) SKIP("install " << options.argv[0] << " (libxml2-utils / python3) to read the export back: " << run.error);
  return run;
}

// A class file as `grade batch` writes it.
json class_file(std::vector<std::pair<std::string, json>> results,
                std::vector<std::pair<std::string, std::string>> errors) {
  json students = json::array();
  for (auto& [name, r] : results) students.push_back({{"student", name}, {"results", r}, {"error", nullptr}});
  for (auto& [name, e] : errors) students.push_back({{"student", name}, {"results", nullptr}, {"error", e}});
  return {{"schema", 1}, {"kind", "class"}, {"date", "2026-01-31T12:00:00Z"}, {"commit", "c0ffee0"},
          {"students", students}};
}

const json& lab1(const json& results, std::size_t run = 0) { return results.at("runs").at(run).at("labs").at(0); }

// A lab as `grade batch` records one it could not build (batch_worker.cpp): lab1's exercises at no-binary, no points,
// `why` as the lab's and each exercise's message.
json unbuilt_lab(const json& graded_lab, int number, const std::string& why) {
  json lab = graded_lab;
  lab["lab"] = number;
  lab["built"] = false;
  lab["message"] = why;
  lab["score"] = 0.0;
  for (auto& x : lab["exercises"]) {
    x["status"] = "no-binary";
    x["message"] = why;
    for (const char* key : {"score", "correctness_points", "performance_points", "perf_fraction"}) x[key] = 0.0;
    x["tests_passed"] = 0;
  }
  return lab;
}

// A class file's row as `grade batch` writes it, with its builds: {lab, outcome, message} (each lab worth 20 points).
json batch_row(const std::string& name, json results, json error,
               std::vector<std::tuple<int, std::string, std::string>> builds) {
  json b = json::array();
  for (auto& [lab, outcome, message] : builds)
    b.push_back({{"lab", lab}, {"outcome", outcome}, {"message", message}, {"max_score", 20.0}});
  return {{"student", name}, {"results", std::move(results)}, {"error", std::move(error)}, {"builds", std::move(b)}};
}

json class_of(json rows) {
  return {{"schema", 1}, {"kind", "class"}, {"date", "2026-01-31T12:00:00Z"}, {"commit", "c0ffee0"},
          {"students", std::move(rows)}};
}

std::string xpath(const fs::path& file, const std::string& expression) {
  const auto run = tool({"xmllint", "--xpath", expression, file.string()});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  // xmllint ends what it prints with a newline (bookworm's 2.9.14); no value tested here ends with one.
  return !run.out.empty() && run.out.back() == '\n' ? run.out.substr(0, run.out.size() - 1) : run.out;
}

// `grade export --format junit` of dir/class.json into dir/class.xml, which must be valid against Jenkins' schema.
fs::path junit_export(const TempDir& dir) {
  const auto xml = dir.path / "class.xml";
  const auto run = export_command(dir, {(dir.path / "class.json").string(), "--format", "junit", "--output",
                                        xml.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto valid = tool({"xmllint", "--noout", "--schema", (kData / "junit.xsd").string(), xml.string()});
  INFO(valid.err << read_text(xml));
  REQUIRE(valid.exit_code == 0);
  return xml;
}

// A CSV file as python's csv module reads it: a list of rows of fields.
json read_csv(const fs::path& csv) {
  const auto read = tool({"python3", "-c",
                          "import csv, json, sys\n"
                          "print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                          csv.string()});
  INFO(read.err << read_text(csv));
  REQUIRE(read.exit_code == 0);
  return json::parse(read.out);
}

}  // namespace

TEST_CASE("a Gradescope export of a graded lab follows Gradescope's results.json specification", "[grader][export]") {
  const TempDir dir;
  const auto results = graded(dir, "wrong:gemm", "results-alice.json");
  const auto out = dir.path / "gradescope" / "results.json";
  const auto run = export_command(dir, {(dir.path / "results-alice.json").string(), "--format", "gradescope",
                                        "--output", out.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto gs = json::parse(read_text(out));
  const auto problems = schema_problems(gs, json::parse(read_text(kData / "gradescope-results.schema.json")));
  CAPTURE(problems, gs.dump(2));
  CHECK(problems.empty());

  CHECK_THAT(gs["score"].get<double>(), WithinAbs(lab1(results)["score"].get<double>(), 1e-9));
  CHECK(gs["score"].get<double>() < 20);  // gemm failed: not full marks
  REQUIRE(gs["tests"].size() == 2);
  const auto& copy = gs["tests"][0];
  CHECK(copy["name"] == "lab1 copy");
  CHECK(copy["status"] == "passed");
  CHECK(copy["score"] == 10.0);
  CHECK(copy["max_score"] == 10.0);
  CHECK_THAT(copy["output"].get<std::string>(), ContainsSubstring("status: ok"));
  CHECK_THAT(copy["output"].get<std::string>(), ContainsSubstring("median ms: student 1.020, reference 1.000"));
  CHECK_THAT(copy["output"].get<std::string>(), ContainsSubstring("% of the ceiling (device-to-device copy)"));
  const auto& gemm = gs["tests"][1];
  const auto& graded_gemm = grader_test::exercise(results, "gemm");
  CHECK(gemm["name"] == "lab1 gemm");
  CHECK(gemm["status"] == "failed");
  CHECK(gemm["score"] == graded_gemm["score"]);
  CHECK_THAT(gemm["output"].get<std::string>(), ContainsSubstring("status: wrong"));
  CHECK_THAT(gemm["output"].get<std::string>(),
             ContainsSubstring("first failure: " + graded_gemm["message"].get<std::string>()));
}

TEST_CASE("the Gradescope schema check rejects results Gradescope would not read", "[grader][export]") {
  const TempDir dir;
  const auto results = graded(dir, "good", "results.json");
  const auto valid = grader::gradescope_results(grader::read_gradebook(results).students.at(0));
  const auto schema = json::parse(read_text(kData / "gradescope-results.schema.json"));
  REQUIRE(schema_problems(valid, schema).empty());

  auto broken = valid;
  SECTION("no top-level score") { broken.erase("score"); }
  SECTION("a status Gradescope does not know") { broken["tests"][0]["status"] = "ok"; }
  SECTION("a score that is text") { broken["tests"][1]["score"] = "10"; }
  SECTION("a misspelt key") { broken["tests"][0]["max_scroe"] = 10; }
  SECTION("a test without its output") { broken["tests"][1].erase("output"); }
  SECTION("an output Gradescope would render as HTML") { broken.erase("output_format"); }
  SECTION("a test's output Gradescope would render as HTML") { broken["tests"][0].erase("output_format"); }
  CHECK_FALSE(schema_problems(broken, schema).empty());
}

TEST_CASE("a class file becomes one Gradescope results file per student, 0 points where there are no results",
          "[grader][export]") {
  const TempDir dir;
  const auto alice = graded(dir, "wrong:gemm", "alice.json");
  const auto bob = graded(dir, "good", "bob.json");
  const std::string error = "compile error: student.cu(12): error: identifier \"x\" is undefined";
  write_text(dir.path / "class.json", class_file({{"alice", alice}, {"bob/../b", bob}}, {{"carol", error}}).dump());
  const auto folder = dir.path / "gradescope";
  const auto run = export_command(dir, {(dir.path / "class.json").string(), "--format", "gradescope", "--output",
                                        folder.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto schema = json::parse(read_text(kData / "gradescope-results.schema.json"));
  for (const char* file : {"alice.json", "bob_.._b.json", "carol.json"}) {
    CAPTURE(file);
    REQUIRE(fs::exists(folder / file));
    CHECK(schema_problems(json::parse(read_text(folder / file)), schema).empty());
  }
  CHECK(std::distance(fs::directory_iterator(folder), fs::directory_iterator()) == 3);
  CHECK(json::parse(read_text(folder / "alice.json"))["score"] == lab1(alice)["score"]);
  CHECK(json::parse(read_text(folder / "bob_.._b.json"))["score"] == 20.0);
  const auto carol = json::parse(read_text(folder / "carol.json"));
  CHECK(carol["score"] == 0.0);
  CHECK_THAT(carol["output"].get<std::string>(), ContainsSubstring(error));

  SECTION("two students whose file names would collide are refused before anything is written") {
    write_text(dir.path / "clash.json", class_file({{"a/b", alice}, {"a_b", bob}}, {}).dump());
    const auto clash = export_command(dir, {(dir.path / "clash.json").string(), "--format", "gradescope",
                                            "--output", (dir.path / "clash").string()});
    CHECK(clash.exit_code == 1);
    CHECK_THAT(clash.err, ContainsSubstring("would both be written to a_b.json"));
    CHECK_FALSE(fs::exists(dir.path / "clash"));
  }
}

TEST_CASE("the JUnit export is valid JUnit XML whose counts and scores match the results", "[grader][export]") {
  const TempDir dir;
  const auto alice = graded(dir, "wrong:gemm", "alice.json");
  const auto bob = graded(dir, "segfault:copy", "bob.json");
  // Text a submission controls (compiler output) with everything XML must escape or cannot hold.
  const std::string error = "compile error: a.cu(3): error: \"<T>\" & 'x' ]]> \x01\x1b Zo\xc3\xab end";
  write_text(dir.path / "class.json",
             class_file({{"alice", alice}, {"b<o>b & \"co\"", bob}}, {{"carol", error}}).dump());
  const auto xml = junit_export(dir);
  CHECK(xpath(xml, "string(/testsuites/@tests)") == "5");
  CHECK(xpath(xml, "count(//testcase)") == "5");
  CHECK(xpath(xml, "string(/testsuites/@failures)") == "2");  // alice's gemm, bob's copy
  CHECK(xpath(xml, "count(//failure)") == "2");
  CHECK(xpath(xml, "string(/testsuites/@errors)") == "1");  // carol
  CHECK(xpath(xml, "string(//testsuite[@name='alice.lab1']/testcase[@name='gemm']/failure/@type)") == "wrong");
  CHECK(xpath(xml, "string(//testsuite[@name='b<o>b & \"co\".lab1']/testcase[@name='copy']/failure/@type)") ==
        "crash");
  const auto score = xpath(xml, "string(//testsuite[@name='alice.lab1']/properties/property[@name='score']/@value)");
  CHECK_THAT(std::stod(score), WithinAbs(lab1(alice)["score"].get<double>(), 1e-9));
  const auto gemm =
      xpath(xml, "string(//testsuite[@name='alice.lab1']/properties/property[@name='gemm.score']/@value)");
  CHECK_THAT(std::stod(gemm), WithinAbs(grader_test::exercise(alice, "gemm")["score"].get<double>(), 1e-9));
  // The message survives the round trip; what XML 1.0 cannot hold (control characters) is U+FFFD.
  CHECK(xpath(xml, "string(//testsuite[@name='carol']//error/@message)") ==
        "compile error: a.cu(3): error: \"<T>\" & 'x' ]]> \xef\xbf\xbd\xef\xbf\xbd Zo\xc3\xab end");
}

TEST_CASE("the CSV export reads back through python's csv module with every field intact", "[grader][export]") {
  const TempDir dir;
  const auto alice = graded(dir, "wrong:gemm", "alice.json");
  auto bob = graded(dir, "good", "bob.json");
  bob["runs"][0]["labs"][0]["lab"] = 2;  // a second lab column, which only bob has
  const std::string error = "compile error: a.cu(1): error: x\nnext line, with a comma and \"quotes\"";
  write_text(dir.path / "class.json",
             class_file({{"Smith, Alice \"Al\"", alice}, {"=HYPERLINK(\"x\")", bob}}, {{"carol", error}}).dump());
  const auto csv = dir.path / "class.csv";
  const auto run = export_command(dir, {(dir.path / "class.json").string(), "--format", "csv", "--output",
                                        csv.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(read_text(csv), ContainsSubstring("weighted_percent,error\r\n"));  // RFC 4180 line ends

  const auto read = tool({"python3", "-c",
                          "import csv, json, sys\n"
                          "print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                          csv.string()});
  INFO(read.err << read_text(csv));
  REQUIRE(read.exit_code == 0);
  const double a = lab1(alice)["score"].get<double>();
  const json expected = {
      {"student", "lab1", "lab2", "weighted_percent", "error"},
      {"points possible", "20.00", "20.00", "100.00", ""},
      {"Smith, Alice \"Al\"", fmt::format("{:.2f}", a), "", fmt::format("{:.2f}", 100 * a / 20), ""},
      {"'=HYPERLINK(\"x\")", "", "20.00", "100.00", ""},  // a formula is shown, not evaluated
      // Nothing of carol's was built (a record without builds): 0 in every lab, the reason beside it.
      {"carol", "0.00", "0.00", "0.00", error}};
  CHECK(json::parse(read.out) == expected);
}

TEST_CASE("the last student run of a results file is exported", "[grader][export]") {
  const TempDir dir;
  const auto csv_of = [&](const fs::path& file) {
    const auto run = export_command(dir, {file.string(), "--format", "csv", "--student", "alice"});
    INFO(run.err);
    CHECK(run.exit_code == 0);
    return run.out;
  };
  SECTION("of repeats, the last") {
    // The first timed run is at full marks (10/10), the second at the log midpoint (7/10).
    const auto run = run_grade(dir, {"lab1", "--exercise", "copy", "--repeat", "2"},
                               {{"FAKE_LAB_STUDENT_MS", "1.0,3.3166247903554"},
                                {"FAKE_LAB_COUNTER_FILE", (dir.path / "counter").string()}});
    REQUIRE(run.results["runs"].size() == 2);
    REQUIRE_THAT(lab1(run.results, 0)["score"].get<double>(), WithinAbs(10.0, 1e-9));
    CHECK(csv_of(dir.path / "results.json") ==
          "student,lab1,weighted_percent,error\r\npoints possible,10.00,100.00,\r\nalice,7.00,70.00,\r\n");
  }
  SECTION("not a run of another implementation after it") {
    auto results = graded(dir, "wrong:gemm", "alice.json");
    const auto reference = graded(dir, "wrong:gemm", "reference.json", {"--impl", "reference"});
    REQUIRE(lab1(reference)["score"] == 20.0);
    results["runs"].push_back(reference["runs"][0]);
    write_text(dir.path / "both.json", results.dump());
    const double score = lab1(results)["score"].get<double>();
    REQUIRE(score < 20);
    CHECK(csv_of(dir.path / "both.json") == fmt::format("student,lab1,weighted_percent,error\r\npoints possible,20.00,"
                                                        "100.00,\r\nalice,{:.2f},{:.2f},\r\n", score, 5 * score));
  }
}

TEST_CASE("export refuses what it cannot read with exit 1 and the reason", "[grader][export]") {
  const TempDir dir;
  auto results = graded(dir, "good", "results.json");
  std::string input, reason;
  SECTION("a missing file") {
    input = (dir.path / "none.json").string();
    reason = "cannot read it";
  }
  SECTION("text that is not JSON") {
    write_text(input = (dir.path / "bad.json").string(), "{\"schema\": 1,");
    reason = "not JSON";
  }
  SECTION("a kind of file other than a class") {
    write_text(input = (dir.path / "roster.json").string(), R"({"schema": 1, "kind": "roster", "students": []})");
    reason = "unknown kind \"roster\"";
  }
  SECTION("a --self-check file: two runs (reference and baseline), none of the student") {
    const auto self_check = graded(dir, "good", "self-check.json", {"--self-check"});
    REQUIRE(self_check["runs"].size() == 2);
    input = (dir.path / "self-check.json").string();
    reason = "2 runs and none of impl \"student\"";
  }
  SECTION("a class file whose student has a broken results file") {
    results["schema"] = 2;
    write_text(input = (dir.path / "class.json").string(), class_file({{"dave", results}}, {}).dump());
    reason = "student 'dave': not a grade results file of schema 1";
  }
  SECTION("a class file exported to gradescope without a folder") {
    write_text(input = (dir.path / "class.json").string(), class_file({{"dave", results}}, {}).dump());
    const auto run = export_command(dir, {input, "--format", "gradescope"});
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, ContainsSubstring("--output DIR is required"));
    return;
  }
  const auto run = export_command(dir, {input, "--format", "junit"});
  CHECK(run.exit_code == 1);
  CHECK(run.out.empty());
  CHECK_THAT(run.err, ContainsSubstring(reason));
}

TEST_CASE("XML and CSV escaping keep any text intact and harmless", "[grader][export]") {
  CHECK(grader::xml_escape("a&b<c>\"d'") == "a&amp;b&lt;c&gt;&quot;d&apos;");
  CHECK(grader::xml_escape("tab\tline\ncr\r") == "tab&#9;line&#10;cr&#13;");
  CHECK(grader::xml_escape("\x01 \xff \xc3\xab \xe2\x82") ==
        "\xef\xbf\xbd \xef\xbf\xbd \xc3\xab \xef\xbf\xbd\xef\xbf\xbd");  // control, stray, ë, cut short
  CHECK(grader::xml_escape("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");  // an overlong '/'
  CHECK(grader::csv_field("plain") == "plain");
  CHECK(grader::csv_field("a,b") == "\"a,b\"");
  CHECK(grader::csv_field("say \"hi\"\r\n") == "\"say \"\"hi\"\"\r\n\"");
  CHECK(grader::csv_field("-2+3") == "'-2+3");
  CHECK(grader::csv_field("-2.50", false) == "-2.50");
  CHECK(grader::file_name_for("a/b c") == "a_b_c");
  CHECK(grader::file_name_for("..") == "_..");
  CHECK(grader::file_name_for("") == "_");
}

TEST_CASE("a Gradescope export declares its outputs plain text, so that a compiler's <...> reaches the student",
          "[grader][export]") {
  const TempDir dir;
  auto alice = graded(dir, "wrong:gemm", "alice.json");
  const std::string why = "compile error: lab2.cu(7): error: no suitable conversion function from "
                          "\"std::vector<int, std::allocator<int>>\" to \"float *\" exists";
  alice["runs"][0]["labs"].push_back(unbuilt_lab(lab1(alice), 2, why));
  write_text(dir.path / "alice.json", alice.dump());
  const auto out = dir.path / "results.json";
  const auto run = export_command(dir, {(dir.path / "alice.json").string(), "--format", "gradescope", "--output",
                                        out.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto gs = json::parse(read_text(out));
  CHECK(grader_test::schema_problems(gs, json::parse(read_text(kData / "gradescope-results.schema.json"))).empty());
  // Gradescope's default is HTML, where "<int, std::allocator<int>>" is an unknown tag and vanishes.
  CHECK(gs["output_format"] == "text");
  CHECK_THAT(gs["output"].get<std::string>(), ContainsSubstring("(" + why + ")"));
  REQUIRE(gs["tests"].size() == 4);
  for (const auto& test : gs["tests"]) {
    CAPTURE(test.dump());
    CHECK(test["output_format"] == "text");
  }
  CHECK(gs["tests"][2]["name"] == "lab2 copy");
  CHECK_THAT(gs["tests"][2]["output"].get<std::string>(), ContainsSubstring("first failure: " + why));
}

TEST_CASE("a Gradescope test is passed only at full marks: an ok exercise short of them is failed",
          "[grader][export]") {
  const TempDir dir;
  std::string ms, status;
  double points = 0;
  SECTION("at the log midpoint between the baseline and full marks: 7 of 10") {
    std::tie(ms, points, status) = std::tuple{"3.3166247903554", 7.0, "failed"};
  }
  SECTION("at full marks") { std::tie(ms, points, status) = std::tuple{"1.0", 10.0, "passed"}; }
  CAPTURE(ms);
  const auto run = run_grade(dir, {"lab1", "--exercise", "copy"}, {{"FAKE_LAB_STUDENT_MS", ms}});
  INFO(run.process.out << run.process.err);
  REQUIRE(run.results.is_object());
  const auto& copy = grader_test::exercise(run.results, "copy");
  REQUIRE(copy["status"] == "ok");  // every test passed: the points short of full are performance points
  REQUIRE_THAT(copy["score"].get<double>(), WithinAbs(points, 1e-6));
  const auto gs = grader::gradescope_results(grader::read_gradebook(run.results).students.at(0));
  REQUIRE(gs["tests"].size() == 1);
  CHECK(gs["tests"][0]["status"] == status);
  CHECK_THAT(gs["tests"][0]["score"].get<double>(), WithinAbs(points, 1e-6));
  CHECK_THAT(gs["tests"][0]["output"].get<std::string>(), ContainsSubstring("status: ok"));
}

TEST_CASE("an exercise the sanitizer flagged exports in every format", "[grader][export]") {
  const TempDir dir;
  auto results = graded(dir, "good", "results.json");
  const auto status = GENERATE(as<std::string>{}, "memory-error", "race");
  CAPTURE(status);
  auto& copy = results["runs"][0]["labs"][0]["exercises"][0];
  copy["status"] = status;
  copy["message"] = "memcheck: Invalid __global__ write of size 4 bytes";
  write_text(dir.path / "flagged.json", results.dump());
  for (const char* format : {"gradescope", "junit", "csv"}) {
    CAPTURE(format);
    const auto run = export_command(dir, {(dir.path / "flagged.json").string(), "--format", format});
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.out, ContainsSubstring(format == std::string("csv") ? "student,lab1," : status));
  }
}

TEST_CASE("the CSV export: a lab not built is 0 with its reason, a points possible row, long messages cut",
          "[grader][export]") {
  const TempDir dir;
  auto alice = graded(dir, "good", "alice.json");
  const std::string refused = "refused: student.cu: refused: calls 'cudaStreamCreate' (rule 'streams': lab 01 allows "
                              "no streams of your own; see labs/01_fake/README.md#rules)";
  alice["runs"][0]["labs"].push_back(unbuilt_lab(lab1(alice), 2, refused));
  const std::string long_error = "compile error: student.cu(3): error: " + std::string(800, 'x');
  const json book = class_of(
      {batch_row("alice", alice, "lab2: " + refused, {{1, "built", ""}, {2, "refused", refused}}),
       batch_row("erin", nullptr, "lab1: " + refused + "; lab2: no submission",
                 {{1, "refused", refused}, {2, "no submission", "no submission"}}),
       batch_row("frank", nullptr, long_error, {{1, "compile error", long_error}})});  // graded on lab 1 alone
  write_text(dir.path / "class.json", book.dump());
  const auto csv = dir.path / "class.csv";
  const auto run = export_command(dir, {(dir.path / "class.json").string(), "--format", "csv", "--output",
                                        csv.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  REQUIRE(grader::kCsvFieldMax == 500);
  const json expected = {
      {"student", "lab1", "lab2", "weighted_percent", "error"},
      {"points possible", "20.00", "20.00", "100.00", ""},
      {"alice", "20.00", "0.00", "50.00", "lab2: " + refused},
      {"erin", "0.00", "0.00", "0.00", "lab1: " + refused + "; lab2: no submission"},
      // Not graded on lab 2 at all: that cell stays empty. The message: 497 characters of it and "...".
      {"frank", "0.00", "", "0.00", long_error.substr(0, 497) + "..."}};
  CHECK(read_csv(csv) == expected);
}

TEST_CASE("a lab not handed in is a skipped test in the JUnit export, not a failure", "[grader][export]") {
  const TempDir dir;
  auto alice = graded(dir, "good", "alice.json");
  alice["runs"][0]["labs"].push_back(unbuilt_lab(lab1(alice), 2, "no submission"));
  auto carl = alice;  // the same record from an older batch: no builds, the lab's message says it
  const std::string refused = "refused: student.cu: refused: calls 'cublasSgemm_v2' (rule 'libraries'; see "
                              "labs/01_fake/README.md#rules)";
  const json book = class_of(
      {batch_row("alice", alice, "lab2: no submission", {{1, "built", ""}, {2, "no submission", "no submission"}}),
       batch_row("bob", nullptr, "lab1: " + refused + "; lab2: no submission",
                 {{1, "refused", refused}, {2, "no submission", "no submission"}}),
       {{"student", "carl"}, {"results", carl}, {"error", "lab2: no submission"}}});
  write_text(dir.path / "class.json", book.dump());
  const auto xml = junit_export(dir);
  for (const std::string student : {"alice", "carl"}) {
    CAPTURE(student);
    const auto suite = "//testsuite[@name='" + student + ".lab2']";
    CHECK(xpath(xml, "string(" + suite + "/@skipped)") == "2");
    CHECK(xpath(xml, "string(" + suite + "/@failures)") == "0");
    CHECK(xpath(xml, "count(" + suite + "/testcase/skipped)") == "2");
    CHECK(xpath(xml, "string(" + suite + "/testcase[@name='copy']/skipped/@message)") == "no submission");
  }
  // bob built nothing: a test case per lab, the refusal an error, the lab not handed in skipped.
  CHECK(xpath(xml, "string(//testsuite[@name='bob.lab1']/testcase[@name='build']/error/@type)") == "refused");
  CHECK(xpath(xml, "string(//testsuite[@name='bob.lab1']/testcase[@name='build']/error/@message)") == refused);
  CHECK(xpath(xml, "count(//testsuite[@name='bob.lab2']/testcase[@name='build']/skipped)") == "1");
  CHECK(xpath(xml, "string(/testsuites/@failures)") == "0");
  CHECK(xpath(xml, "string(/testsuites/@errors)") == "1");
  CHECK(xpath(xml, "count(//skipped)") == "5");
  CHECK(xpath(xml, "string(/testsuites/@tests)") == "10");  // 2 + 2 exercises each for alice and carl, 2 builds
}

TEST_CASE("a CSV field is cut at its maximum with a visible ellipsis, never inside a character", "[grader][export]") {
  CHECK(grader::capped("abc", 5) == "abc");
  CHECK(grader::capped("abcde", 5) == "abcde");
  CHECK(grader::capped("abcdef", 5) == "ab...");
  CHECK(grader::capped(std::string(500, 'a')) == std::string(500, 'a'));
  CHECK(grader::capped(std::string(501, 'a')) == std::string(497, 'a') + "...");
  // Five code points of two bytes each: cut to one and the ellipsis, not into the second's bytes.
  CHECK(grader::capped("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4) == "\xc3\xa9...");
  CHECK(grader::capped("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4) == "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
}

// ---------------------------------------------------------------------------------------------------------------
// The LMS imports (canvas, moodle): each read back with python's csv module, then held to the rules of the importer
// itself (canvas-lms gradebook_importer.rb, Moodle's grade/import/csv), as export_formats.cpp lists them.

namespace {

// A class as `grade batch` records one, for the imports: alice graded on lab 1 and refused on lab 2, bob graded on
// lab 1 by a shard that did not grade lab 2, carol with nothing built (a compile error, lab 2 not handed in).
struct ImportClass {
  json book;
  double alice_lab1 = 0;
};

ImportClass import_class(const TempDir& dir) {
  auto alice = graded(dir, "wrong:gemm", "alice.json");
  const std::string refused = "refused: student.cu: refused: calls 'cudaStreamCreate' (rule 'streams')";
  alice["runs"][0]["labs"].push_back(unbuilt_lab(lab1(alice), 2, refused));
  const auto bob = graded(dir, "good", "bob.json");
  const std::string error = "compile error: student.cu(3): error: identifier \"x\" is undefined";
  ImportClass c;
  c.alice_lab1 = lab1(alice)["score"].get<double>();
  c.book = class_of({batch_row("alice", alice, "lab2: " + refused, {{1, "built", ""}, {2, "refused", refused}}),
                     batch_row("bob", bob, nullptr, {{1, "built", ""}}),
                     batch_row("carol", nullptr, error,
                               {{1, "compile error", error}, {2, "no submission", "no submission"}})});
  write_text(dir.path / "class.json", c.book.dump());
  return c;
}

// `grade export class.json --format FORMAT ARGS --output OUT`; REQUIREs that it wrote OUT.
fs::path import_export(const TempDir& dir, const std::string& format, std::vector<std::string> args,
                       const std::string& out = "import.csv") {
  args.insert(args.begin(), {(dir.path / "class.json").string(), "--format", format, "--output",
                             (dir.path / out).string()});
  const auto run = export_command(dir, args);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  return dir.path / out;
}

// The field count of each of the first three physical lines, each read alone: what Canvas compares to choose
// between ',' and ';' (gradebook_importer.rb identify_delimiter: ',' wins where every line agrees).
json first_line_fields(const fs::path& csv) {
  const auto read = tool({"python3", "-c",
                          "import csv, json, sys\n"
                          "lines = open(sys.argv[1], newline='', encoding='utf-8').read().split('\\r\\n')[:3]\n"
                          "print(json.dumps([len(next(csv.reader([l]))) for l in lines]))",
                          csv.string()});
  INFO(read.err);
  REQUIRE(read.exit_code == 0);
  return json::parse(read.out);
}

bool is_number_cell(const std::string& cell) {
  static const std::regex number(R"(-?[0-9]+(\.[0-9]+)?)");
  return std::regex_match(cell, number);
}

// Canvas's importer, as far as a file decides it (gradebook_importer.rb): the header's student columns, the
// Points Possible row, every row the header's width, each assignment cell a number or empty. Returns, per SIS Login
// ID, its row's assignment cells by column name.
std::map<std::string, std::map<std::string, std::string>> canvas_reads(const json& rows) {
  REQUIRE(rows.size() >= 2);
  const auto header = rows[0].get<std::vector<std::string>>();
  // row_has_student_headers? and update_column_count: Student, ID, SIS User ID, SIS Login ID, then Section.
  REQUIRE(header.size() > 5);
  CHECK_THAT(header[0], ContainsSubstring("Student"));
  CHECK_THAT(header[1], ContainsSubstring("ID"));
  CHECK(header[2] == "SIS User ID");
  CHECK(header[3] == "SIS Login ID");
  CHECK_THAT(header[4], ContainsSubstring("Section"));
  CHECK_THAT(rows[1][0].get<std::string>(), ContainsSubstring("Points Possible"));
  std::map<std::string, std::map<std::string, std::string>> by_login;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto row = rows[r].get<std::vector<std::string>>();
    CAPTURE(r, rows[r].dump());
    REQUIRE(row.size() == header.size());  // no stray or missing column
    for (std::size_t c = 5; c < row.size(); ++c) CHECK((row[c].empty() || is_number_cell(row[c])));
    if (r == 1) continue;
    CHECK_FALSE(row[3].empty());  // matched by SIS Login ID: ID and SIS User ID are empty
    CHECK(row[1].empty());
    CHECK(row[2].empty());
    auto& cells = by_login[row[3]];
    for (std::size_t c = 5; c < row.size(); ++c) cells[header[c]] = row[c];
  }
  CHECK(by_login.size() == rows.size() - 2);  // one row per login
  return by_login;
}

// Moodle's CSV grade import (load_data.php, csvlib.class.php): every row the header's width, every data row a user
// (a login), every grade cell a number or "-" (no grade), and no field that needed quoting.
std::map<std::string, std::map<std::string, std::string>> moodle_reads(const fs::path& csv) {
  const auto rows = read_csv(csv);
  CHECK(read_text(csv).find('"') == std::string::npos);
  REQUIRE(rows.size() >= 2);
  const auto header = rows[0].get<std::vector<std::string>>();
  CHECK(std::set<std::string>(header.begin(), header.end()).size() == header.size());
  std::map<std::string, std::map<std::string, std::string>> by_login;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto row = rows[r].get<std::vector<std::string>>();
    CAPTURE(r, rows[r].dump());
    REQUIRE(row.size() == header.size());
    CHECK_FALSE(row[0].empty());
    auto& cells = by_login[row[0]];
    for (std::size_t c = 1; c < row.size(); ++c) {
      CHECK((row[c] == "-" || is_number_cell(row[c])));
      cells[header[c]] = row[c];
    }
  }
  CHECK(by_login.size() == rows.size() - 1);
  return by_login;
}

}  // namespace

TEST_CASE("a Canvas import reads back as Canvas's gradebook importer reads it, keyed by the roster's logins",
          "[grader][export][canvas]") {
  const TempDir dir;
  const auto c = import_class(dir);
  write_text(dir.path / "roster.csv", "student,login,name\r\nalice,asmith@uni.edu,\"Smith, Alice\"\r\n"
                                      "bob,bjones,Bob Jones\r\ncarol,cwu,\r\nnot_in_class,zz,Nobody\r\n");
  const auto csv = import_export(dir, "canvas", {"--roster", (dir.path / "roster.csv").string(), "--column",
                                                 "1=Lab 1 (12345)"});
  const auto rows = read_csv(csv);
  const auto a = fmt::format("{:.2f}", c.alice_lab1);
  const json expected = {
      {"Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1 (12345)", "Lab 2"},
      {"Points Possible", "", "", "", "", "20.00", "20.00"},
      {"Smith, Alice", "", "", "asmith@uni.edu", "", a, "0.00"},  // lab 2 refused: 0
      {"Bob Jones", "", "", "bjones", "", "20.00", ""},          // lab 2 not graded: empty, no score
      {"carol", "", "", "cwu", "", "0.00", "0.00"}};             // no name in the roster: the folder's
  CHECK(rows == expected);
  const auto canvas = canvas_reads(rows);
  CHECK(canvas.at("asmith@uni.edu").at("Lab 1 (12345)") == a);
  CHECK(first_line_fields(csv) == json({7, 7, 7}));  // Canvas chooses ',' as the delimiter

  SECTION("without a roster, each student's folder name is its SIS Login ID and its name") {
    const auto plain = import_export(dir, "canvas", {}, "plain.csv");
    const auto by_login = canvas_reads(read_csv(plain));
    CHECK(by_login.size() == 3);
    CHECK(by_login.at("bob").at("Lab 1") == "20.00");
    CHECK(read_csv(plain)[2][0] == "alice");
  }
}

TEST_CASE("a Moodle import reads back as Moodle's CSV grade import reads it", "[grader][export][moodle]") {
  const TempDir dir;
  const auto c = import_class(dir);
  write_text(dir.path / "roster.csv",
             "login,student\nasmith@uni.edu,alice\nbjones@uni.edu,bob\ncwu@uni.edu,carol\n");  // any column order
  const auto csv = import_export(dir, "moodle", {"--roster", (dir.path / "roster.csv").string(), "--column",
                                                 "2=CUDA lab 2"});
  const auto a = fmt::format("{:.2f}", c.alice_lab1);
  // No points-possible row: Moodle would take it for a user and stop the import.
  const json expected = {{"login", "Lab 1", "CUDA lab 2"},
                         {"asmith@uni.edu", a, "0.00"},
                         {"bjones@uni.edu", "20.00", "-"},  // lab 2 not graded: no grade
                         {"cwu@uni.edu", "0.00", "0.00"}};
  CHECK(read_csv(csv) == expected);
  const auto moodle = moodle_reads(csv);
  CHECK(moodle.at("cwu@uni.edu").at("CUDA lab 2") == "0.00");
}

TEST_CASE("an LMS import refuses what its importer would mismatch, and writes nothing", "[grader][export]") {
  const TempDir dir;
  import_class(dir);
  const auto out = dir.path / "out.csv";
  std::string format = "canvas", roster = "student,login\nalice,a\nbob,b\ncarol,c\n", expect;
  std::vector<std::string> args;
  SECTION("a student the roster lacks") {
    roster = "student,login\nalice,a\nbob,b\n";
    expect = "student 'carol' is not in the roster";
  }
  SECTION("two students of one login") {
    roster = "student,login\nalice,a\nbob,a\ncarol,c\n";
    expect = "students 'alice' and 'bob' both have the login 'a'";
  }
  SECTION("a login a spreadsheet would evaluate") {
    roster = "student,login\nalice,=cmd()\nbob,b\ncarol,c\n";
    expect = "starts with '='";
  }
  SECTION("a Moodle login that would need quoting") {
    format = "moodle";
    roster = "student,login\nalice,\"a,b\"\nbob,b\ncarol,c\n";
    expect = "holds a comma, quote or line break";
  }
  SECTION("a roster without a login column") {
    roster = "student,email\nalice,a\n";
    expect = "must name the columns student and login";
  }
  SECTION("a roster row of the wrong width") {
    roster = "student,login\nalice,a,extra\n";
    expect = "roster row 2: 3 fields, the header has 2";
  }
  SECTION("a column for a lab no student has") {
    args = {"--column", "3=Lab 3"};
    expect = "a column is named for lab 3";
  }
  SECTION("a column that is not LAB=NAME") {
    args = {"--column", "lab1=Lab 1"};
    expect = "is not LAB=NAME";
  }
  SECTION("a Canvas column Canvas reads as a total") {
    args = {"--column", "1=Final Score"};
    expect = "one Canvas reads as a student or total column";
  }
  SECTION("two labs of one column name") {
    args = {"--column", "1=Lab 2"};
    expect = "two labs' columns are both named 'Lab 2'";
  }
  SECTION("a roster for a format without logins") {
    format = "csv";
    expect = "--roster and --column are for --format canvas and moodle";
  }
  CAPTURE(format, expect);
  write_text(dir.path / "roster.csv", roster);
  args.insert(args.begin(), {(dir.path / "class.json").string(), "--format", format, "--output", out.string(),
                             "--roster", (dir.path / "roster.csv").string()});
  const auto run = export_command(dir, args);
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, ContainsSubstring(expect));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a roster reads as RFC 4180: quotes, CRLF or LF, a byte order mark", "[grader][export]") {
  const auto roster = grader::roster_from_csv("\xef\xbb\xbfname,student,login\r\n\"Smith, \"\"Al\"\"\",alice,a@x\r\n"
                                              "\r\nBob,bob,b@x");
  REQUIRE(roster.size() == 2);
  CHECK(roster.at("alice").login == "a@x");
  CHECK(roster.at("alice").name == "Smith, \"Al\"");
  CHECK(roster.at("bob").name == "Bob");
  CHECK_THROWS_WITH(grader::roster_from_csv("student,login\nalice,a\nalice,b\n"),
                    ContainsSubstring("student 'alice' is listed twice"));
  CHECK_THROWS_WITH(grader::roster_from_csv("student,login\n\"alice,a\n"), ContainsSubstring("never closed"));
  CHECK_THROWS_WITH(grader::roster_from_csv("student,login\n,a\n"), ContainsSubstring("an empty student or login"));
  CHECK_THROWS_WITH(grader::roster_from_csv(""), ContainsSubstring("the roster is empty"));
}

// ---------------------------------------------------------------------------------------------------------------
// A Gradescope export in a browser: every <...> of a compiler message must reach the student's screen.

namespace {

constexpr const char* kChromium = GRADER_TEST_CHROMIUM;  // empty: none found at configure

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string base64_decode(std::string_view in) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int bits = 0, value = 0;
  for (char c : in) {
    const auto pos = kAlphabet.find(c);
    if (pos == std::string_view::npos) continue;  // '=' padding
    value = value << 6 | static_cast<int>(pos);
    if ((bits += 6) >= 8) out += static_cast<char>((value >> (bits -= 8)) & 0xff);
  }
  return out;
}

// Every bracketed group of `text`, nested ones too: "vector<int, allocator<int>>" gives "<int, allocator<int>>" and
// "<int>".
std::vector<std::string> angle_groups(std::string_view text) {
  std::vector<std::string> groups;
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') open.push_back(i);
    if (text[i] == '>' && !open.empty()) {
      groups.emplace_back(text.substr(open.back(), i - open.back() + 1));
      open.pop_back();
    }
  }
  return groups;
}

// The text a browser shows for each {output_format, output} of a Gradescope results.json: "text" escaped into a
// <pre>, anything else ("html") inserted as markup. This page is ours and mirrors those two renderings; it is not
// Gradescope's page. After the parser has built the DOM, a script writes each output element's textContent (base64
// of its UTF-8, so that nothing in it is markup) into an element of its own, which --dump-dom prints.
std::vector<std::string> rendered_text(const TempDir& dir, const std::string& name,
                                       const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::string page = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>outputs</title></head><body>\n";
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [format, text] = outputs[i];
    page += format == "text" ? fmt::format("<pre class=\"output\" id=\"out{}\">{}</pre>\n", i, html_escape(text))
                             : fmt::format("<div class=\"output\" id=\"out{}\">{}</div>\n", i, text);
  }
  page += "<script>\n"
          "for (const el of document.querySelectorAll('.output')) {\n"
          "  const probe = document.createElement('pre');\n"
          "  probe.id = 'probe-' + el.id;\n"
          "  const bytes = new TextEncoder().encode(el.textContent);\n"
          "  probe.textContent = btoa(Array.from(bytes, b => String.fromCharCode(b)).join(''));\n"
          "  document.body.appendChild(probe);\n"
          "}\n"
          "</script></body></html>\n";
  const auto html = dir.path / (name + ".html");
  write_text(html, page);
  grader::ProcessOptions options;
  options.argv = {kChromium,  "--headless", "--no-sandbox", "--disable-gpu",
                  "--user-data-dir=" + (dir.path / (name + "-profile")).string(), "--dump-dom",
                  "file://" + html.string()};
  options.timeout_s = 120;
  options.capture_limit = std::size_t{16} << 20;
  const auto run = grader::run_process(options);
  INFO(run.error << run.err.substr(0, 2000));
  REQUIRE(run.started);
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.out.find("</html>") != std::string::npos);  // Chromium dumped the whole DOM
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::regex probe(fmt::format(R"(<pre id="probe-out{}">([A-Za-z0-9+/=]*)</pre>)", i));
    std::smatch m;
    CAPTURE(i);
    REQUIRE(std::regex_search(run.out, m, probe));
    texts.push_back(base64_decode(m[1].str()));
  }
  return texts;
}

}  // namespace

TEST_CASE("every <...> of a compiler message in a Gradescope export reaches the page in headless Chromium",
          "[grader][export][chromium]") {
  if (std::string(kChromium).empty())
    SKIP("chromium was not found at configure (Debian: apt install chromium): nothing to render the export with");
  const TempDir dir;
  auto alice = graded(dir, "wrong:gemm", "alice.json");
  const std::string why = "compile error: lab2.cu(7): error: no suitable conversion function from "
                          "\"std::vector<int, std::allocator<int>>\" to \"float *\" exists; in instantiation of "
                          "\"void fill(std::basic_string<char, std::char_traits<char>, std::allocator<char>>)\"";
  alice["runs"][0]["labs"].push_back(unbuilt_lab(lab1(alice), 2, why));
  write_text(dir.path / "alice.json", alice.dump());
  const auto out = dir.path / "results.json";
  const auto run = export_command(dir, {(dir.path / "alice.json").string(), "--format", "gradescope", "--output",
                                        out.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto gs = json::parse(read_text(out));

  // Each output as the export declares it (its output_format), the top-level one first.
  std::vector<std::pair<std::string, std::string>> outputs = {
      {gs.value("output_format", "html"), gs["output"].get<std::string>()}};
  for (const auto& test : gs["tests"])
    outputs.emplace_back(test.value("output_format", "html"), test["output"].get<std::string>());
  const auto groups = angle_groups(why);
  REQUIRE(groups.size() == 5);  // <int>, <int, std::allocator<int>>, <char> twice, and the <char, ...> around them
  // The outputs that carry the message: the summary and lab 2's exercises (lab2 copy, lab2 gemm).
  std::vector<std::size_t> carriers;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].second.find(why) != std::string::npos) carriers.push_back(i);
  REQUIRE(carriers.size() == 3);

  SECTION("as the export declares it (text): every group is on the page, intact") {
    const auto texts = rendered_text(dir, "declared", outputs);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      CAPTURE(i, outputs[i].first);
      CHECK(texts[i] == outputs[i].second);  // the whole output, byte for byte
    }
    for (auto i : carriers)
      for (const auto& group : groups) {
        CAPTURE(i, group);
        CHECK_THAT(texts[i], ContainsSubstring(group));
      }
  }
  SECTION("had it declared html (Gradescope's default), the groups would vanish: this test can fail") {
    for (auto& output : outputs) output.first = "html";
    const auto texts = rendered_text(dir, "as-html", outputs);
    for (auto i : carriers) {
      CAPTURE(i, texts[i]);
      for (const auto& group : groups) CHECK_THAT(texts[i], !ContainsSubstring(group));
      CHECK_THAT(texts[i], ContainsSubstring("\"std::vector"));  // what is left of the type
    }
  }
}
