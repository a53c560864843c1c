// `grade export RESULTS --format gradescope|junit|csv [--output FILE] [--student NAME]`: reads a grade results file
// or a class file and writes it in a gradebook format (docs/exports.md).

#include "export_command.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "grader/export.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
  std::string results, format, output, student = "student";
};

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
    if (options.format == "gradescope" && book.is_class)
      write_gradescope_folder(book, options.output);
    else if (options.format == "gradescope")
      write_out(options.output, gradescope_results(book.students.at(0)).dump(2) + "\n");
    else if (options.format == "junit")
      write_out(options.output, junit_xml(book));
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
  command->add_option("--format", options->format, "gradescope (results.json), junit (XML) or csv")
      ->required()
      ->check(CLI::IsMember({"gradescope", "junit", "csv"}));
  command->add_option("--output", options->output,
                      "file to write (default: standard output); a folder for gradescope from a class file");
  command->add_option("--student", options->student, "the student of a plain results file (default: student)");
  command->callback([options, &exit_code] { exit_code = run_export(*options); });
}

}  // namespace grader
