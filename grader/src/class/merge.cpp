// grade merge: per-student results files (and shards: folders or class files from several machines) into one class
// file, sorted by student, in the format docs/batch.md gives; and the summary `grade batch` prints at its end.

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <harness/median.hpp>

#include "grader/batch.hpp"
#include "grader/report.hpp"

namespace grader::batch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const fs::path& file) {
  std::ifstream in(file);
  json j = json::parse(in, nullptr, false);
  if (!in.good() && !in.eof()) throw std::runtime_error(file.string() + ": cannot read");
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error(file.string() + ": not a JSON object");
  return j;
}

// The rows one file gives: a class file's students, or the one row of a per-student file.
std::vector<json> rows_of(const fs::path& file) {
  const json j = read_json(file);
  if (j.value("kind", "") == "class") {
    if (!j.contains("students") || !j.at("students").is_array())
      throw std::runtime_error(file.string() + ": a class file without a students list");
    return j.at("students").get<std::vector<json>>();
  }
  if (!j.contains("student") || !j.at("student").is_string())
    throw std::runtime_error(file.string() + ": neither a class file nor a student's results (no \"student\")");
  return {class_row(j)};
}

// The .json files of a folder that hold results: its students/ folder where it has one (a batch's results folder),
// else every visible .json file in it.
std::vector<fs::path> files_in(const fs::path& dir) {
  const fs::path students = dir / "students";
  const fs::path from = fs::is_directory(students) ? students : dir;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(from)) {
    const auto name = entry.path().filename().string();
    if (entry.is_regular_file() && name[0] != '.' && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The kinds of build failure, as a batch records them in a student's "builds" (batch_worker.cpp).
constexpr const char* kNoSubmission = "no submission";
constexpr const char* kBuildFailures[] = {kNoSubmission, "compile error", "refused", "link error"};

// A lab that was not built, in a record of an older batch (no "builds"): the kind its own message starts with (each
// unbuilt lab carries exactly one message), "not graded" when it starts with none of them.
std::string legacy_kind(const std::string& message) {
  for (const char* kind : kBuildFailures)
    if (message.rfind(kind, 0) == 0) return kind;
  return "not graded";
}

std::string text_or_empty(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The GPU kinds a class's students were graded on (each results file's machine), with how many students each. A
// partial solution's time against the reference's and the baseline's depends on the machine's balance (where memory
// is faster, a kernel needs more bytes in flight to keep up), so its performance points do too: a class graded on
// two kinds is not graded alike.
std::map<std::string, int> gpu_kinds(const json& students) {
  std::map<std::string, int> kinds;
  for (const json& row : students) {
    const auto results = row.find("results");
    if (results == row.end() || !results->is_object()) continue;
    const auto machine = results->find("machine");
    if (machine != results->end() && machine->is_object()) {
      const auto gpu = text_or_empty(*machine, "gpu");
      if (!gpu.empty()) ++kinds[gpu];
    }
  }
  return kinds;
}

// One lab's line of the summary's table: the graded students' scores and how many were not built, by kind.
struct LabLine {
  std::vector<double> scores;
  std::optional<double> max_score;
  std::map<std::string, int> not_built;
};

}  // namespace

json class_row(const json& file) {
  json row = {{"student", file.at("student")}, {"results", nullptr}, {"error", file.value("error", json(nullptr))}};
  if (file.contains("builds")) row["builds"] = file.at("builds");
  if (file.contains("grading")) row["grading"] = file.at("grading");
  if (file.contains("runs")) {
    json results = file;
    results.erase("student");
    results.erase("error");
    results.erase("builds");
    results.erase("grading");
    row["results"] = std::move(results);
  }
  return row;
}

json merge_class(const std::vector<fs::path>& inputs, const std::string& date, const std::string& commit) {
  std::map<std::string, json> by_student;
  for (const auto& input : inputs) {
    if (!fs::exists(input)) throw std::runtime_error(input.string() + ": no such file or folder");
    for (const auto& file : fs::is_directory(input) ? files_in(input) : std::vector<fs::path>{input}) {
      for (auto& row : rows_of(file)) {
        const auto name = row.at("student").get<std::string>();
        if (by_student.count(name) != 0)
          throw std::runtime_error(fmt::format("student '{}' is in more than one input (second: {})", name,
                                               file.string()));
        by_student.emplace(name, std::move(row));
      }
    }
  }
  json students = json::array();
  for (auto& [name, row] : by_student) students.push_back(std::move(row));
  return {{"schema", 1}, {"kind", "class"}, {"date", date}, {"commit", commit}, {"students", std::move(students)}};
}

std::string format_summary(const json& class_file, int graded_now, std::chrono::duration<double> elapsed) {
  std::map<int, LabLine> table;
  std::map<std::string, int> failures;  // kind of failure -> count of (student, lab)
  std::vector<std::string> lines;
  int no_results = 0;
  for (const json& row : class_file.at("students")) {
    const auto student = row.at("student").get<std::string>();
    const json& results = row.at("results");
    if (!results.is_object()) ++no_results;
    // Each lab not built and why, from the record's fields: its builds, else (an older batch) its unbuilt labs.
    std::map<int, std::pair<std::string, std::string>> unbuilt;  // lab -> kind, message
    if (const auto builds = row.find("builds"); builds != row.end() && builds->is_array()) {
      for (const json& b : *builds) {
        const int lab = b.at("lab").get<int>();
        auto& line = table[lab];
        if (b.contains("max_score") && b.at("max_score").is_number()) line.max_score = b.at("max_score").get<double>();
        const auto outcome = b.at("outcome").get<std::string>();
        if (outcome != "built") unbuilt[lab] = {outcome, text_or_empty(b, "message")};
      }
    } else if (results.is_object()) {
      for (const json& lab : results.at("runs").at(0).at("labs"))
        if (!lab.value("built", true)) unbuilt[lab.at("lab").get<int>()] = {legacy_kind(lab.value("message", "")),
                                                                           lab.value("message", "")};
    } else {  // an older batch's record of a student with nothing built: which labs, and why, it does not say
      ++failures["not graded"];
      lines.push_back(fmt::format("  {}: {}", student, text_or_empty(row, "error")));
    }
    for (const auto& [lab, why] : unbuilt) {
      const auto& [kind, message] = why;
      ++failures[kind];
      ++table[lab].not_built[kind];
      // A lab not handed in is counted, not listed: a batch of several labs would list it for most students.
      if (kind != kNoSubmission) lines.push_back(fmt::format("  {}: lab{}: {}", student, lab, message));
    }
    if (!results.is_object()) continue;
    for (const json& lab : results.at("runs").at(0).at("labs")) {
      const int number = lab.at("lab").get<int>();
      auto& line = table[number];
      line.max_score = lab.at("max_score").get<double>();
      if (!lab.value("built", true)) continue;
      line.scores.push_back(lab.at("score").get<double>());
      for (const json& x : lab.at("exercises")) {
        const auto status = x.at("status").get<std::string>();
        if (status == "crash" || status == "timeout" || status == "cuda-error" || status == "bad-output") {
          ++failures["crashed"];
          lines.push_back(fmt::format("  {}: lab{}: {} {}: {}", student, number, x.at("name").get<std::string>(),
                                      status, x.value("message", "")));
        }
      }
    }
  }
  std::string out = fmt::format("class summary: {} students, {} with results\n", class_file.at("students").size(),
                                class_file.at("students").size() - static_cast<std::size_t>(no_results));
  // Per lab: the graded students' scores, then the students it was not built for, by why (docs/batch.md).
  out += fmt::format("  {:<6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n", "lab", "graded", "min",
                     "median", "max", "of", "refused", "compile", "link", "missing");
  for (auto& [lab, line] : table) {
    auto& v = line.scores;
    const auto number = [&](double x) { return fmt::format("{:.2f}", x); };
    out += fmt::format("  lab{:<3} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n", lab, v.size(),
                       v.empty() ? "-" : number(*std::min_element(v.begin(), v.end())),
                       v.empty() ? "-" : number(harness::median(v)),
                       v.empty() ? "-" : number(*std::max_element(v.begin(), v.end())),
                       line.max_score ? fmt::format("{:g}", *line.max_score) : "-", line.not_built["refused"],
                       line.not_built["compile error"], line.not_built["link error"], line.not_built[kNoSubmission]);
  }
  out += fmt::format("failures: no submission {}, compile errors {}, refused {}, link errors {}, crashed or hung {}{}\n",
                     failures[kNoSubmission], failures["compile error"], failures["refused"], failures["link error"],
                     failures["crashed"], failures["not graded"] > 0 ? fmt::format(", not graded {}",
                                                                                 failures["not graded"]) : "");
  for (const auto& line : lines) out += line + "\n";
  const double hours = elapsed.count() / 3600;
  out += fmt::format("rate: {} students graded in {:.1f} s{}\n", graded_now, elapsed.count(),
                     graded_now > 0 && hours > 0 ? fmt::format(": {:.0f} students per hour", graded_now / hours) : "");
  // Each GPU's share, from the records' `grading`: a GPU slower than the others, or one whose students waited
  // longer, shows here.
  std::map<std::string, std::vector<double>> per_gpu;  // GPU -> grading wall times of its students
  for (const json& row : class_file.at("students"))
    if (const auto g = row.find("grading"); g != row.end() && g->is_object() && g->value("gpu", "") != "")
      per_gpu[g->at("gpu").get<std::string>()].push_back(g->value("wall_s", 0.0));
  for (const auto& [gpu, walls] : per_gpu) {
    double sum = 0;
    for (double w : walls) sum += w;
    out += fmt::format("  GPU {}: {} students, {:.1f} s a student\n", gpu, walls.size(),
                       sum / static_cast<double>(walls.size()));
  }
  if (const auto kinds = gpu_kinds(class_file.at("students")); kinds.size() > 1) {
    std::string list;
    for (const auto& [kind, n] : kinds) list += fmt::format("{}{} ({} students)", list.empty() ? "" : ", ", kind, n);
    out += fmt::format("graded on {} GPU kinds: {}; a partial solution's performance points depend on the kind: "
                       "grade a class on one (docs/batch.md)\n", kinds.size(), list);
  }
  return out;
}

int merge_main(int argc, char** argv) {
  CLI::App app{"Combines per-student results (folders of them, shards' class files) into one class file, sorted by "
               "student (docs/batch.md).", "grade merge"};
  std::vector<std::string> inputs;
  std::string output = "class.json", commit;
  app.add_option("INPUTS", inputs, "results folders of `grade batch` (their students/), student files, class files")
      ->required();
  app.add_option("--output", output, "the class file to write (default: class.json)");
  app.add_option("--commit", commit, "commit recorded (default: the students' results', else unknown)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    std::vector<fs::path> paths(inputs.begin(), inputs.end());
    json merged = merge_class(paths, iso8601_utc(std::chrono::system_clock::now()), "unknown");
    std::set<std::string> commits;
    for (const json& row : merged.at("students"))
      if (row.at("results").is_object()) commits.insert(row.at("results").value("commit", "unknown"));
    merged["commit"] = !commit.empty() ? commit : commits.size() == 1 ? *commits.begin() : "unknown";
    write_atomically(output, merged);
    fmt::print("merged {} students into {}\n", merged.at("students").size(), output);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "grade merge: {}\n", e.what());
    return 1;
  }
}

}  // namespace grader::batch
