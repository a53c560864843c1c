// Reading results and class files for `grade export`, and the escaping every format needs. The formats themselves
// are in export_formats.cpp; the command line is in export_command.cpp.

#include "grader/export.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <harness/result_keys.hpp>

namespace grader {
namespace {

using nlohmann::json;
namespace keys = harness::keys;

Status status_from(const std::string& text) {
  for (int i = 0; i <= static_cast<int>(Status::kRace); ++i)  // kRace: the last of the enum
    if (to_string(static_cast<Status>(i)) == text) return static_cast<Status>(i);
  throw ExportError(fmt::format("unknown exercise status '{}'", text));
}

std::optional<double> number_or_empty(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

std::string string_or_empty(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The timing fields the exports show; empty when the exercise had no timed run (median_ms.student is null).
std::optional<Timing> timing_from(const json& x) {
  const auto& medians = x.at(keys::kMedianMs);
  if (!medians.at("student").is_number()) return std::nullopt;
  Timing t;
  t.unit = string_or_empty(x, keys::kUnit);
  t.student.median_ms = medians.at("student").get<double>();
  for (auto [name, into] : {std::pair{"reference", &t.reference}, {"baseline", &t.baseline}})
    if (medians.contains(name) && medians.at(name).is_number()) *into = RunnerTiming{medians.at(name).get<double>()};
  t.student.rate = number_or_empty(x, keys::kRate);
  t.percent_of_ceiling = number_or_empty(x, keys::kPercentOfCeiling);
  t.ceiling_what = string_or_empty(x, "ceiling_what");
  return t;
}

ExerciseResult exercise_from(const json& x) {
  ExerciseResult e;
  e.name = x.at("name").get<std::string>();
  e.status = status_from(x.at("status").get<std::string>());
  e.message = x.value("message", "");
  e.score.total = x.at("score").get<double>();
  e.score.correctness = x.value("correctness_points", 0.0);
  e.score.performance = x.value("performance_points", 0.0);
  e.score.perf_fraction = x.value("perf_fraction", 0.0);
  e.correctness_max = x.value("correctness_max", 0.0);
  e.performance_max = x.value("performance_max", 0.0);
  e.tests_passed = x.value("tests_passed", 0);
  e.tests_total = x.value("tests_total", 0);
  e.wall_s = x.value("wall_s", 0.0);
  e.timing = timing_from(x);
  // The results file's max_score is correctness_max + performance_max; a file holding only max_score still exports.
  if (e.max_score() == 0 && x.contains("max_score")) e.correctness_max = x["max_score"].get<double>();
  return e;
}

// The run to export: the last one whose impl is "student", or the only one.
const json& run_to_export(const json& runs) {
  if (!runs.is_array() || runs.empty()) throw ExportError("\"runs\" is not a non-empty array");
  if (runs.size() == 1) return runs[0];
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->value("impl", "") == "student") return *it;
  throw ExportError(fmt::format("{} runs and none of impl \"student\"", runs.size()));
}

StudentGrades student_from(const json& results, const std::string& name) {
  StudentGrades s;
  s.student = name;
  if (!results.is_object() || results.value("schema", 0) != 1)
    throw ExportError("not a grade results file of schema 1");
  for (const auto& lab : run_to_export(results.at("runs")).at("labs")) s.labs.push_back(lab_from_json(lab));
  s.has_results = true;
  return s;
}

// Appends the UTF-8 encoding of `cp`.
void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes one UTF-8 sequence at text[i], advancing i; a malformed or overlong one is one byte of U+FFFD.
std::uint32_t next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const int extra = lead < 0x80 ? 0 : (lead >> 5) == 0x6 ? 1 : (lead >> 4) == 0xE ? 2 : (lead >> 3) == 0x1E ? 3 : -1;
  if (extra < 0 || i + extra >= text.size()) {  // i < size, so extra 0 always fits
    ++i;
    return 0xFFFD;
  }
  std::uint32_t cp = extra == 0 ? lead : lead & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr std::uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kSmallest[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return 0xFFFD;
  }
  i += extra + 1;
  return cp;
}

// The rows of an RFC 4180 CSV text: fields quoted or not, quotes doubled inside quotes, CRLF or LF line ends, a
// UTF-8 byte order mark (spreadsheets write one) skipped. Blank lines are no rows. Throws ExportError for a quote
// left open or a quote inside an unquoted field.
std::vector<std::vector<std::string>> csv_rows(std::string_view text) {
  if (text.starts_with("\xef\xbb\xbf")) text.remove_prefix(3);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, was_quoted = false;
  const auto end_row = [&] {
    row.push_back(std::move(field));
    field.clear();
    if (row.size() > 1 || !row[0].empty() || was_quoted) rows.push_back(std::move(row));
    row.clear();
    was_quoted = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else quoted = false;
    } else if (c == '"') {
      if (!field.empty() || was_quoted)
        throw ExportError(fmt::format("row {}: a quote inside a field", rows.size() + 1));
      quoted = was_quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_row();
    } else {
      if (was_quoted) throw ExportError(fmt::format("row {}: text after a closing quote", rows.size() + 1));
      field += c;
    }
  }
  if (quoted) throw ExportError("a quoted field is never closed");
  if (!field.empty() || !row.empty() || was_quoted) end_row();
  return rows;
}

}  // namespace

LabResult lab_from_json(const json& j) {
  try {
    LabResult lab;
    lab.number = j.at("lab").get<int>();
    lab.id = j.value("id", "");
    lab.title = j.value("title", "");
    lab.weight = j.value("weight", 1.0);
    lab.built = j.value("built", true);
    lab.message = j.value("message", "");
    for (const auto& x : j.at("exercises")) lab.exercises.push_back(exercise_from(x));
    return lab;
  } catch (const json::exception& e) {
    throw ExportError(fmt::format("a lab of the results: {}", e.what()));
  }
}

std::vector<LabBuild> builds_from_json(const json& row) {
  std::vector<LabBuild> builds;
  const auto it = row.find("builds");
  if (it == row.end() || it->is_null()) return builds;
  if (!it->is_array()) throw ExportError("\"builds\" is not an array");
  try {
    for (const auto& b : *it) {
      LabBuild build;
      build.lab = b.at("lab").get<int>();
      build.outcome = b.at("outcome").get<std::string>();
      build.message = string_or_empty(b, "message");
      build.max_score = number_or_empty(b, "max_score");
      builds.push_back(std::move(build));
    }
  } catch (const json::exception& e) {
    throw ExportError(fmt::format("a build of the class row: {}", e.what()));
  }
  return builds;
}

const LabBuild* StudentGrades::build_of(int number) const {
  for (const auto& b : builds)
    if (b.lab == number) return &b;
  return nullptr;
}

bool StudentGrades::missing(int number) const {
  if (const auto* b = build_of(number)) return b->missing();
  if (!builds.empty()) return false;
  // A record of an older batch: its unbuilt lab's message, compared whole.
  for (const auto& lab : labs)
    if (lab.number == number) return !lab.built && lab.message == "no submission";
  return false;
}

Gradebook read_gradebook(const json& file, const std::string& student) {
  Gradebook book;
  try {
    if (!file.is_object()) throw ExportError("not a JSON object");
    book.date = string_or_empty(file, "date");
    book.commit = string_or_empty(file, "commit");
    if (!file.contains("kind")) {
      book.students.push_back(student_from(file, student));
      return book;
    }
    if (file["kind"] != "class") throw ExportError(fmt::format("unknown kind {}", file["kind"].dump()));
    if (file.value("schema", 0) != 1) throw ExportError("a class file of a schema other than 1");
    book.is_class = true;
    for (const auto& entry : file.at("students")) {
      const auto name = entry.at("student").get<std::string>();
      StudentGrades s;
      try {
        const auto& results = entry.at("results");
        s = results.is_null() ? StudentGrades{name, false, {}, "", {}} : student_from(results, name);
      } catch (const std::exception& e) {
        throw ExportError(fmt::format("student '{}': {}", name, e.what()));
      }
      s.error = string_or_empty(entry, "error");
      if (!s.has_results && s.error.empty()) s.error = "no results";
      try {
        s.builds = builds_from_json(entry);
      } catch (const std::exception& e) {
        throw ExportError(fmt::format("student '{}': {}", name, e.what()));
      }
      book.students.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    throw ExportError(e.what());
  }
  return book;
}

Roster roster_from_csv(std::string_view text) {
  const auto rows = csv_rows(text);
  if (rows.empty()) throw ExportError("the roster is empty: it needs a header row naming student and login");
  const auto& header = rows[0];
  const auto column = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? std::nullopt : std::optional<std::size_t>(it - header.begin());
  };
  const auto student = column("student"), login = column("login"), name = column("name");
  if (!student || !login) throw ExportError("the roster's header row must name the columns student and login");
  Roster roster;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    if (row.size() != header.size())
      throw ExportError(fmt::format("roster row {}: {} fields, the header has {}", r + 1, row.size(), header.size()));
    GradebookIdentity identity{row[*login], name ? row[*name] : ""};
    if (row[*student].empty() || identity.login.empty())
      throw ExportError(fmt::format("roster row {}: an empty student or login", r + 1));
    if (!roster.emplace(row[*student], std::move(identity)).second)
      throw ExportError(fmt::format("roster row {}: student '{}' is listed twice", r + 1, row[*student]));
  }
  return roster;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto cp = next_code_point(text, i);
    switch (cp) {
      case '&': out += "&amp;"; continue;
      case '<': out += "&lt;"; continue;
      case '>': out += "&gt;"; continue;
      case '"': out += "&quot;"; continue;
      case '\'': out += "&apos;"; continue;
      // As references, so that attribute values keep them (a parser turns a literal one into a space).
      case '\t': out += "&#9;"; continue;
      case '\n': out += "&#10;"; continue;
      case '\r': out += "&#13;"; continue;
      default: break;
    }
    // XML 1.0 Char: no other control characters, no U+FFFE/U+FFFF.
    const bool allowed = cp >= 0x20 && cp != 0xFFFE && cp != 0xFFFF;
    append_utf8(out, allowed ? cp : 0xFFFD);
  }
  return out;
}

std::string csv_field(std::string_view text, bool text_cell) {
  std::string field(text);
  if (text_cell && !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos)
    field.insert(0, 1, '\'');
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string capped(std::string_view text, std::size_t max) {
  // Code points start at every byte that is not a UTF-8 continuation byte (10xxxxxx).
  const auto starts = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; };
  std::size_t points = 0, keep = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!starts(text[i])) continue;
    if (points == (max >= 3 ? max - 3 : 0)) keep = i;  // where the kept text ends if it has to be cut
    ++points;
  }
  if (points <= max) return std::string(text);
  return std::string(text.substr(0, keep)) + std::string("...").substr(0, std::min<std::size_t>(max, 3));
}

std::string file_name_for(std::string_view student) {
  std::string name;
  for (char c : student) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    name += keep ? c : '_';
  }
  // "", "." and ".." are not files of their own.
  if (name.find_first_not_of('.') == std::string::npos) name.insert(0, 1, '_');
  return name;
}

}  // namespace grader
