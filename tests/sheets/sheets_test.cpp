// The exercise sheets' measured numbers, checked against results/ (sheet_check.hpp says how they are marked): first
// the checker on small made-up sheets, so that each rule is seen to fail, then every labs/NN_name/README.md.

#include "sheet_check.hpp"

#include <grader/sources_hash.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;

const fs::path kRepo = COURSE_SOURCE_DIR;

// The markers' mechanics, read from old results files that predate the fingerprints (their own tests are below).
sheets::Context in_lab1() { return {kRepo, kRepo / "labs" / "01_coalescing", false}; }

std::string all(const std::vector<sheets::Finding>& findings) {
  std::string s;
  for (const auto& f : findings) s += "line " + std::to_string(f.line) + ": " + f.what + "\n";
  return s;
}

/// Every labs/NN_name/README.md, with its lab folder and its text.
struct Sheet {
  fs::path lab_dir, path;
  std::string text;
};
std::vector<Sheet> all_sheets() {
  std::vector<Sheet> sheets;
  for (const auto& entry : fs::directory_iterator(kRepo / "labs")) {
    const fs::path sheet = entry.path() / "README.md";
    if (!fs::is_regular_file(sheet)) continue;
    std::ifstream in(sheet);
    std::stringstream text;
    text << in.rdbuf();
    sheets.push_back({entry.path(), sheet, text.str()});
  }
  return sheets;
}

// The reference's median time of lab 1's scale in results/h200.json, as the path of a marker.
const std::string kScaleReference =
    "h200.json runs[impl=reference].labs[lab=1].exercises[name=scale].median_ms.reference";

}  // namespace

TEST_CASE("a path walks keys, indices and key=value selections of a results file", "[sheets]") {
  const auto doc = nlohmann::json::parse(R"({"runs": [{"impl": "a", "labs": [{"lab": 1, "t": 2.5, "c::d": {"e": 3}}]},
                                                      {"impl": "b", "labs": [{"lab": 1, "t": 7}]},
                                                      {"impl": "b", "labs": []}]})");
  std::string error;
  CHECK(sheets::resolve(doc, "runs[impl=a].labs[lab=1].t", error) == 2.5);
  CHECK(sheets::resolve(doc, "runs[1].labs[0].t", error) == 7.0);
  CHECK(sheets::resolve(doc, "runs[0].labs[0][\"c::d\"].e", error) == 3.0);
  SECTION("a selection matching no element or several is an error, not a guess") {
    CHECK_FALSE(sheets::resolve(doc, "runs[impl=c].labs[0].t", error));
    CHECK_THAT(error, ContainsSubstring("0 elements with impl=c"));
    CHECK_FALSE(sheets::resolve(doc, "runs[impl=b].labs[0].t", error));
    CHECK_THAT(error, ContainsSubstring("2 elements with impl=b (add an index)"));
  }
  SECTION("a missing key, an index past the end, a non-number and a malformed path are errors") {
    for (const char* bad : {"runs[0].labs[0].u", "runs[5].labs", "runs[0].impl", "runs[0]..labs", ""}) {
      CAPTURE(bad);
      CHECK_FALSE(sheets::resolve(doc, bad, error));
    }
  }
}

TEST_CASE("a printed number matches its value only within the rounding it shows", "[sheets]") {
  CHECK(sheets::printed_matches("0.550", 0.5497280061));
  CHECK_FALSE(sheets::printed_matches("0.549", 0.5497280061));
  CHECK(sheets::printed_matches("91.6", 91.63348));
  CHECK_FALSE(sheets::printed_matches("91.7", 91.63348));
  CHECK(sheets::printed_matches("14,680,064", 14680064));
  CHECK_FALSE(sheets::printed_matches("14,680,065", 14680064));
  CHECK(sheets::printed_matches("3902", 3901.79));
  CHECK_FALSE(sheets::printed_matches("3900", 3901.79));
}

TEST_CASE("a marked number is checked against the results file it names", "[sheets]") {
  SECTION("the value as results/ holds it passes") {
    CHECK(all(sheets::check_sheet("The reference took <!-- measured: " + kScaleReference + " -->0.550 ms.\n",
                                  in_lab1())) == "");
  }
  SECTION("a number that differs from results/ fails, with both numbers") {
    const auto f = sheets::check_sheet("Intro.\n\nIt took <!-- measured: " + kScaleReference + " -->0.600 ms.\n",
                                       in_lab1());
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == 3);
    CHECK_THAT(f[0].what, ContainsSubstring("prints 0.600, results/h200.json holds 0.5497"));
  }
  SECTION("ratios and unit changes are computed from results/") {
    const std::string base = "runs[impl=reference].labs[lab=1].exercises[name=scale].";
    CHECK(all(sheets::check_sheet("<!-- measured: h200.json " + base + "median_ms.baseline / " + base +
                                      "median_ms.reference -->29.4x faster, <!-- measured: h200.json " + base +
                                      "rate * 0.001 -->3.90 TB/s.\n",
                                  in_lab1())) == "");
    CHECK(sheets::check_sheet("<!-- measured: h200.json " + base + "rate * 0.001 -->3.80 TB/s\n", in_lab1()).size() ==
          1);
  }
  SECTION("a marker pointing at nothing fails: a missing file, a missing key, no number after it") {
    for (const std::string& bad : std::vector<std::string>{
             "<!-- measured: h300.json runs[0].x -->1.0 ms",
             "<!-- measured: h200.json runs[impl=reference].labs[lab=9].score -->1.0",
             "<!-- measured: " + kScaleReference + " --> about half a millisecond"}) {
      CAPTURE(bad);
      CHECK(sheets::check_sheet(bad + "\n", in_lab1()).size() == 1);
    }
  }
  SECTION("a results file in a folder of results/ is named by its path under results/") {
    const std::string marker = "<!-- measured: 2026-11-23-h200-99f734a/h200.json "
                               "runs[impl=reference].labs[lab=1].exercises[name=scale].percent_of_ceiling -->";
    CHECK(all(sheets::check_sheet(marker + "92.0% of the copy.\n", in_lab1())) == "");
    const auto f = sheets::check_sheet(marker + "91.6% of the copy.\n", in_lab1());
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].what, ContainsSubstring("results/2026-11-23-h200-99f734a/h200.json holds 91.97"));
  }
  SECTION("a text file in results/ must print the number as the sheet does") {
    CHECK(all(sheets::check_sheet("<!-- measured: h200-lab06-bank-conflicts.txt -->65,951,034 conflicts\n",
                                  in_lab1())) == "");
    CHECK(sheets::check_sheet("<!-- measured: h200-lab06-bank-conflicts.txt -->65,951,035 conflicts\n", in_lab1())
              .size() == 1);
  }
}

TEST_CASE("an unmarked measurement is a finding unless it is marked as napkin math", "[sheets]") {
  SECTION("a time or a rate with its unit") {
    for (const char* text : {"The kernel takes 0.25 ms.", "It reads at 4221 GB/s.", "cuBLAS: 51 TFLOP/s", "A run takes 20 s."}) {
      CAPTURE(text);
      const auto f = sheets::check_sheet(std::string(text) + "\n", in_lab1());
      REQUIRE(f.size() == 1);
      CHECK_THAT(f[0].what, ContainsSubstring("unmarked measurement"));
    }
  }
  SECTION("a decimal, a percentage or a ratio in a paragraph about measurements") {
    for (const char* text : {"Measured: the stub is 7.7x slower.", "The anchors put it at 58% of cuBLAS.",
                             "As measured, 14,680,064 conflicts."}) {
      CAPTURE(text);
      CHECK(sheets::check_sheet(std::string(text) + "\n", in_lab1()).size() == 1);
    }
  }
  SECTION("napkin math, inline code and fenced code are not measurements") {
    const std::string text =
        "Measured below. <!-- napkin -->At 4.8 TB/s that takes 0.04 ms, 95% of it.\n"
        "\n"
        "Before <!-- napkin -->5 ms<!-- /napkin --> and `--max-seconds 1.5 ms` are fine.\n"
        "\n"
        "```sh\n./lab1 time  # 0.55 ms\n```\n";
    CHECK(all(sheets::check_sheet(text, in_lab1())) == "");
  }
  SECTION("a table after a paragraph about measurements is part of it") {
    CHECK(sheets::check_sheet("Measured on the H200:\n\n| kernel | conflicts |\n| --- | --- |\n| tile | 65,951,261 |\n",
                              in_lab1())
              .size() == 1);
    CHECK(sheets::check_sheet("Tests:\n\n| shape | seeds |\n| --- | --- |\n| 1,025 | 3 |\n", in_lab1()).empty());
  }
  SECTION("napkin marking ends with its paragraph") {
    CHECK(sheets::check_sheet("<!-- napkin -->1.2 ms\n\nThen 3.4 ms.\n", in_lab1()).size() == 1);
  }
}

TEST_CASE("a sheet citing a file that is not in the repository is a finding", "[sheets]") {
  CHECK(all(sheets::check_sheet("See `coalescing.hpp`, `../../docs/static-check.md`, [README](../../README.md#x), "
                                "`cpu_reference.{hpp,cpp}`, results/h200.json and your `student.cu`.\n",
                                in_lab1())) == "");
  for (const char* text : {"`shared/anchors/h200-2026-11-21.txt`", "in `../shared/anchors/`",
                           "see results/h300.json", "[the log](results/none.log)", "`cpu_reference.{hpp,cuh}`"}) {
    CAPTURE(text);
    const auto f = sheets::check_sheet(std::string(text) + "\n", in_lab1());
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].what, ContainsSubstring("not in the repository"));
  }
}

TEST_CASE("every exercise sheet's measured numbers agree with results/ and every file it cites exists", "[sheets]") {
  const auto sheets = all_sheets();
  for (const auto& sheet : sheets) {
    CAPTURE(sheet.path.string());
    const auto findings = sheets::check_sheet(sheet.text, {kRepo, sheet.lab_dir});
    INFO(all(findings));
    CHECK(findings.empty());
    // Every sheet tells the reader how to redo its napkin math for their own GPU.
    CHECK(sheet.text.find("**Redo the math for your GPU.** `./grade --device`") != std::string::npos);
  }
  CHECK(sheets.size() >= 7);
}

namespace {

// A made-up sheet whose ceiling section ends with the references' table, rows as given.
std::string with_table(const std::string& rows) {
  return "# Lab\n\n## The ceiling\nThe copy.\n\n### How close the references come\nOn the H200.\n\n"
         "| exercise | ceiling | reference | why it stops there |\n| --- | --- | --- | --- |\n" +
         rows + "\n## How it is graded\nPoints.\n";
}

// The marker of a value of the 99f734a run's reference: `<!-- measured: ... .field -->`.
std::string marked(int lab, const std::string& name, const std::string& field) {
  return "<!-- measured: 2026-11-23-h200-99f734a/h200.json runs[impl=reference].labs[lab=" + std::to_string(lab) +
         "].exercises[name=" + name + "]." + field + " -->";
}

// A table row for an exercise of the 99f734a run, its reference cell marked.
std::string row(int lab, const std::string& name, const std::string& printed, const std::string& why) {
  return "| " + name + " | the ceiling | " + marked(lab, name, "percent_of_ceiling") + printed + "% | " + why + " |\n";
}

const std::string kWhy = "one element per thread keeps too few bytes in flight, by Little's law";

}  // namespace

TEST_CASE("a number not measured yet is a placeholder naming where it will come from, until results/ holds it",
          "[sheets]") {
  const std::string later = "h200.json runs[impl=reference].labs[lab=0].exercises[name=ilp].median_ms.reference";
  SECTION("a placeholder whose results file or path does not exist yet passes, and exempts nothing else") {
    CHECK(all(sheets::check_sheet("The reference took <!-- to measure: " + later + " --> ms.\n", in_lab1())) == "");
    CHECK(all(sheets::check_sheet("It took <!-- to measure: 2099-01-01-h100/h100.json runs[0].x --> ms.\n",
                                  in_lab1())) == "");
    CHECK(sheets::check_sheet("<!-- to measure: " + later + " --> ms, and 0.5 ms measured by hand.\n", in_lab1())
              .size() == 1);
  }
  SECTION("a number typed after a placeholder fails") {
    const auto f = sheets::check_sheet("It took <!-- to measure: " + later + " -->0.550 ms.\n", in_lab1());
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].what, ContainsSubstring("typed, not measured"));
  }
  SECTION("a placeholder whose number results/ holds now fails: it must become a measured marker") {
    const auto f = sheets::check_sheet("It took <!-- to measure: " + kScaleReference + " --> ms.\n", in_lab1());
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].what, ContainsSubstring("holds it now"));
  }
  SECTION("a placeholder without a JSON file and a path fails") {
    CHECK(sheets::check_sheet("<!-- to measure: h200.json --> ms\n", in_lab1()).size() == 1);
    CHECK(sheets::check_sheet("<!-- to measure: h200-lab06-bank-conflicts.txt --> conflicts\n", in_lab1()).size() ==
          1);
  }
  SECTION("a reference cell may be its exercise's placeholder, and no other's") {
    const auto cell = [](const std::string& exercise) {
      return "<!-- to measure: h200.json runs[impl=reference].labs[lab=0].exercises[name=" + exercise +
             "].percent_of_ceiling -->";
    };
    const std::string good = with_table("| ilp | a copy | " + cell("ilp") + " | - |\n");
    CHECK(all(sheets::check_reference_table(good, {"ilp"}, in_lab1())) == "");
    CHECK(all(sheets::check_sheet(good, in_lab1())) == "");
    CHECK(sheets::check_reference_table(with_table("| ilp | a copy | " + cell("waves") + " | - |\n"), {"ilp"},
                                        in_lab1())
              .size() == 1);
  }
}

TEST_CASE("a reference below its threshold without a reason in the ceiling table is a finding", "[sheets]") {
  const std::vector<std::string> lab2 = {"branches", "block_sums"};
  SECTION("one explained row per exercise, in the manifest's order, passes") {
    const std::string sheet = with_table(row(2, "branches", "97.6", "-") + row(2, "block_sums", "22.3", kWhy));
    CHECK(all(sheets::check_reference_table(sheet, lab2, in_lab1())) == "");
    CHECK(all(sheets::check_sheet(sheet, in_lab1())) == "");
  }
  SECTION("a reference below the threshold with no sentence fails, at its row") {
    for (const std::string& why : {std::string("-"), std::string(""), std::string("latency-bound, see above")}) {
      CAPTURE(why);
      const auto f = sheets::check_reference_table(
          with_table(row(2, "branches", "97.6", "-") + row(2, "block_sums", "22.3", why)), lab2, in_lab1());
      REQUIRE(f.size() == 1);
      CHECK(f[0].line == 12);  // the block_sums row
      CHECK_THAT(f[0].what, ContainsSubstring("block_sums: the reference reaches 22.3% of its ceiling"));
    }
  }
  SECTION("the threshold is 95 for a memory-bound exercise, 80 for a compute-bound one, read from results/") {
    // warp_sum (GFLOP/s) at 84.4% needs no reason; scale (GB/s) at 92.0% does.
    CHECK(sheets::check_reference_table(with_table(row(3, "warp_sum", "84.4", "-")), {"warp_sum"}, in_lab1()).empty());
    const auto f = sheets::check_reference_table(with_table(row(1, "scale", "92.0", "-")), {"scale"}, in_lab1());
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].what, ContainsSubstring("memory-bound threshold of 95%"));
    CHECK(sheets::check_reference_table(with_table(row(1, "scale", "92.0", kWhy)), {"scale"}, in_lab1()).empty());
  }
  SECTION("a missing, extra or misplaced row fails") {
    CHECK_FALSE(sheets::check_reference_table(with_table(row(2, "branches", "97.6", "-")), lab2, in_lab1()).empty());
    CHECK_FALSE(sheets::check_reference_table(
                    with_table(row(2, "block_sums", "22.3", kWhy) + row(2, "branches", "97.6", "-")), lab2, in_lab1())
                    .empty());
    CHECK_FALSE(sheets::check_reference_table(with_table(row(2, "branches", "97.6", "-") +
                                                         row(2, "block_sums", "22.3", kWhy) +
                                                         row(2, "regroup", "70.3", kWhy)),
                                              lab2, in_lab1())
                    .empty());
  }
  SECTION("a reference cell without its exercise's marked percent_of_ceiling fails") {
    for (const std::string& bad : std::vector<std::string>{
             "| block_sums | the copy | 22.3% | " + kWhy + " |\n",
             "| block_sums | the copy | " + marked(2, "branches", "percent_of_ceiling") + "97.6% | - |\n",
             "| block_sums | the copy | " + marked(2, "block_sums", "rate") + "925.5% | - |\n",
             "| block_sums | the copy | <!-- measured: h300.json runs[impl=reference].labs[lab=2]"
             ".exercises[name=block_sums].percent_of_ceiling -->22.3% | - |\n"}) {
      CAPTURE(bad);
      const auto f = sheets::check_reference_table(with_table(bad), {"block_sums"}, in_lab1());
      REQUIRE(f.size() == 1);
      CHECK_THAT(f[0].what, ContainsSubstring("block_sums: "));
    }
  }
  SECTION("a table missing, outside '## The ceiling', or with other columns fails") {
    const std::string table = "| exercise | ceiling | reference | why it stops there |\n| --- | --- | --- | --- |\n" +
                              row(2, "branches", "97.6", "-") + row(2, "block_sums", "22.3", kWhy);
    const std::string other_columns = "| exercise | reference | ceiling | why |" + table.substr(table.find('\n'));
    for (const std::string& bad : std::vector<std::string>{
             "## The ceiling\nThe copy.\n",
             "## The ceiling\nThe copy.\n\n## Notes\n### How close the references come\n\n" + table,
             "## The ceiling\n### How close the references come\n\n" + other_columns}) {
      CAPTURE(bad);
      CHECK(sheets::check_reference_table(bad, lab2, in_lab1()).size() == 1);
    }
  }
}

TEST_CASE("every exercise sheet's ceiling section has a row per exercise and explains every reference below its "
          "threshold",
          "[sheets]") {
  const auto sheets = all_sheets();
  for (const auto& sheet : sheets) {
    CAPTURE(sheet.path.string());
    std::ifstream in(sheet.lab_dir / "manifest.json");
    const auto manifest = nlohmann::json::parse(in);
    std::vector<std::string> exercises;
    for (const auto& e : manifest.at("exercises")) exercises.push_back(e.at("name").get<std::string>());
    const auto findings = sheets::check_reference_table(sheet.text, exercises, {kRepo, sheet.lab_dir});
    INFO(all(findings));
    CHECK(findings.empty());
  }
  CHECK(sheets.size() >= 7);
}

TEST_CASE("a table row whose cells do not match its header is a finding", "[sheets]") {
  const std::string table = "| a | b | c |\n| --- | --- | --- |\n| 1 | 2 | 3 |\n";
  CHECK(sheets::check_table_shapes(table).empty());
  // Another table's row pasted in: four cells under a header of three.
  const auto findings = sheets::check_table_shapes(table + "| x | <!-- measured: f.json a.b -->1 | y | z |\n");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].line == 4);
  CHECK_THAT(findings[0].what, ContainsSubstring("4 cells under a header of 3"));
  CHECK(sheets::check_table_shapes(table + "| 1 | 2 |\n").size() == 1);  // one cell short
}

TEST_CASE("every exercise sheet's tables have as many cells in each row as in their header", "[sheets]") {
  const auto sheets = all_sheets();
  for (const auto& sheet : sheets) {
    CAPTURE(sheet.path.string());
    const auto findings = sheets::check_table_shapes(sheet.text);
    INFO(all(findings));
    CHECK(findings.empty());
  }
  CHECK(sheets.size() >= 7);
}

TEST_CASE("every page of docs/ and the README has tables whose rows match their header", "[sheets]") {
  // docs/harness.md is Doxygen's main page, which renders a row of extra cells (a `|` inside a cell) without a
  // warning: the table breaks silently there and on GitHub alike.
  std::vector<fs::path> pages = {kRepo / "README.md"};
  for (const auto& entry : fs::directory_iterator(kRepo / "docs"))
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  for (const auto& page : pages) {
    CAPTURE(page.string());
    std::ifstream in(page);
    std::stringstream text;
    text << in.rdbuf();
    const auto findings = sheets::check_table_shapes(text.str());
    INFO(all(findings));
    CHECK(findings.empty());
  }
  CHECK(pages.size() >= 5);
}

TEST_CASE("every exercise sheet states its rules under the same five headings, in the same order", "[sheets]") {
  // What a submission may do, answered the same way in every lab: which libraries and calls, who owns the launch
  // shape, what scratch memory there is, whether closed forms are allowed, and why caching cannot pay.
  const std::vector<std::string> headings = {"- **Libraries.**", "- **Launch shape.**", "- **Scratch memory.**",
                                             "- **Closed forms.**", "- **Caching.**"};
  const auto sheets = all_sheets();
  for (const auto& sheet : sheets) {
    const std::string& s = sheet.text;
    CAPTURE(sheet.path.string());
    const auto start = s.find("\n## Rules\n");
    REQUIRE(start != std::string::npos);
    const auto end = s.find("\n## ", start + 1);
    const std::string rules = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::size_t at = 0;
    for (const auto& heading : headings) {
      CAPTURE(heading);
      const auto found = rules.find("\n" + heading, at);
      CHECK(found != std::string::npos);
      if (found != std::string::npos) at = found + 1;
    }
  }
  CHECK(sheets.size() >= 7);
}

TEST_CASE("a marked number from a run of other sources than the tree's is a finding", "[sheets]") {
  // A course tree of its own: one lab, one results file that records the lab's fingerprint as `grade` does.
  const fs::path root = fs::temp_directory_path() / ("sheets-sources-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "labs" / "01_x");
  fs::create_directories(root / "solutions" / "01_x");
  fs::create_directories(root / "results");
  const auto write = [](const fs::path& file, const std::string& text) { std::ofstream(file) << text; };
  write(root / "labs" / "01_x" / "stub.cu", "// v1\n");
  write(root / "solutions" / "01_x" / "solution.cu", "// v1\n");
  write(root / "labs" / "01_x" / "README.md", "the sheet\n");
  const auto results = [&](bool with_sources) {
    nlohmann::json doc = {{"runs", {{{"impl", "reference"}, {"labs", {{{"lab", 1}, {"ms", 1.5}}}}}}}};
    if (with_sources) doc["sources"] = grader::course_sources(root / "labs");
    write(root / "results" / "run.json", doc.dump());
  };
  const sheets::Context context{root, root / "labs" / "01_x"};
  const std::string sheet = "It took <!-- measured: run.json runs[impl=reference].labs[lab=1].ms -->1.5 ms.\n";
  results(true);
  CHECK(all(sheets::check_sheet(sheet, context)) == "");

  write(root / "labs" / "01_x" / "README.md", "the sheet, edited\n");  // the sheet is not what the run measured
  write(root / "labs" / "01_x" / "student.cu", "// a student's own\n");
  CHECK(all(sheets::check_sheet(sheet, context)) == "");

  write(root / "solutions" / "01_x" / "solution.cu", "// v2\n");  // the reference changed after the run
  const auto f = sheets::check_sheet(sheet, context);
  REQUIRE(f.size() == 1);
  CHECK_THAT(f[0].what, ContainsSubstring("the run measured lab1's sources at") &&
                            ContainsSubstring("measure the lab again and cite the new run"));

  results(false);  // a run from before the fingerprints: what it measured is unknown
  const auto unknown = sheets::check_sheet(sheet, context);
  REQUIRE(unknown.size() == 1);
  CHECK_THAT(unknown[0].what, ContainsSubstring("the run records no fingerprints of its sources"));
  // A sentence about code since changed says so: its value is still checked, its sources are not.
  const std::string older = "It took <!-- measured on older sources: run.json runs[impl=reference].labs[lab=1].ms -->";
  CHECK(all(sheets::check_sheet(older + "1.5 ms.\n", context)) == "");
  CHECK(sheets::check_sheet(older + "1.7 ms.\n", context).size() == 1);

  // An experiment's JSON (no "runs") measures code of its own: not compared.
  write(root / "results" / "bench.json", nlohmann::json{{"ms", 1.5}}.dump());
  CHECK(all(sheets::check_sheet("It took <!-- measured: bench.json ms -->1.5 ms.\n", context)) == "");
  fs::remove_all(root);
}

TEST_CASE("a marked number of another lab is held against that lab's fingerprint, not the sheet's", "[sheets]") {
  const fs::path root = fs::temp_directory_path() / ("sheets-other-lab-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char* lab : {"01_x", "02_y"}) {
    fs::create_directories(root / "labs" / lab);
    fs::create_directories(root / "solutions" / lab);
    std::ofstream(root / "solutions" / lab / "solution.cu") << "// v1\n";
  }
  fs::create_directories(root / "results");
  nlohmann::json doc = {{"runs", {{{"impl", "reference"}, {"labs", {{{"lab", 2}, {"ms", 2.5}}}}}}}};
  doc["sources"] = grader::course_sources(root / "labs");
  std::ofstream(root / "results" / "run.json") << doc.dump();
  const sheets::Context context{root, root / "labs" / "01_x"};
  const std::string sheet = "Lab 2's took <!-- measured: run.json runs[impl=reference].labs[lab=2].ms -->2.5 ms.\n";
  CHECK(all(sheets::check_sheet(sheet, context)) == "");

  std::ofstream(root / "solutions" / "02_y" / "solution.cu") << "// v2\n";  // lab 2 changed, this sheet's lab not
  const auto f = sheets::check_sheet(sheet, context);
  REQUIRE(f.size() == 1);
  CHECK_THAT(f[0].what, ContainsSubstring("the run measured lab2's sources at"));
  fs::remove_all(root);
}
