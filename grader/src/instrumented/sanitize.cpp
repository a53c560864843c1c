// `grade --sanitize`: compute-sanitizer's command line and the reading of its report (sanitize.hpp). The report is
// read line by line: only lines with the tool's "=========" prefix count, and of those only the first line of each
// report (the indented lines under it say where and by which thread).
#include "grader/sanitize.hpp"

#include "grader/concepts.hpp"

#include <harness/result_keys.hpp>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <system_error>

namespace grader {
namespace {

constexpr std::string_view kPrefix = "=========";

constexpr std::array<std::pair<SanitizerTool, std::string_view>, 4> kTools{{{SanitizerTool::kMemcheck, "memcheck"},
                                                                           {SanitizerTool::kRacecheck, "racecheck"},
                                                                           {SanitizerTool::kSynccheck, "synccheck"},
                                                                           {SanitizerTool::kInitcheck, "initcheck"}}};

bool starts_with(std::string_view text, std::string_view head) { return text.substr(0, head.size()) == head; }
bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The first integer in `text` after position `from`, or 0.
int first_number(std::string_view text, std::size_t from = 0) {
  const auto at = text.find_first_of("0123456789", from);
  if (at == std::string_view::npos) return 0;
  int n = 0;
  std::from_chars(text.data() + at, text.data() + text.size(), n);
  return n;
}

// Lines of the tool that say nothing about the code it watched.
bool informational(std::string_view body) {
  return body == "COMPUTE-SANITIZER" || starts_with(body, "LEAK SUMMARY") ||
         starts_with(body, "Target application returned an error") ||
         starts_with(body, "Program hit") ||  // a CUDA API call that returned an error: the harness handles those
         starts_with(body, "Warning:") || starts_with(body, "WARNING:");
}

}  // namespace

std::string_view to_string(SanitizerTool tool) {
  for (const auto& [t, name] : kTools)
    if (t == tool) return name;
  return "?";
}

std::optional<SanitizerTool> parse_sanitizer_tool(std::string_view name) {
  for (const auto& [t, known] : kTools)
    if (known == name) return t;
  return std::nullopt;
}

std::optional<std::filesystem::path> find_compute_sanitizer(std::string_view path_env, std::string_view cuda_home) {
  return find_cuda_tool("compute-sanitizer", path_env, cuda_home);
}

std::optional<std::filesystem::path> locate_sanitizer(const std::string& given, std::string_view who) {
  const char* path = std::getenv("PATH");
  const char* cuda_home = std::getenv("CUDA_HOME");
  std::optional<std::filesystem::path> found;
  std::error_code error;
  if (!given.empty()) {
    if (std::filesystem::is_regular_file(given, error)) found = std::filesystem::absolute(given, error);
  } else {
    found = find_compute_sanitizer(path ? path : "", cuda_home ? cuda_home : "");
  }
  if (!found)
    fmt::print(stderr, "{}: compute-sanitizer is not installed ({}); grading without it\n", who,
               given.empty() ? "not on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin" : "no file " + given);
  return found;
}

std::vector<std::string> sanitizer_command(const std::filesystem::path& sanitizer,
                                           const std::vector<SanitizerTool>& tools, const std::string& lab_binary,
                                           const std::string& impl, const std::vector<std::string>& exercises,
                                           std::uint64_t seed, const std::string& results, double tool_limit_s) {
  const auto join = [](std::string& list, std::string_view item) {
    if (!list.empty()) list += ',';
    list += item;
  };
  std::string names, tool_names;
  for (const auto& exercise : exercises) join(names, exercise);
  for (const SanitizerTool tool : tools) join(tool_names, to_string(tool));
  return {lab_binary, "check",   "--impl",          impl,  "--exercise",       names,
          "--seeds",  std::to_string(seed), "--small", "--results", results, "--sanitizer",
          sanitizer.string(), "--tools", tool_names, "--tool-limit", fmt::format("{:g}", tool_limit_s)};
}

std::string_view to_string(ToolVerdict::Kind kind) {
  switch (kind) {
    case ToolVerdict::Kind::kClean: return harness::keys::kClean;
    case ToolVerdict::Kind::kFound: return harness::keys::kFound;
    case ToolVerdict::Kind::kHung: return harness::keys::kHung;
    case ToolVerdict::Kind::kFailed: break;
  }
  return harness::keys::kFailed;
}

std::map<SanitizerTool, ToolVerdict> parse_tool_verdicts(std::string_view results) {
  std::map<SanitizerTool, ToolVerdict> verdicts;
  for (std::size_t pos = 0; pos < results.size();) {
    const auto newline = std::min(results.find('\n', pos), results.size());
    const auto line = nlohmann::json::parse(results.substr(pos, newline - pos), nullptr, false);
    pos = newline + 1;
    if (!line.is_object() || !line.contains(harness::keys::kTool)) continue;
    const auto& t = line.at(harness::keys::kTool);
    if (!t.is_object() || !t.contains(harness::keys::kName) || !t.at(harness::keys::kName).is_string() ||
        !t.contains(harness::keys::kVerdict) || !t.at(harness::keys::kVerdict).is_string())
      continue;
    const auto tool = parse_sanitizer_tool(t.at(harness::keys::kName).get<std::string>());
    const auto verdict = t.at(harness::keys::kVerdict).get<std::string>();
    if (!tool) continue;
    ToolVerdict v;
    v.kind = verdict == harness::keys::kClean   ? ToolVerdict::Kind::kClean
             : verdict == harness::keys::kFound ? ToolVerdict::Kind::kFound
             : verdict == harness::keys::kHung  ? ToolVerdict::Kind::kHung
                                                : ToolVerdict::Kind::kFailed;
    if (const auto m = t.find(harness::keys::kMessage); m != t.end() && m->is_string()) v.message = *m;
    verdicts[*tool] = std::move(v);
  }
  return verdicts;
}

SanitizerReport parse_sanitizer_output(std::string_view text) {
  SanitizerReport r;
  int summary_errors = 0, racecheck_errors = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto newline = std::min(text.find('\n', pos), text.size());
    auto line = text.substr(pos, newline - pos);
    pos = newline + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!starts_with(line, kPrefix)) continue;
    auto body = line.substr(kPrefix.size());
    if (body.empty() || body.size() < 2 || body[0] != ' ' || body[1] == ' ') continue;  // blank, or a detail line
    body.remove_prefix(1);
    if (starts_with(body, "ERROR SUMMARY:")) {
      summary_errors += first_number(body);
    } else if (starts_with(body, "RACECHECK SUMMARY:")) {
      // "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)": the errors are in the parentheses.
      const auto open = body.find('(');
      if (open != std::string_view::npos) racecheck_errors += first_number(body, open);
    } else if (informational(body)) {
      continue;
    } else if (starts_with(body, "Error:") && !contains(body, "Race reported") && !contains(body, "hazard")) {
      if (r.tool_error.empty()) r.tool_error = std::string(body);  // the tool could not do its work
    } else if (r.first_finding.empty()) {
      r.first_finding = std::string(body);
    }
  }
  r.errors = std::max(summary_errors, racecheck_errors);
  return r;
}

}  // namespace grader
