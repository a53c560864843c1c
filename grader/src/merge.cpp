// grade merge: per-student results files (and shards: folders or class files from several machines) into one class
// file, sorted by student, in the format docs/batch.md gives; and the summary `grade batch` prints at its end.

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// What kind of failure each "; "-separated part of an error is ("lab3: compile error: ..." -> "compile error").
std::vector<std::string> failure_kinds(const std::string& error) {
  std::vector<std::string> kinds;
  std::size_t start = 0;
  while (start <= error.size()) {
    const auto end = std::min(error.find("; ", start), error.size());
    std::string part = error.substr(start, end - start);
    if (part.rfind("lab", 0) == 0 && part.find(": ") != std::string::npos) part = part.substr(part.find(": ") + 2);
    std::string kind = "not graded";
    for (const char* known : {"no submission", "compile error", "refused", "link error"})
      if (part.rfind(known, 0) == 0) kind = known;
    kinds.push_back(kind);
    start = end + 2;
  }
  return kinds;
}

}  // namespace

json class_row(const json& file) {
  json row = {{"student", file.at("student")}, {"results", nullptr}, {"error", file.value("error", json(nullptr))}};
  if (file.contains("runs")) {
    json results = file;
    results.erase("student");
    results.erase("error");
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
  std::map<int, std::vector<double>> scores;
  std::map<int, double> max_scores;
  std::map<std::string, int> failures;  // kind of failure -> count
  std::vector<std::string> lines;
  int no_results = 0;
  for (const json& row : class_file.at("students")) {
    const auto student = row.at("student").get<std::string>();
    if (row.at("results").is_null()) {
      ++no_results;
      const auto error = row.value("error", json("")).is_string() ? row.at("error").get<std::string>() : "";
      for (const auto& kind : failure_kinds(error)) ++failures[kind];
      if (error.find("no submission") == std::string::npos || error.find(';') != std::string::npos)
        lines.push_back(fmt::format("  {}: {}", student, error));
      continue;
    }
    for (const json& lab : row.at("results").at("runs").at(0).at("labs")) {
      const int number = lab.at("lab").get<int>();
      const auto message = lab.value("message", "");
      if (!lab.value("built", true)) {
        const auto kind = failure_kinds(message).front();
        ++failures[kind];
        if (kind != "no submission") lines.push_back(fmt::format("  {}: lab{} {}", student, number, message));
        continue;
      }
      scores[number].push_back(lab.at("score").get<double>());
      max_scores[number] = lab.at("max_score").get<double>();
      for (const json& x : lab.at("exercises")) {
        const auto status = x.at("status").get<std::string>();
        if (status == "crash" || status == "timeout" || status == "cuda-error" || status == "bad-output") {
          ++failures["crashed"];
          lines.push_back(fmt::format("  {}: lab{} {} {}: {}", student, number, x.at("name").get<std::string>(),
                                      status, x.value("message", "")));
        }
      }
    }
  }
  std::string out = fmt::format("class summary: {} students, {} with results\n", class_file.at("students").size(),
                                class_file.at("students").size() - static_cast<std::size_t>(no_results));
  out += fmt::format("  {:<6} {:>6} {:>8} {:>8} {:>8} {:>8}\n", "lab", "count", "min", "median", "max", "of");
  for (const auto& [lab, v] : scores)
    out += fmt::format("  lab{:<3} {:>6} {:>8.2f} {:>8.2f} {:>8.2f} {:>8g}\n", lab, v.size(),
                       *std::min_element(v.begin(), v.end()), median(v), *std::max_element(v.begin(), v.end()),
                       max_scores[lab]);
  out += fmt::format("failures: no submission {}, compile errors {}, refused {}, link errors {}, crashed or hung {}{}\n",
                     failures["no submission"], failures["compile error"], failures["refused"], failures["link error"],
                     failures["crashed"], failures["not graded"] > 0 ? fmt::format(", not graded {}",
                                                                                 failures["not graded"]) : "");
  for (const auto& line : lines) out += line + "\n";
  const double hours = elapsed.count() / 3600;
  out += fmt::format("rate: {} students graded in {:.1f} s{}\n", graded_now, elapsed.count(),
                     graded_now > 0 && hours > 0 ? fmt::format(": {:.0f} students per hour", graded_now / hours) : "");
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
