#include "grader/discovery.hpp"

#include "grader/process.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <system_error>

namespace grader {
namespace {

// "01" -> 1; nullopt unless every character is a digit.
std::optional<int> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::vector<LabEntry> discover_labs(const std::filesystem::path& labs_dir) {
  std::vector<LabEntry> labs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(labs_dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    const std::string name = entry.path().filename().string();
    const auto underscore = name.find('_');
    if (underscore == std::string::npos || underscore + 1 == name.size()) continue;
    const auto number = parse_number(std::string_view(name).substr(0, underscore));
    const auto manifest = entry.path() / "manifest.json";
    if (!number || !std::filesystem::is_regular_file(manifest, ec)) continue;
    labs.push_back({*number, name, entry.path(), manifest});
  }
  std::sort(labs.begin(), labs.end(), [](const LabEntry& a, const LabEntry& b) {
    return a.number != b.number ? a.number < b.number : a.id < b.id;
  });
  return labs;
}

std::filesystem::path lab_binary(const std::filesystem::path& bin_dir, int number) {
  return bin_dir / ("lab" + std::to_string(number));
}

const LabEntry* find_lab(const std::vector<LabEntry>& labs, std::string_view arg) {
  std::string_view digits = arg;
  if (digits.substr(0, 3) == "lab") digits.remove_prefix(3);
  const auto number = parse_number(digits);
  for (const auto& lab : labs) {
    if (number ? lab.number == *number : lab.id == arg || lab.id.substr(lab.id.find('_') + 1) == arg) return &lab;
  }
  return nullptr;
}

std::string git_commit(const std::filesystem::path& labs_dir) {
  ProcessOptions p;
  p.argv = {"git", "-C", (labs_dir / "..").lexically_normal().string(), "rev-parse", "HEAD"};
  p.timeout_s = 10;
  const auto run = run_process(p);
  const auto line = last_line(run.out);
  return run.exit_code == 0 && line.size() >= 7 ? line : "unknown";
}

}  // namespace grader
