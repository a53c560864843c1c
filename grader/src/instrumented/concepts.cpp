// `grade --concepts`: the tools' command lines and the reading of their output (concepts.hpp). ncu's CSV report is
// read by its header's column names, so a column added by a later Nsight Compute does not move anything; cuobjdump's
// SASS listing is read line by line (function headers, then instruction lines).
#include "grader/concepts.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

namespace grader {
namespace {

bool starts_with(std::string_view text, std::string_view head) { return text.substr(0, head.size()) == head; }

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// The lines of `text`, without their "\r".
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto newline = std::min(text.find('\n', pos), text.size());
    auto line = text.substr(pos, newline - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = newline + 1;
  }
  return lines;
}

// One CSV line: fields separated by commas, each optionally in double quotes ("" is a quote inside them). nullopt
// when a quote is left open (not a CSV line).
std::optional<std::vector<std::string>> csv_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.push_back(was_quoted ? field : std::string(trim(field)));
      field.clear();
      was_quoted = false;
    } else {
      field += c;
    }
  }
  if (quoted) return std::nullopt;
  fields.push_back(was_quoted ? field : std::string(trim(field)));
  return fields;
}

// A metric value as ncu prints it: "65,924,515", "309.54", "n/a". The thousands separators go; a unit that ncu
// scaled ("Kbyte", "Msector", "Ginst") brings the value back to base units. nullopt when it is not a number.
std::optional<double> metric_value(std::string_view text, std::string_view unit) {
  std::string digits;
  for (char c : trim(text))
    if (c != ',') digits += c;
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double x = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(x)) return std::nullopt;
  static constexpr std::array<std::pair<char, double>, 4> kPrefixes{{{'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}}};
  static constexpr std::array<std::string_view, 7> kBaseUnits{"byte", "sector", "request", "inst", "warp", "thread",
                                                              "cycle"};
  if (unit.size() > 1)
    for (const auto& [prefix, scale] : kPrefixes)
      if (unit[0] == prefix && std::find(kBaseUnits.begin(), kBaseUnits.end(), unit.substr(1)) != kBaseUnits.end())
        return x * scale;
  return x;
}

bool executable(const std::filesystem::path& file) {
  std::error_code error;
  return std::filesystem::is_regular_file(file, error) && ::access(file.c_str(), X_OK) == 0;
}

std::string number_text(double x) { return fmt::format("{:g}", x); }

// "sm_90" -> 90, for choosing the highest architecture; 0 if there is no number.
int arch_number(std::string_view arch) {
  const auto digits = arch.find_first_of("0123456789");
  return digits == std::string_view::npos ? 0 : std::atoi(std::string(arch.substr(digits)).c_str());
}

}  // namespace

std::string_view to_string(ConceptTool tool) {
  switch (tool) {
    case ConceptTool::kNcu: return "ncu";
    case ConceptTool::kSass: return "sass";
    case ConceptTool::kTimeMetric: return "time_metric";
  }
  return "?";
}

bool ConceptSpec::in_range(double value) const {
  return std::isfinite(value) && (!min || value >= *min) && (!max || value <= *max);
}

std::string ConceptSpec::expected() const {
  if (min && max) return fmt::format("{} to {}", number_text(*min), number_text(*max));
  if (min) return ">= " + number_text(*min);
  if (max) return "<= " + number_text(*max);
  return "any";
}

ConceptResult concept_result(const ConceptSpec& spec, std::optional<double> value, std::string skipped) {
  ConceptResult r;
  r.name = spec.name;
  r.why = spec.why;
  r.tool = spec.tool;
  r.unit = spec.unit;
  r.expected = spec.expected();
  if (!value) {
    r.skipped = skipped.empty() ? "not measured" : std::move(skipped);
    return r;
  }
  r.value = value;
  r.ok = spec.in_range(*value);
  r.points_max = spec.points;
  r.points = r.ok ? spec.points : 0;
  return r;
}

NcuReport parse_ncu_csv(std::string_view text) {
  NcuReport report;
  std::vector<std::string> header;
  std::size_t id = 0, process = 0, kernel = 0, metric = 0, unit = 0, value = 0;
  for (const auto line : lines_of(text)) {
    if (starts_with(line, "==ERROR==")) {
      if (report.error.empty()) report.error = std::string(trim(line.substr(9)));
      if (line.find("ERR_NVGPUCTRPERM") != std::string_view::npos) report.no_permission = true;
      continue;
    }
    if (line.empty() || line.front() != '"') continue;  // ncu's CSV quotes every field; other output does not count
    const auto fields = csv_fields(line);
    if (!fields) continue;
    if (header.empty()) {
      const auto column = [&](std::string_view name) {
        return static_cast<std::size_t>(std::find(fields->begin(), fields->end(), name) - fields->begin());
      };
      const auto n = fields->size();
      id = column("ID");
      process = column("Process Name");
      kernel = column("Kernel Name");
      metric = column("Metric Name");
      unit = column("Metric Unit");
      value = column("Metric Value");
      if (process < n && kernel < n && metric < n && unit < n && value < n) header = *fields;
      continue;
    }
    if (fields->size() != header.size()) continue;
    const auto& f = *fields;
    if (f == header) continue;  // a second process's report repeats the header
    report.rows.push_back({id < f.size() ? f[id] : "", f[process], f[kernel], f[metric], f[unit],
                           metric_value(f[value], f[unit])});
  }
  return report;
}

std::optional<double> ncu_value(const NcuReport& report, const ConceptSpec& spec, std::string_view process,
                                std::string& why) {
  std::vector<const NcuRow*> mine;
  for (const auto& row : report.rows) {
    // ncu names the process by its program's file name; accept a path too.
    const std::string_view name = row.process;
    const auto slash = name.rfind('/');
    if ((slash == std::string_view::npos ? name : name.substr(slash + 1)) == process) mine.push_back(&row);
  }
  if (mine.empty()) {
    why = report.rows.empty()
              ? fmt::format("ncu profiled no kernel matching /{}/{}", spec.kernel,
                            report.error.empty() ? "" : " (" + report.error + ")")
              : fmt::format("no kernel matching /{}/ ran in {} (ncu profiled only other programs)", spec.kernel,
                            process);
    return std::nullopt;
  }
  const auto sum = [&](const std::vector<std::string>& metrics) -> std::optional<double> {
    double total = 0;
    for (const auto& name : metrics) {
      bool found = false;
      for (const NcuRow* row : mine) {
        if (row->metric != name || !row->value) continue;
        total += *row->value;
        found = true;
      }
      if (!found) {
        why = fmt::format("ncu reported no value of {}", name);
        return std::nullopt;
      }
    }
    return total;
  };
  const auto numerator = sum(spec.numerator);
  if (!numerator) return std::nullopt;
  if (spec.denominator.empty()) return numerator;
  const auto denominator = sum(spec.denominator);
  if (!denominator) return std::nullopt;
  if (*denominator == 0) {
    why = fmt::format("the denominator ({}) is 0: the kernel made no such accesses", spec.denominator.front());
    return std::nullopt;
  }
  return *numerator / *denominator;
}

std::vector<std::string> ncu_command(const std::filesystem::path& ncu, const std::vector<std::string>& metrics,
                                     const std::string& kernel, const std::string& lab_binary,
                                     const std::string& impl, const std::string& exercise) {
  std::string list;
  for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
  return {ncu.string(),
          "--target-processes", "all",
          "--clock-control", "none",
          "--print-units", "base",
          "--csv",
          "--kernel-name", "regex:" + kernel,
          "--launch-count", std::to_string(kNcuLaunchLimit),
          "--metrics", list,
          lab_binary, "check", "--impl", impl, "--exercise", exercise, "--seeds", "1"};
}

std::vector<SassFunction> parse_sass(std::string_view text) {
  std::vector<SassFunction> functions;
  std::string arch;
  for (const auto raw : lines_of(text)) {
    const auto line = trim(raw);
    if (starts_with(line, "code for ")) {
      arch = std::string(trim(line.substr(9)));
      continue;
    }
    if (starts_with(line, "Function : ")) {
      functions.push_back({std::string(trim(line.substr(11))), arch, {}});
      continue;
    }
    // An instruction: "/*0200*/  @!P0 SHFL.DOWN PT, R5, ... ;  /* 0x... */". Encoding-only lines ("/* 0x... */")
    // have no text after the first comment.
    if (functions.empty() || !starts_with(line, "/*")) continue;
    const auto close = line.find("*/");
    if (close == std::string_view::npos) continue;
    auto rest = trim(line.substr(close + 2));
    if (rest.empty() || starts_with(rest, "/*")) continue;
    if (rest.front() == '{') rest = trim(rest.substr(1));  // a dual-issue pair on older architectures
    if (!rest.empty() && rest.front() == '@') {            // a predicate guard, @P0 or @!UP1
      const auto space = rest.find(' ');
      rest = space == std::string_view::npos ? std::string_view{} : trim(rest.substr(space));
    }
    const auto end = rest.find_first_of(" ;");
    const auto mnemonic = rest.substr(0, end);
    if (mnemonic.empty() || !std::isupper(static_cast<unsigned char>(mnemonic.front()))) continue;
    ++functions.back().mnemonics[std::string(mnemonic)];
  }
  return functions;
}

std::optional<int> sass_count(const std::vector<SassFunction>& functions, const ConceptSpec& spec, std::string& why) {
  const std::regex pattern(spec.function.empty() ? std::string(".") : spec.function);
  int best_arch = -1, count = 0;
  for (const auto& f : functions) {
    if (!std::regex_search(f.name, pattern)) continue;
    const int arch = arch_number(f.arch);
    if (arch < best_arch) continue;
    if (arch > best_arch) {
      best_arch = arch;
      count = 0;
    }
    for (const auto& [mnemonic, n] : f.mnemonics)
      if (mnemonic == spec.instruction || starts_with(mnemonic, spec.instruction + ".")) count += n;
  }
  if (best_arch < 0) {
    why = functions.empty() ? "cuobjdump listed no SASS function"
                            : fmt::format("no function matching /{}/ in the SASS", spec.function);
    return std::nullopt;
  }
  return count;
}

std::optional<std::filesystem::path> find_cuda_tool(std::string_view program, std::string_view path_env,
                                                    std::string_view cuda_home) {
  std::vector<std::filesystem::path> folders;
  for (std::size_t pos = 0; pos <= path_env.size();) {
    const auto colon = std::min(path_env.find(':', pos), path_env.size());
    if (colon > pos) folders.emplace_back(path_env.substr(pos, colon - pos));
    pos = colon + 1;
  }
  if (!cuda_home.empty()) folders.push_back(std::filesystem::path(cuda_home) / "bin");
  folders.emplace_back("/usr/local/cuda/bin");
  for (const auto& folder : folders)
    if (executable(folder / program)) return folder / program;
  return std::nullopt;
}

}  // namespace grader
