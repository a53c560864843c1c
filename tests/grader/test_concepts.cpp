// `grade --concepts` (docs/concepts.md): ncu's CSV and cuobjdump's SASS read from recorded output
// (tests/grader/data), the formulas, the manifest field, the report column and JSON, and `grade --concepts` end to end
// against the fake lab with stand-in ncu and cuobjdump scripts.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/concepts.hpp"
#include "grader/manifest.hpp"
#include "grader/report.hpp"
#include "grader/self_check.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinRel;
using namespace grader;
using grader_test::read_text;
using grader_test::TempDir;
using grader_test::write_text;

namespace {

namespace fs = std::filesystem;

const fs::path kData = GRADER_TEST_DATA_DIR;

ConceptSpec bank_conflicts() {
  ConceptSpec c;
  c.exercise = "transpose_padded";
  c.name = "bank conflicts per shared access";
  c.tool = ConceptTool::kNcu;
  c.kernel = "transpose";
  c.numerator = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"};
  c.denominator = {"smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum"};
  c.max = 0.5;
  return c;
}

ConceptSpec shuffles(const std::string& function) {
  ConceptSpec c;
  c.name = "shuffles";
  c.tool = ConceptTool::kSass;
  c.instruction = "SHFL";
  c.function = function;
  c.min = 1;
  return c;
}

const std::string kHeader =
    R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",)"
    R"("Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";

std::string csv_row(const std::string& id, const std::string& process, const std::string& metric,
                    const std::string& unit, const std::string& value) {
  return "\"" + id + "\",\"77\",\"" + process + "\",\"127.0.0.1\",\"k(const float *, float *)\",\"1\",\"7\"," +
         "\"(256, 1, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric + "\",\"" + unit +
         "\",\"" + value + "\"\n";
}

}  // namespace

TEST_CASE("ncu's CSV is read by its column names, with thousands separators and commas in kernel names",
          "[grader][concepts]") {
  const auto report = parse_ncu_csv(read_text(kData / "ncu-lab6-transpose.csv"));
  REQUIRE(report.rows.size() == 12);
  CHECK(report.error.empty());
  CHECK_FALSE(report.no_permission);
  const auto& first = report.rows.front();
  CHECK(first.id == "0");
  CHECK(first.process == "lab6-student");
  CHECK(first.kernel == "void <unnamed>::transpose_tile_kernel<1>(const float *, float *, long, long)");
  CHECK(first.metric == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  REQUIRE(first.value);
  CHECK(*first.value == 255013);
  CHECK(report.rows.back().process == "lab6-reference");
  CHECK(*report.rows.back().value == 2097152);
}

TEST_CASE("an ncu value sums its metrics over the launches of the graded runner only", "[grader][concepts]") {
  const auto report = parse_ncu_csv(read_text(kData / "ncu-lab6-transpose.csv"));
  const auto spec = bank_conflicts();
  std::string why;
  const auto student = ncu_value(report, spec, "lab6-student", why);
  REQUIRE(student);
  CHECK_THAT(*student, WithinRel((255013.0 + 54404) / (2 * 2097152.0 + 16), 1e-12));
  CHECK(spec.in_range(*student));
  // The unpadded transpose in the other runner: 31 extra wavefronts per column read.
  const auto reference = ncu_value(report, spec, "lab6-reference", why);
  REQUIRE(reference);
  CHECK_THAT(*reference, WithinRel((65927440.0 + 52349) / (2 * 2097152.0), 1e-12));
  CHECK_FALSE(spec.in_range(*reference));

  SECTION("no launch in the runner asked for") {
    CHECK_FALSE(ncu_value(report, spec, "lab6-baseline", why));
    CHECK_THAT(why, ContainsSubstring("no kernel matching /transpose/ ran in lab6-baseline"));
  }
  SECTION("a metric ncu did not report") {
    auto other = spec;
    other.numerator.push_back("sm__cycles_elapsed.max");
    CHECK_FALSE(ncu_value(report, other, "lab6-student", why));
    CHECK(why == "ncu reported no value of sm__cycles_elapsed.max");
  }
  SECTION("without a denominator the value is the numerator's sum") {
    auto sum = spec;
    sum.denominator.clear();
    CHECK(ncu_value(report, sum, "lab6-student", why) == 255013.0 + 54404);
  }
  SECTION("a process named by its path counts as its program") {
    const auto rows = parse_ncu_csv(kHeader + "\n" + csv_row("0", "/build/runners/lab1-student", "a.sum", "", "8") +
                                    csv_row("0", "/build/runners/lab1-student", "b.sum", "", "2"));
    ConceptSpec ratio;
    ratio.kernel = "k";
    ratio.numerator = {"a.sum"};
    ratio.denominator = {"b.sum"};
    CHECK(ncu_value(rows, ratio, "lab1-student", why) == 4.0);
  }
}

TEST_CASE("ncu values in scaled units come back to base units; n/a is no value; a zero denominator is no value",
          "[grader][concepts]") {
  const auto report = parse_ncu_csv(kHeader + "\n" + csv_row("0", "lab1-student", "bytes.sum", "Kbyte", "1.5") +
                                    csv_row("0", "lab1-student", "sectors.sum", "Msector", "2") +
                                    csv_row("0", "lab1-student", "pct", "%", "97.5") +
                                    csv_row("0", "lab1-student", "missing.sum", "", "n/a") +
                                    csv_row("0", "lab1-student", "zero.sum", "request", "0"));
  REQUIRE(report.rows.size() == 5);
  CHECK(report.rows[0].value == 1500.0);
  CHECK(report.rows[1].value == 2e6);
  CHECK(report.rows[2].value == 97.5);
  CHECK_FALSE(report.rows[3].value);
  ConceptSpec c;
  c.kernel = "k";
  c.numerator = {"bytes.sum"};
  c.denominator = {"zero.sum"};
  std::string why;
  CHECK_FALSE(ncu_value(report, c, "lab1-student", why));
  CHECK_THAT(why, ContainsSubstring("the denominator (zero.sum) is 0"));
  c.denominator = {"missing.sum"};
  CHECK_FALSE(ncu_value(report, c, "lab1-student", why));
  CHECK(why == "ncu reported no value of missing.sum");
}

TEST_CASE("ncu's errors are kept; no permission to the counters is recognized; other output is not a row",
          "[grader][concepts]") {
  const auto report = parse_ncu_csv(
      "==PROF== Connected to process 12 (/build/lab1)\n"
      "\"not\",\"a\",\"header\"\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
      "the target device 0. For instructions on enabling permissions and to get more information see "
      "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
      "==WARNING== No kernels were profiled.\n");
  CHECK(report.no_permission);
  CHECK(report.rows.empty());
  CHECK_THAT(report.error, ContainsSubstring("ERR_NVGPUCTRPERM - The user does not have permission"));
  std::string why;
  CHECK_FALSE(ncu_value(report, bank_conflicts(), "lab6-student", why));
  CHECK_THAT(why, ContainsSubstring("ncu profiled no kernel matching /transpose/ (ERR_NVGPUCTRPERM"));

  const auto repeated = parse_ncu_csv(kHeader + "\n" + csv_row("0", "lab1-student", "a.sum", "", "1") + kHeader +
                                      "\n" + "lab output, 3 cases\n" + "\"0\",\"cut\n");
  CHECK(repeated.rows.size() == 1);
  CHECK_FALSE(repeated.no_permission);
}

TEST_CASE("the ncu command follows the runners, leaves the clocks alone and asks for CSV in base units",
          "[grader][concepts]") {
  const auto argv = ncu_command("/opt/ncu", {"a.sum", "b.sum"}, "scale", "/build/lab1", "student", "scale");
  const std::vector<std::string> expected = {
      "/opt/ncu", "--target-processes", "all", "--clock-control", "none", "--print-units", "base", "--csv",
      "--kernel-name", "regex:scale", "--launch-count", std::to_string(kNcuLaunchLimit), "--metrics", "a.sum,b.sum",
      "/build/lab1", "check", "--impl", "student", "--exercise", "scale", "--seeds", "1"};
  CHECK(argv == expected);
}

TEST_CASE("cuobjdump's SASS is read per function and architecture; SHFL counts its variants", "[grader][concepts]") {
  const auto functions = parse_sass(read_text(kData / "cuobjdump-lab3.sass"));
  REQUIRE(functions.size() == 4);
  CHECK(functions[0].name == "_ZN5lab0315warp_sum_kernelIN12_GLOBAL__N_13OpsEEEvPKfPfli");
  CHECK(functions[0].arch == "sm_80");
  CHECK(functions[2].arch == "sm_90");
  CHECK(functions[2].mnemonics.at("SHFL.DOWN") == 2);
  CHECK(functions[2].mnemonics.at("SHFL.IDX") == 1);  // behind a predicate, @!P0
  CHECK(functions[2].mnemonics.at("FADD") == 1);
  CHECK(functions[3].mnemonics.count("LDS") == 1);

  std::string why;
  CHECK(sass_count(functions, shuffles("warp_sum_kernel"), why) == 3);  // sm_90's, not sm_80's single one
  CHECK(sass_count(functions, shuffles("block_sum_kernel"), why) == 1);
  CHECK(sass_count(functions, shuffles("warp_scan_kernel"), why) == 0);  // through shared memory: the stub's way
  CHECK(sass_count(functions, shuffles(""), why) == 4);                  // every function of the highest arch
  CHECK_FALSE(sass_count(functions, shuffles("warp_allreduce_kernel"), why));
  CHECK(why == "no function matching /warp_allreduce_kernel/ in the SASS");
  auto exact = shuffles("warp_sum_kernel");
  exact.instruction = "SHFL.IDX";
  CHECK(sass_count(functions, exact, why) == 1);
  exact.instruction = "SHF";  // a prefix of the mnemonic is not the instruction
  CHECK(sass_count(functions, exact, why) == 0);
  CHECK_FALSE(sass_count({}, shuffles(""), why));
  CHECK(why == "cuobjdump listed no SASS function");
}

TEST_CASE("a concept's range, its words and its points", "[grader][concepts]") {
  ConceptSpec c;
  c.min = 24;
  CHECK(c.expected() == ">= 24");
  CHECK(c.in_range(24));
  CHECK_FALSE(c.in_range(23.9));
  c.max = 32;
  CHECK(c.expected() == "24 to 32");
  CHECK_FALSE(c.in_range(32.5));
  CHECK_FALSE(c.in_range(std::nan("")));
  c.min.reset();
  CHECK(c.expected() == "<= 32");
  c.points = 2;
  const auto in = concept_result(c, 30.0, "");
  CHECK(in.ok);
  CHECK(in.points == 2);
  CHECK(in.points_max == 2);
  const auto out = concept_result(c, 40.0, "");
  CHECK_FALSE(out.ok);
  CHECK(out.points == 0);
  CHECK(out.points_max == 2);
  const auto skipped = concept_result(c, std::nullopt, "ncu (Nsight Compute) not found");
  CHECK_FALSE(skipped.value);
  CHECK(skipped.points_max == 0);  // a missing tool costs nothing
  CHECK(skipped.skipped == "ncu (Nsight Compute) not found");
}

TEST_CASE("find_cuda_tool looks on PATH, then in CUDA_HOME/bin, and only at executables", "[grader][concepts]") {
  const TempDir dir;
  const auto make_tool = [](const fs::path& folder) {
    fs::create_directories(folder);
    std::ofstream(folder / "ncu") << "#!/bin/sh\n";
    fs::permissions(folder / "ncu", fs::perms::owner_all);
  };
  const auto on_path = dir.path / "bin", cuda = dir.path / "cuda";
  make_tool(on_path);
  make_tool(cuda / "bin");
  CHECK(find_cuda_tool("ncu", on_path.string(), cuda.string()) == on_path / "ncu");
  CHECK(find_cuda_tool("ncu", (dir.path / "none").string(), cuda.string()) == cuda / "bin" / "ncu");
  fs::permissions(on_path / "ncu", fs::perms::owner_read);
  CHECK(find_cuda_tool("ncu", on_path.string(), cuda.string()) == cuda / "bin" / "ncu");
}

namespace {

const std::string kExercises =
    R"("exercises": [{"name": "scale", "correctness_points": 4, "performance_points": 6, "stub": "slow"},
                     {"name": "dot", "correctness_points": 4, "performance_points": 6, "stub": "slow"}])";

Manifest with_concepts(const std::string& concepts) {
  return parse_manifest(R"({"title": "t", )" + kExercises + R"(, "concepts": [)" + concepts + "]}", "m.json");
}

}  // namespace

TEST_CASE("a manifest's concepts name an exercise, one tool and a range; points default to 0",
          "[grader][concepts][manifest]") {
  const auto m = with_concepts(
      R"({"exercise": "scale", "name": "bytes per sector", "why": "w", "unit": "B/sector", "min": 24,
          "ncu": {"kernel": "scale", "numerator": ["a.sum"], "denominator": ["b.sum", "c.sum"]}},
         {"exercise": "scale", "name": "shuffles", "why": "w", "min": 1, "points": 1.5,
          "sass": {"instruction": "SHFL", "function": "scale_kernel"}},
         {"exercise": "dot", "name": "overlap", "why": "w", "min": 0.5, "max": 1, "time_metric": "overlap_student"})");
  REQUIRE(m.exercises[0].concepts.size() == 2);
  const auto& ncu = m.exercises[0].concepts[0];
  CHECK(ncu.tool == ConceptTool::kNcu);
  CHECK(ncu.kernel == "scale");
  CHECK(ncu.numerator == std::vector<std::string>{"a.sum"});
  CHECK(ncu.denominator == std::vector<std::string>{"b.sum", "c.sum"});
  CHECK(ncu.unit == "B/sector");
  CHECK(ncu.min == 24.0);
  CHECK_FALSE(ncu.max);
  CHECK(ncu.points == 0);
  const auto& sass = m.exercises[0].concepts[1];
  CHECK(sass.tool == ConceptTool::kSass);
  CHECK(sass.instruction == "SHFL");
  CHECK(sass.function == "scale_kernel");
  CHECK(sass.points == 1.5);
  REQUIRE(m.exercises[1].concepts.size() == 1);
  CHECK(m.exercises[1].concepts[0].tool == ConceptTool::kTimeMetric);
  CHECK(m.exercises[1].concepts[0].metric == "overlap_student");
  CHECK(m.exercises[1].concepts[0].max == 1.0);
  CHECK(parse_manifest(R"({"title": "t", )" + kExercises + "}", "m.json").exercises[0].concepts.empty());
}

TEST_CASE("a broken concept is refused with the file, the field and what is wrong", "[grader][concepts][manifest]") {
  const std::string good = R"("exercise": "scale", "name": "n", "why": "w", "min": 1)";
  const std::string ncu = R"("ncu": {"kernel": "scale", "numerator": ["a.sum"]})";
  const auto refused = [&](const std::string& concept_text, const std::string& message) {
    CAPTURE(concept_text);
    CHECK_THROWS_WITH(with_concepts(concept_text), ContainsSubstring(message));
  };
  refused(R"({"exercise": "saxpy", "name": "n", "why": "w", "min": 1, )" + ncu + "}",
          "m.json: field 'concepts[0].exercise': no exercise named 'saxpy'");
  refused("{" + good + "}", "field 'concepts[0]': must name exactly one tool");
  refused("{" + good + ", " + ncu + R"(, "time_metric": "x"})", "must name exactly one tool (\"ncu\", \"sass\" or \"time_metric\"), not 2");
  refused(R"({"exercise": "scale", "name": "n", "min": 1, )" + ncu + "}", "field 'concepts[0].why': missing");
  refused(R"({"exercise": "scale", "name": "n", "why": "a\nb", "min": 1, )" + ncu + "}", "'concepts[0].why': must be one line");
  refused(R"({"exercise": "scale", "name": "n", "why": "w", )" + ncu + "}", "needs \"min\", \"max\" or both");
  refused(R"({"exercise": "scale", "name": "n", "why": "w", "min": 2, "max": 1, )" + ncu + "}",
          "field 'concepts[0].min': 2 is above max 1");
  refused("{" + good + R"(, "points": -1, )" + ncu + "}", "field 'concepts[0].points': must be >= 0");
  refused("{" + good + R"(, "min_value": 3, )" + ncu + "}", "field 'concepts[0].min_value': unknown field");
  refused("{" + good + R"(, "ncu": {"kernel": "(scale", "numerator": ["a.sum"]}})",
          "field 'concepts[0].ncu.kernel': '(scale' is not a regular expression");
  refused("{" + good + R"(, "ncu": {"kernel": "scale", "numerator": []}})",
          "field 'concepts[0].ncu.numerator': must be a non-empty array of metric names");
  refused("{" + good + R"(, "ncu": {"kernel": "scale", "numerator": ["a.sum/b.sum"]}})",
          "field 'concepts[0].ncu.numerator[0]': 'a.sum/b.sum' is not an ncu metric name");
  refused("{" + good + R"(, "ncu": {"numerator": ["a.sum"]}})", "field 'concepts[0].ncu.kernel': missing");
  refused("{" + good + R"(, "ncu": {"kernel": "k", "numerator": ["a.sum"], "formula": "a/b"}})",
          "field 'concepts[0].ncu.formula': unknown field");
  refused("{" + good + R"(, "sass": {"instruction": "shfl"}})",
          "field 'concepts[0].sass.instruction': 'shfl' is not a SASS mnemonic");
  refused("{" + good + R"(, "sass": {"instruction": "SHFL", "function": "[warp"}})",
          "field 'concepts[0].sass.function': '[warp' is not a regular expression");
  refused("{" + good + ", " + ncu + "}, {" + good + R"(, "time_metric": "x"})",
          "field 'concepts[1].name': duplicate concept 'n' for exercise 'scale'");
  CHECK_THROWS_WITH(parse_manifest(R"({"title": "t", )" + kExercises + R"(, "concepts": {}})", "m.json"),
                    ContainsSubstring("field 'concepts': must be an array"));
}

TEST_CASE("the course's manifests give lab 0, 1, 2, 3, 6 and 7 concept checks, all informative (0 points)",
          "[grader][concepts][manifest]") {
  std::map<std::string, std::size_t> counts;
  for (const auto& entry : fs::directory_iterator(COURSE_LABS_DIR)) {
    if (!fs::exists(entry.path() / "manifest.json")) continue;
    const auto m = load_manifest(entry.path() / "manifest.json");
    for (const auto& x : m.exercises)
      for (const auto& c : x.concepts) {
        CAPTURE(entry.path().filename().string(), x.name, c.name);
        CHECK(c.points == 0);  // a missing tool or counter permission must never cost a student points
        CHECK_FALSE(c.why.empty());
        ++counts[entry.path().filename().string().substr(0, 2)];
      }
  }
  for (const char* lab : {"00", "01", "02", "03", "06", "07"}) {
    CAPTURE(lab);
    CHECK(counts[lab] >= 1);
  }
}

namespace {

LabResult lab_with_concepts() {
  LabResult lab;
  lab.number = 1;
  lab.id = "01_coalescing";
  lab.title = "Memory coalescing";
  ExerciseResult x;
  x.name = "scale";
  x.tests_passed = x.tests_total = 9;
  x.correctness_max = 4;
  x.performance_max = 6;
  x.score = {4, 1, 6, 10};
  ConceptSpec sectors;
  sectors.name = "bytes used per sector";
  sectors.why = "a coalesced load uses all 32 bytes";
  sectors.tool = ConceptTool::kNcu;
  sectors.unit = "B/sector";
  sectors.min = 24;
  sectors.points = 1;
  x.concepts.push_back(concept_result(sectors, 31.94, ""));
  ConceptSpec requests = sectors;
  requests.name = "sectors per request";
  requests.unit = "sectors/req";
  requests.min = 4;
  requests.max = 16;
  requests.points = 0;
  x.concepts.push_back(concept_result(requests, 32.0, ""));
  ConceptSpec shfl;
  shfl.name = "shuffles";
  shfl.tool = ConceptTool::kSass;
  shfl.min = 1;
  shfl.points = 5;
  x.concepts.push_back(concept_result(shfl, std::nullopt, "cuobjdump not found"));
  x.score.total += 1;  // as lab_run adds the points of the checks in range
  ExerciseResult dot;
  dot.name = "dot";
  dot.correctness_max = 4;
  dot.performance_max = 6;
  lab.exercises = {x, dot};
  return lab;
}

}  // namespace

TEST_CASE("the table shows a concept column and a line per check; the JSON has each check or why it was skipped",
          "[grader][concepts][report]") {
  const auto lab = lab_with_concepts();
  const auto table = format_lab_table(lab, "(impl: student)");
  CHECK_THAT(table, ContainsSubstring("concept"));
  CHECK_THAT(table, ContainsSubstring("31.9 B/sector ✓, 32 sectors/req ✗, skipped"));
  CHECK_THAT(table, ContainsSubstring("scale: bytes used per sector: 31.9 B/sector ✓ (expected >= 24 B/sector): a "
                                      "coalesced load uses all 32 bytes"));
  CHECK_THAT(table, ContainsSubstring("scale: sectors per request: 32 sectors/req ✗ (expected 4 to 16 sectors/req)"));
  CHECK_THAT(table, ContainsSubstring("scale: shuffles: not measured (cuobjdump not found)"));
  CHECK_THAT(table, ContainsSubstring("11.0/11"));  // the measured check's point counts, the skipped one's does not

  const auto without = [] {
    auto plain = lab_with_concepts();
    for (auto& x : plain.exercises) x.concepts.clear();
    return format_lab_table(plain, "(impl: student)");
  }();
  CHECK(without.find("concept") == std::string::npos);

  const auto j = to_json(lab.exercises[0]);
  REQUIRE(j.at("concepts").size() == 3);
  const auto& measured = j.at("concepts").at(0);
  CHECK(measured.at("name") == "bytes used per sector");
  CHECK(measured.at("tool") == "ncu");
  CHECK(measured.at("value") == 31.94);
  CHECK(measured.at("expected") == ">= 24");
  CHECK(measured.at("ok") == true);
  CHECK(measured.at("points") == 1);
  CHECK(measured.at("points_max") == 1);
  CHECK_FALSE(measured.contains("skipped"));
  CHECK(j.at("concepts").at(1).at("ok") == false);
  const auto& skipped = j.at("concepts").at(2);
  CHECK(skipped.at("tool") == "sass");
  CHECK(skipped.at("value").is_null());
  CHECK(skipped.at("ok").is_null());
  CHECK(skipped.at("skipped") == "cuobjdump not found");
  CHECK(skipped.at("points_max") == 0);
  CHECK(j.at("max_score") == 11);
  CHECK(to_json(lab.exercises[1]).at("concepts").empty());
}

TEST_CASE("the self-check holds the reference to every concept check that was measured",
          "[grader][concepts][self-check]") {
  auto lab = lab_with_concepts();
  lab.exercises.resize(1);
  Manifest m;
  m.exercises.push_back({"scale", 4, 6, StubKind::kSlow, std::nullopt, {}});
  const auto verdicts = self_check_verdicts(lab, m, "reference", 1);
  REQUIRE(verdicts.size() == 3);  // full marks, then the two measured checks; the skipped one is no verdict
  CHECK(verdicts[1].expectation == "concept 'bytes used per sector' >= 24");
  CHECK(verdicts[1].passed);
  CHECK(verdicts[2].expectation == "concept 'sectors per request' 4 to 16");
  CHECK_FALSE(verdicts[2].passed);
  CHECK(self_check_verdicts(lab, m, "baseline", 1).size() == 1);
}

// ---- end to end: grade --concepts against the fake lab, with stand-in tools -------------------------------------

namespace {

// A bin dir holding a copy of the fake lab and a runners/lab1-student (ncu names the student's process after it).
fs::path fake_bin(const TempDir& dir) {
  const auto bin = dir.path / "bin";
  fs::create_directories(bin / "runners");
  fs::copy_file(fs::path(FAKE_BIN_DIR) / "lab1", bin / "lab1");
  write_text(bin / "runners" / "lab1-student", "a stand-in: cuobjdump is a script here\n");
  return bin;
}

// The fake lab's manifest with concept checks: two on copy's kernels (one ncu run), one on gemm's, SHFL in copy's
// SASS, and a figure of the timed run.
fs::path fake_labs(const TempDir& dir) {
  auto manifest = nlohmann::json::parse(read_text(fs::path(FAKE_LABS_DIR) / "01_fake" / "manifest.json"));
  manifest["concepts"] = nlohmann::json::parse(R"([
    {"exercise": "copy", "name": "bytes used per sector", "unit": "B/sector", "min": 24, "points": 1,
     "why": "every byte fetched is used",
     "ncu": {"kernel": "copy", "numerator": ["smsp__sass_data_bytes_mem_global_op_ld.sum"],
             "denominator": ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]}},
    {"exercise": "copy", "name": "sectors per request", "unit": "sectors/req", "min": 4, "max": 16,
     "why": "a warp's loads touch 4 sectors",
     "ncu": {"kernel": "copy", "numerator": ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
             "denominator": ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]}},
    {"exercise": "copy", "name": "shuffles", "unit": "SHFL", "min": 1, "why": "registers move between lanes",
     "sass": {"instruction": "SHFL", "function": "warp_sum_kernel"}},
    {"exercise": "copy", "name": "library speed", "min": 0.4, "time_metric": "fraction_of_library_speed",
     "why": "a figure of the timed run"},
    {"exercise": "gemm", "name": "active lanes", "unit": "lanes", "min": 28, "why": "no divergence",
     "ncu": {"kernel": "gemm", "numerator": ["smsp__thread_inst_executed.sum"],
             "denominator": ["smsp__inst_executed.sum"]}}
  ])");
  write_text(dir.path / "labs" / "01_fake" / "manifest.json", manifest.dump(2));
  return dir.path / "labs";
}

// Stand-ins for ncu and cuobjdump in `dir`/tools: each logs its command line to FAKE_LAB_TOOL_LOG (FAKE_LAB_*
// variables reach what grade runs). ncu prints recorded-format CSV for the student's runner (and, to be ignored, the
// reference's), or with FAKE_LAB_NCU=noperm the counters' permission error; cuobjdump prints the recorded lab 3 SASS.
fs::path fake_tools(const TempDir& dir) {
  const auto tools = dir.path / "tools";
  fs::create_directories(tools);
  std::string rows;
  for (const auto& [process, values] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{{"lab1-student", {"4,194,304", "131,072", "32,768"}},
                                                                     {"lab1-reference", {"1", "1,000", "1"}}}) {
    rows += csv_row("0", process, "smsp__sass_data_bytes_mem_global_op_ld.sum", "byte", values[0]);
    rows += csv_row("0", process, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", values[1]);
    rows += csv_row("0", process, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request", values[2]);
    rows += csv_row("0", process, "smsp__thread_inst_executed.sum", "inst", "1,600");
    rows += csv_row("0", process, "smsp__inst_executed.sum", "inst", "100");
  }
  write_text(tools / "ncu.csv", "==PROF== Connected to process 77 (/x/runners/lab1-student)\n" + kHeader + "\n" + rows);
  std::ofstream(tools / "ncu") << "#!/bin/sh\necho \"ncu $*\" >> \"$FAKE_LAB_TOOL_LOG\"\n"
                               << "echo \"ncu's TMPDIR=$TMPDIR\" >> \"$FAKE_LAB_TOOL_LOG\"\n"
                               << "if [ \"$FAKE_LAB_NCU\" = noperm ]; then\n"
                               << "  echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
                                  "NVIDIA GPU Performance Counters on the target device 0.'\n  exit 1\nfi\n"
                               << "cat '" << (tools / "ncu.csv").string() << "'\n";
  std::ofstream(tools / "cuobjdump") << "#!/bin/sh\necho \"cuobjdump $*\" >> \"$FAKE_LAB_TOOL_LOG\"\n"
                                     << "cat '" << (kData / "cuobjdump-lab3.sass").string() << "'\n";
  fs::permissions(tools / "ncu", fs::perms::owner_all);
  fs::permissions(tools / "cuobjdump", fs::perms::owner_all);
  return tools;
}

std::string path_with(const fs::path& folder) {
  const char* path = std::getenv("PATH");
  return folder.string() + ":" + (path ? path : "/usr/bin:/bin");
}

const nlohmann::json& concept_named(const nlohmann::json& x, const std::string& name) {
  for (const auto& c : x.at("concepts"))
    if (c.at("name") == name) return c;
  throw std::runtime_error("no concept " + name);
}

}  // namespace

TEST_CASE("grade --concepts measures through ncu and cuobjdump found on PATH, and reports each check",
          "[grader][concepts][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "tools.log";
  const auto bin = fake_bin(dir);
  const auto run = grader_test::run_grade(
      dir, {"lab1", "--concepts", "--labs-dir", fake_labs(dir).string(), "--bin-dir", bin.string()},
      {{"PATH", path_with(fake_tools(dir))}, {"FAKE_LAB_TOOL_LOG", log.string()}});
  CAPTURE(run.process.out, run.process.err);
  REQUIRE(run.results.is_object());
  const auto& copy = grader_test::exercise(run.results, "copy");
  CHECK(copy.at("status") == "ok");
  const auto& bytes = concept_named(copy, "bytes used per sector");
  CHECK(bytes.at("value") == 32.0);  // the student's runner: 4 MiB over 128 Ki sectors, not the reference's rows
  CHECK(bytes.at("ok") == true);
  CHECK(bytes.at("points") == 1);
  CHECK(concept_named(copy, "sectors per request").at("value") == 4.0);
  CHECK(concept_named(copy, "shuffles").at("value") == 3.0);
  CHECK(concept_named(copy, "shuffles").at("tool") == "sass");
  const auto& library = concept_named(copy, "library speed");
  CHECK(library.at("ok") == true);
  CHECK(library.at("value").get<double>() > 0.4);
  CHECK(copy.at("max_score") == 11);  // 10 + the one point of the measured check
  CHECK(copy.at("score").get<double>() > 10.5);
  const auto& lanes = concept_named(grader_test::exercise(run.results, "gemm"), "active lanes");
  CHECK(lanes.at("value") == 16.0);
  CHECK(lanes.at("ok") == false);

  const auto calls = read_text(log);
  CHECK_THAT(calls, ContainsSubstring("--target-processes all"));
  CHECK_THAT(calls, ContainsSubstring("--kernel-name regex:copy"));
  CHECK_THAT(calls, ContainsSubstring(
                        "--metrics smsp__sass_data_bytes_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum " + (bin / "lab1").string() +
                        " check --impl student --exercise copy --seeds 1"));
  CHECK_THAT(calls, ContainsSubstring("cuobjdump -sass " + (bin / "runners" / "lab1-student").string()));
  // ncu runs with the shared /tmp as TMPDIR, which runners of another user can enter (not the run's private folder).
  CHECK_THAT(calls, ContainsSubstring("ncu's TMPDIR=/tmp\n"));
  // One ncu run per exercise and kernel pattern: copy's two checks share one.
  std::size_t ncu_runs = 0;
  for (std::size_t at = calls.find("ncu "); at != std::string::npos; at = calls.find("ncu ", at + 1)) ++ncu_runs;
  CHECK(ncu_runs == 2);
  CHECK_THAT(run.process.out, ContainsSubstring("32 B/sector ✓, 4 sectors/req ✓, 3 SHFL ✓"));
  CHECK_THAT(run.process.out, ContainsSubstring("gemm: active lanes: 16 lanes ✗ (expected >= 28 lanes)"));
}

TEST_CASE("grade --concepts without ncu or cuobjdump says so once and grades without them", "[grader][concepts][e2e]") {
  const TempDir dir;
  const auto labs = fake_labs(dir);
  const auto bin = fake_bin(dir);
  const auto check_skipped = [&](const grader_test::GradeRun& run, const std::string& why) {
    CAPTURE(run.process.err);
    REQUIRE(run.results.is_object());
    const auto& copy = grader_test::exercise(run.results, "copy");
    CHECK(copy.at("status") == "ok");
    CHECK(concept_named(copy, "bytes used per sector").at("skipped") == why);
    CHECK(concept_named(copy, "bytes used per sector").at("value").is_null());
    CHECK(concept_named(copy, "shuffles").at("skipped") == "cuobjdump not found");
    CHECK(concept_named(copy, "library speed").at("ok") == true);  // no tool needed
    CHECK(copy.at("max_score") == 10);                                // the skipped check's point is not at stake
    CHECK(grader_test::exercise(run.results, "gemm").at("status") == "ok");
  };
  SECTION("given paths that do not exist") {
    const auto run = grader_test::run_grade(
        dir, {"lab1", "--concepts", "--labs-dir", labs.string(), "--bin-dir", bin.string(), "--ncu",
              (dir.path / "no-ncu").string(), "--cuobjdump", (dir.path / "no-cuobjdump").string()});
    check_skipped(run, "ncu (Nsight Compute) not found");
    const auto& err = run.process.err;
    const auto first = err.find("ncu (Nsight Compute) not found");
    CHECK(first != std::string::npos);
    CHECK(err.find("ncu (Nsight Compute) not found", first + 1) == std::string::npos);
    CHECK_THAT(err, ContainsSubstring("cuobjdump not found (no file"));
  }
  SECTION("a PATH without them") {
    if (fs::exists("/usr/local/cuda/bin/ncu") || fs::exists("/usr/local/cuda/bin/cuobjdump"))
      SKIP("this machine has ncu or cuobjdump in /usr/local/cuda/bin, where grade looks after PATH");
    const auto empty = dir.path / "empty";
    fs::create_directories(empty);
    const auto run = grader_test::run_grade(
        dir, {"lab1", "--concepts", "--labs-dir", labs.string(), "--bin-dir", bin.string()},
        {{"PATH", empty.string()}, {"CUDA_HOME", ""}});
    check_skipped(run, "ncu (Nsight Compute) not found");
    CHECK_THAT(run.process.err, ContainsSubstring("not on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin"));
  }
  SECTION("ncu without permission to the counters: said once, no second ncu run") {
    const auto log = dir.path / "tools.log";
    const auto run = grader_test::run_grade(
        dir, {"lab1", "--concepts", "--labs-dir", labs.string(), "--bin-dir", bin.string(), "--cuobjdump",
              (dir.path / "no-cuobjdump").string()},
        {{"PATH", path_with(fake_tools(dir))}, {"FAKE_LAB_TOOL_LOG", log.string()}, {"FAKE_LAB_NCU", "noperm"}});
    const std::string why = "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)";
    check_skipped(run, why);
    CHECK(concept_named(grader_test::exercise(run.results, "gemm"), "active lanes").at("skipped") == why);
    const auto& err = run.process.err;
    const auto first = err.find("ERR_NVGPUCTRPERM");
    CHECK(first != std::string::npos);
    CHECK(err.find("ERR_NVGPUCTRPERM", first + 1) == std::string::npos);
    const auto calls = read_text(log);
    CHECK(calls.find("ncu ") == calls.rfind("ncu "));  // gemm's check did not try again
  }
}

TEST_CASE("without --concepts no check runs and the results list none", "[grader][concepts][e2e]") {
  const TempDir dir;
  const auto log = dir.path / "tools.log";
  const auto run = grader_test::run_grade(
      dir, {"lab1", "--labs-dir", fake_labs(dir).string(), "--bin-dir", fake_bin(dir).string()},
      {{"PATH", path_with(fake_tools(dir))}, {"FAKE_LAB_TOOL_LOG", log.string()}});
  REQUIRE(run.results.is_object());
  CHECK(grader_test::exercise(run.results, "copy").at("concepts").empty());
  CHECK_FALSE(fs::exists(log));
  CHECK(run.process.out.find("concept") == std::string::npos);
}
