// `grade export RESULTS --format gradescope|junit|csv|canvas|moodle [--output FILE] [--student NAME]
// [--roster CSV] [--column N=NAME]...`: reads a grade results file or a class file and writes it in a gradebook
// format (docs/exports.md).

#include "export_command.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "grader/export.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
  std::string results, format, output, student = "student", roster;
  std::vector<std::string> columns;  // "N=NAME": lab N's column in an LMS import
};

std::string read_file(const std::string& file, const char* what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ExportError(fmt::format("cannot read {} {}", what, file));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The roster and the column names of an LMS import (canvas, moodle).
ImportOptions import_options(const ExportOptions& options) {
  ImportOptions lms;
  if (!options.roster.empty()) {
    try {
      lms.roster = roster_from_csv(read_file(options.roster, "the roster"));
    } catch (const ExportError& e) {
      throw ExportError(fmt::format("--roster {}: {}", options.roster, e.what()));
    }
  }
  for (const auto& column : options.columns) {
    const auto equals = column.find('=');
    int lab = 0;
    const auto digits = std::string_view(column).substr(0, equals);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), lab);
    if (equals == std::string::npos || digits.empty() || error != std::errc() || end != digits.data() + digits.size())
      throw ExportError(fmt::format("--column '{}' is not LAB=NAME (e.g. '1=Lab 1 (12345)')", column));
    if (!lms.columns.emplace(lab, column.substr(equals + 1)).second)
      throw ExportError(fmt::format("--column names lab {} twice", lab));
  }
  return lms;
}

// Writes `text` to `file`, or to standard output when `file` is empty; throws ExportError when it cannot.
void write_out(const std::string& file, const std::string& text) {
  if (file.empty()) {
    fmt::print("{}", text);
    return;
  }
  const fs::path path = file;
  std::error_code error;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), error);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw ExportError(fmt::format("cannot write {}", file));
}

// Gradescope takes one results.json per submission: a class becomes a folder of <student>.json files.
void write_gradescope_folder(const Gradebook& book, const std::string& folder) {
  if (folder.empty()) throw ExportError("--output DIR is required to export a class file to gradescope");
  std::map<std::string, std::string> taken;  // file name -> student, so that two students never share a file
  for (const auto& s : book.students) {
    const auto name = file_name_for(s.student) + ".json";
    if (const auto [it, fresh] = taken.emplace(name, s.student); !fresh)
      throw ExportError(fmt::format("students '{}' and '{}' would both be written to {}", it->second, s.student, name));
  }
  for (const auto& s : book.students)
    write_out((fs::path(folder) / (file_name_for(s.student) + ".json")).string(),
              gradescope_results(s).dump(2) + "\n");
  fmt::print(stderr, "grade export: {} results files in {}\n", book.students.size(), folder);
}

int run_export(const ExportOptions& options) {
  try {
    std::ifstream in(options.results, std::ios::binary);
    if (!in) throw ExportError("cannot read it");
    std::ostringstream text;
    text << in.rdbuf();
    const auto file = nlohmann::json::parse(text.str(), nullptr, false);
    if (file.is_discarded()) throw ExportError("not JSON");
    const auto book = read_gradebook(file, options.student);
    const bool lms = options.format == "canvas" || options.format == "moodle";
    if (!lms && (!options.roster.empty() || !options.columns.empty()))
      throw ExportError("--roster and --column are for --format canvas and moodle");
    if (options.format == "gradescope" && book.is_class)
      write_gradescope_folder(book, options.output);
    else if (options.format == "gradescope")
      write_out(options.output, gradescope_results(book.students.at(0)).dump(2) + "\n");
    else if (options.format == "junit")
      write_out(options.output, junit_xml(book));
    else if (options.format == "canvas")
      write_out(options.output, canvas_csv(book, import_options(options)));
    else if (options.format == "moodle")
      write_out(options.output, moodle_csv(book, import_options(options)));
    else
      write_out(options.output, csv_table(book));
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "grade export: {}: {}\n", options.results, e.what());
    return 1;
  }
}

}  // namespace

void add_export_command(CLI::App& app, std::optional<int>& exit_code) {
  auto options = std::make_shared<ExportOptions>();
  auto* command = app.add_subcommand("export", "write a results file or a class file as a gradebook (docs/exports.md)");
  command->footer("\nInputs, formats and fields: docs/exports.md.\n\nExit codes:\n  0  written\n"
                  "  1  the input is unreadable or not a results or class file, or the output cannot be written");
  command->add_option("RESULTS", options->results, "a grade results file, or a class file of grade batch/merge")
      ->required();
  command->add_option("--format", options->format,
                      "gradescope (results.json), junit (XML), csv, or the gradebook import of canvas or moodle")
      ->required()
      ->check(CLI::IsMember({"gradescope", "junit", "csv", "canvas", "moodle"}));
  command->add_option("--output", options->output,
                      "file to write (default: standard output); a folder for gradescope from a class file");
  command->add_option("--student", options->student, "the student of a plain results file (default: student)");
  command->add_option("--roster", options->roster,
                      "canvas, moodle: a CSV with columns student (the batch's folder name), login and optionally "
                      "name (default: each student's folder name is its login)");
  command->add_option("--column", options->columns,
                      "canvas, moodle: LAB=NAME, lab LAB's column (default 'Lab N'; Canvas: 'Lab 1 (12345)' names "
                      "assignment 12345); repeat per lab")
      ->allow_extra_args(false);
  command->callback([options, &exit_code] { exit_code = run_export(*options); });
}

}  // namespace grader
