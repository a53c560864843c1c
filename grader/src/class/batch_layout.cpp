// grade batch, what it reads: the submissions folder's layout (one folder per student, or Gradescope's single
// submission), the shards of a class, and the build recipes CMake wrote (cmake/SubmissionRecipe.cmake).

#include <algorithm>
#include <charconv>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "grader/batch.hpp"

namespace grader::batch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> strings(const json& recipe, const char* key, const fs::path& file, bool required) {
  if (!recipe.contains(key)) {
    if (required) throw std::runtime_error(fmt::format("{}: no \"{}\"", file.string(), key));
    return {};
  }
  const json& list = recipe.at(key);
  if (!list.is_array() || (required && list.empty()))
    throw std::runtime_error(fmt::format("{}: \"{}\" is not a list of strings", file.string(), key));
  std::vector<std::string> argv;
  for (const json& arg : list) {
    if (!arg.is_string()) throw std::runtime_error(fmt::format("{}: \"{}\" holds a non-string", file.string(), key));
    argv.push_back(arg.get<std::string>());
  }
  return argv;
}

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

}  // namespace

Recipe load_recipe(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the build recipe (configure the build, or give "
                                                "--recipes)", file.string()));
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object() || j.value("schema", 0) != 1 || !j.contains("lab") || !j.at("lab").is_number_integer())
    throw std::runtime_error(fmt::format("{}: not a schema-1 build recipe", file.string()));
  Recipe r;
  r.lab = j.at("lab").get<int>();
  r.id = j.value("id", "");
  r.lab_binary = j.value("lab_binary", "");
  r.runners_dir = j.value("runners_dir", "");
  r.contract = j.value("contract", "");
  r.compile = strings(j, "compile", file, true);
  r.check = strings(j, "check", file, false);
  r.link = strings(j, "link", file, true);
  if (r.lab_binary.empty()) throw std::runtime_error(fmt::format("{}: \"lab_binary\" is empty", file.string()));
  if (r.contract.empty())
    throw std::runtime_error(fmt::format("{}: no \"contract\" folder (a recipe of an older build: configure again)",
                                         file.string()));
  return r;
}

std::vector<std::string> expand(const std::vector<std::string>& argv, const std::map<std::string, std::string>& values) {
  std::vector<std::string> out;
  for (std::string arg : argv) {
    for (const auto& [name, value] : values) {
      const std::string key = "{" + name + "}";
      for (auto at = arg.find(key); at != std::string::npos; at = arg.find(key, at + value.size()))
        arg.replace(at, key.size(), value);
    }
    out.push_back(std::move(arg));
  }
  return out;
}

std::optional<fs::path> find_lab_file(const fs::path& student_dir, const LabEntry& lab, bool only_lab) {
  const auto short_name = "lab" + std::to_string(lab.number);
  std::vector<fs::path> candidates = {student_dir / (short_name + ".cu"), student_dir / (lab.id + ".cu"),
                                      student_dir / lab.id / "student.cu", student_dir / short_name / "student.cu"};
  if (only_lab) candidates.push_back(student_dir / "student.cu");
  for (const auto& candidate : candidates)
    if (is_file(candidate)) return candidate;
  return std::nullopt;
}

std::vector<StudentFiles> find_students(const fs::path& submissions, const std::vector<const LabEntry*>& labs,
                                        const std::string& single_name) {
  const bool only_lab = labs.size() == 1;
  const auto files_of = [&](const fs::path& dir) {
    std::map<int, fs::path> files;
    for (const LabEntry* lab : labs)
      if (auto file = find_lab_file(dir, *lab, only_lab)) files.emplace(lab->number, *file);
    return files;
  };
  std::error_code error;
  if (!fs::is_directory(submissions, error))
    throw std::runtime_error(fmt::format("{}: no such folder", submissions.string()));
  // Gradescope hands the autograder one submission, its files directly in the folder.
  if (auto files = files_of(submissions); !files.empty()) {
    auto name = single_name.empty() ? fs::absolute(submissions).lexically_normal().filename().string() : single_name;
    if (name.empty()) name = fs::absolute(submissions).lexically_normal().parent_path().filename().string();
    return {{name, std::move(files)}};
  }
  std::vector<StudentFiles> students;
  for (const auto& entry : fs::directory_iterator(submissions)) {
    const auto name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || !entry.is_directory()) continue;
    students.push_back({name, files_of(entry.path())});
  }
  std::sort(students.begin(), students.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return students;
}

std::vector<StudentFiles> shard(const std::vector<StudentFiles>& students, int index, int count) {
  std::vector<StudentFiles> mine;
  for (std::size_t i = static_cast<std::size_t>(index); i < students.size(); i += static_cast<std::size_t>(count))
    mine.push_back(students[i]);
  return mine;
}

std::pair<int, int> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  int index = -1, count = 0;
  const auto number = [](std::string_view part, int& value) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    return ec == std::errc() && end == part.data() + part.size();
  };
  if (slash == std::string_view::npos || !number(text.substr(0, slash), index) ||
      !number(text.substr(slash + 1), count) || count < 1 || index < 0 || index >= count)
    throw std::invalid_argument(fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4", text));
  return {index, count};
}

}  // namespace grader::batch
