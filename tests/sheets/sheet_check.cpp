// sheet_check: the markers, the heuristics and the citations of the exercise sheets (sheet_check.hpp says what).

#include "sheet_check.hpp"

#include <grader/sources_hash.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace sheets {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Files a sheet may name that the build or the student makes: they are not in the repository, and need not be.
bool generated(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  // docs/html/: the Doxygen pages `make docs` writes in the build folder (tests/sheets/doxygen_links.cmake checks
  // that every one a sheet names exists there).
  return name == "student.cu" || name == "grade-results.json" || path.rfind("build/", 0) == 0 ||
         path.rfind("runners/", 0) == 0 || path.rfind("docs/html/", 0) == 0;
}

bool numeric(const std::string& s, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(s, &used);
    return used == s.size();
  } catch (const std::exception&) {
    return false;
  }
}

// Whether array element `e` has `key` equal to `value` (a string, or a number compared as a number).
bool selects(const json& e, const std::string& key, const std::string& value) {
  if (!e.is_object() || !e.contains(key)) return false;
  const json& v = e.at(key);
  if (v.is_string()) return v.get<std::string>() == value;
  double want = 0;
  return v.is_number() && numeric(value, want) && v.get<double>() == want;
}

// One marker's value: the file's JSON walked by `expr` (`path`, `path / path`, `path / number`, `path * number`).
std::optional<double> evaluate(const json& doc, const std::string& expr, std::string& error) {
  static const std::regex binary(R"(^(\S+)\s+([/*])\s+(\S+)$)");
  std::smatch m;
  if (!std::regex_match(expr, m, binary)) return resolve(doc, expr, error);
  const auto left = resolve(doc, m[1], error);
  if (!left) return std::nullopt;
  double right = 0;
  if (!numeric(m[3], right)) {
    const auto r = resolve(doc, m[3], error);
    if (!r) return std::nullopt;
    right = *r;
  }
  if (m[2] == "/") {
    if (right == 0) {
      error = "division by zero";
      return std::nullopt;
    }
    return *left / right;
  }
  return *left * right;
}

// Whether the printed number occurs in a text file as it is printed (not inside a longer number).
bool occurs_in(const std::string& text, const std::string& printed) {
  for (auto at = text.find(printed); at != std::string::npos; at = text.find(printed, at + 1)) {
    const auto is_digit = [&](std::size_t i) { return i < text.size() && std::isdigit((unsigned char)text[i]); };
    const bool before = at > 0 && (is_digit(at - 1) || text[at - 1] == '.' || text[at - 1] == ',');
    const std::size_t end = at + printed.size();
    const bool after = is_digit(end) || ((text[end] == '.' || text[end] == ',') && is_digit(end + 1));
    if (!before && !after) return true;
  }
  return false;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The sheet as blocks of consecutive non-blank lines (paragraphs, lists, tables), fenced code left out.
struct Block {
  int first_line = 0;
  std::string text;
};

std::vector<Block> blocks_of(const std::string& text) {
  std::vector<Block> blocks;
  std::istringstream in(text);
  std::string line;
  bool fenced = false;
  Block current;
  int number = 0;
  const auto close = [&] {
    if (!current.text.empty()) blocks.push_back(current);
    current = {};
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      close();
      continue;
    }
    if (fenced || line.find_first_not_of(" \t") == std::string::npos) {
      close();
      continue;
    }
    if (current.text.empty()) current.first_line = number;
    current.text += line + "\n";
  }
  close();
  return blocks;
}

int line_at(const Block& b, std::size_t offset) {
  int line = b.first_line;
  for (std::size_t i = 0; i < offset && i < b.text.size(); ++i) line += b.text[i] == '\n';
  return line;
}

// Blanks [from, to) of `s` with spaces, keeping newlines, so offsets still map to lines.
void blank(std::string& s, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to && i < s.size(); ++i)
    if (s[i] != '\n') s[i] = ' ';
}

std::vector<std::string> expand_braces(const std::string& s) {
  const auto open = s.find('{'), close = s.find('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {s};
  std::vector<std::string> out;
  std::stringstream alts(s.substr(open + 1, close - open - 1));
  for (std::string alt; std::getline(alts, alt, ',');)
    for (const auto& rest : expand_braces(s.substr(close + 1))) out.push_back(s.substr(0, open) + alt + rest);
  return out;
}

bool path_like(const std::string& s) {
  static const std::regex shape(R"(^[A-Za-z0-9_.\-/{},]+$)");
  static const std::regex extension(R"(\.(cu|cuh|cpp|hpp|h|json|txt|log|md|cmake|sh)(#.*)?$)");
  if (s.empty() || !std::regex_match(s, shape) || s.rfind("./", 0) == 0) return false;
  return s.find('/') != std::string::npos || std::regex_search(s, extension);
}

class Checker {
 public:
  Checker(const Context& c) : context_(c) {}

  std::vector<Finding> run(const std::string& text) {
    bool previous_speaks = false;
    for (Block& b : blocks_of(text)) {
      citations(b);
      std::string rest = b.text;
      markers(b, rest);
      to_measure(b, rest);
      napkin(rest);
      // A table belongs to the paragraph that introduces it: "Measured on ...:" followed by rows of numbers.
      previous_speaks = unmarked(b, rest, b.text.front() == '|' && previous_speaks);
    }
    return std::move(findings_);
  }

 private:
  void find(const Block& b, std::size_t offset, std::string what) {
    const Finding f{line_at(b, offset), std::move(what)};
    for (const auto& g : findings_)
      if (g.line == f.line && g.what == f.what) return;  // a link to results/X is also a results/X citation
    findings_.push_back(f);
  }

  // A file cited in backticks, as a link target, or as results/NAME must be in the repository.
  void citations(const Block& b) {
    static const std::regex code(R"(`([^`\n]+)`)");
    static const std::regex link(R"(\]\(([^)\s]+)\))");
    static const std::regex results_name(R"((?:^|[\s(])(results/[A-Za-z0-9_.\-]+[A-Za-z0-9]))");
    for (const auto* re : {&code, &link, &results_name}) {
      for (auto it = std::sregex_iterator(b.text.begin(), b.text.end(), *re); it != std::sregex_iterator(); ++it) {
        std::string target = (*it)[1];
        if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0) continue;
        target = target.substr(0, target.find('#'));
        for (const auto& path : expand_braces(target))
          if (path_like(path) && !generated(path) && !in_repository(path))
            find(b, it->position(1), "cites " + path + ", which is not in the repository");
      }
    }
  }

  // A sheet names files of its lab folder, of its solutions folder (solutions/NN_name/) or of the repository.
  bool in_repository(const std::string& path) const {
    const fs::path root = fs::weakly_canonical(context_.repo_root);
    for (const fs::path& base : {context_.sheet_dir, context_.repo_root / "solutions" / context_.sheet_dir.filename(),
                                 context_.repo_root}) {
      const fs::path p = fs::weakly_canonical(base / path);
      const auto [r, _] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
      if (r == root.end() && fs::exists(p)) return true;  // inside the repository, not only reachable from it
    }
    return false;
  }

  // Each marker: resolved, compared with the number printed after it, then blanked out of `rest`.
  void markers(const Block& b, std::string& rest) {
    static const std::regex marker(
        R"(<!--\s*measured( on older sources)?:\s*(\S+)\s*(.*?)\s*-->( ?)(\d[\d,]*(?:\.\d+)?)?)");
    for (auto it = std::sregex_iterator(b.text.begin(), b.text.end(), marker); it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      blank(rest, m.position(0), m.position(0) + m.length(0));
      const bool older = m[1].matched;  // a number of code the sheet says is gone: its value is checked, not its sources
      const std::string file = m[2], expr = m[3], printed = m[5];
      const std::string where = "marker " + file + (expr.empty() ? "" : " " + expr);
      if (printed.empty()) {
        find(b, m.position(0), where + ": no number right after it");
        continue;
      }
      const fs::path path = context_.repo_root / "results" / file;
      if (file.find("..") != std::string::npos || !fs::is_regular_file(path)) {
        find(b, m.position(0), where + ": results/" + file + " is not in the repository");
        continue;
      }
      if (path.extension() != ".json") {
        if (!expr.empty()) find(b, m.position(0), where + ": a text file takes no path");
        else if (!occurs_in(text_of(path), printed))
          find(b, m.position(0), where + ": " + printed + " does not occur in results/" + file);
        continue;
      }
      std::string error;
      const json* doc = json_of(path, error);
      const auto value = doc ? evaluate(*doc, expr, error) : std::nullopt;
      if (!value) {
        find(b, m.position(0), where + ": " + error);
      } else if (!printed_matches(printed, *value)) {
        std::ostringstream v;
        v.precision(10);
        v << *value;
        find(b, m.position(0), where + ": the sheet prints " + printed + ", results/" + file + " holds " + v.str());
      } else if (const auto stale = older ? "" : stale_sources(*doc, expr); !stale.empty()) {
        find(b, m.position(0), where + ": " + stale);
      }
    }
  }

  // Why a value of a `grade` results file (it has "runs") no longer measures the code it is cited for, or "": the
  // run recorded no fingerprints of its sources (grader/sources_hash.hpp: it predates them, so what it measured is
  // unknown), or its fingerprint of the lab the value belongs to (the path's `labs[lab=N]`, else this sheet's) is not
  // the tree's. Other files (an experiment's JSON) measure code of their own and are not compared.
  std::string stale_sources(const json& doc, const std::string& expr) {
    if (!context_.fingerprints || !doc.is_object() || !doc.contains("runs")) return "";
    static const std::regex cited_lab(R"(labs\[lab=(\d+)\])");
    std::smatch m;
    const int number = std::regex_search(expr, m, cited_lab)
                           ? std::stoi(m[1])
                           : std::atoi(context_.sheet_dir.filename().string().c_str());
    const std::string lab = "lab" + std::to_string(number);
    if (!doc.contains("sources") || !doc.at("sources").is_object())
      return "the run records no fingerprints of its sources (it predates them), so what it measured is unknown: "
             "cite a run that records them";
    if (sources_.empty()) sources_ = grader::course_sources(context_.repo_root / "labs");
    const auto recorded = doc.at("sources").find(lab);
    return grader::stale_sources(lab, recorded != doc.at("sources").end() && recorded->is_string()
                                          ? recorded->get<std::string>()
                                          : "none",
                                 sources_);
  }

  // `<!-- to measure: FILE PATH -->`: a number not measured yet, named by where it will come from, with no number
  // after it. Once results/FILE holds PATH, the placeholder is a finding: write the number with a measured marker.
  void to_measure(const Block& b, std::string& rest) {
    static const std::regex marker(R"(<!--\s*to measure:\s*(\S+)\s*(.*?)\s*-->( ?)(\d[\d,]*(?:\.\d+)?)?)");
    for (auto it = std::sregex_iterator(b.text.begin(), b.text.end(), marker); it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      blank(rest, m.position(0), m.position(0) + m.length(0));
      const std::string file = m[1], expr = m[2];
      const std::string where = "placeholder " + file + (expr.empty() ? "" : " " + expr);
      if (m[4].matched) {
        find(b, m.position(0), where + ": a number after a placeholder was typed, not measured");
        continue;
      }
      const fs::path path = context_.repo_root / "results" / file;
      if (file.find("..") != std::string::npos || path.extension() != ".json" || expr.empty()) {
        find(b, m.position(0), where + ": a placeholder names a results JSON file and a path in it");
        continue;
      }
      if (!fs::is_regular_file(path)) continue;  // not measured yet
      std::string error;
      const json* doc = json_of(path, error);
      if (doc && evaluate(*doc, expr, error))
        find(b, m.position(0), where + ": results/" + file + " holds it now: print it with a measured marker");
    }
  }

  // `<!-- napkin -->` exempts the rest of its block, or up to `<!-- /napkin -->`.
  static void napkin(std::string& rest) {
    static const std::string open = "<!-- napkin -->", end = "<!-- /napkin -->";
    for (auto at = rest.find(open); at != std::string::npos; at = rest.find(open, at)) {
      const auto stop = rest.find(end, at);
      blank(rest, at, stop == std::string::npos ? rest.size() : stop + end.size());
    }
  }

  // What still looks measured in `rest` (markers and napkin blanked, inline code left out). Returns whether the block
  // speaks of measuring (or `speaks` was already given).
  bool unmarked(const Block& b, std::string& rest, bool speaks) {
    static const std::regex code(R"(`[^`\n]*`)");
    for (auto it = std::sregex_iterator(b.text.begin(), b.text.end(), code); it != std::sregex_iterator(); ++it)
      blank(rest, it->position(0), it->position(0) + it->length(0));
    static const std::regex with_unit(
        R"((?:^|[^A-Za-z0-9_.^])(\d[\d,]*(?:\.\d+)?)\s?(ms|us|µs|ns|ps|s|GB/s|GiB/s|MB/s|TB/s|GFLOP/s|TFLOP/s)(?![A-Za-z/]))");
    static const std::regex speaks_of_measuring(R"(measur|anchor)", std::regex::icase);
    static const std::regex figure(
        R"((?:^|[^A-Za-z0-9_.^])(\d+\.\d+x?|\d+(?:\.\d+)?\s?%|\d+(?:\.\d+)?x(?![A-Za-z0-9])|\d{1,3}(?:,\d{3})+))");
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), with_unit); it != std::sregex_iterator(); ++it)
      find(b, it->position(1), "unmarked measurement '" + (*it)[1].str() + " " + (*it)[2].str() +
                                   "': add a measured marker, or a napkin marker if it is napkin math");
    // "measured in the same run" describes how the harness times, not a number that was measured.
    static const std::regex how_it_times(R"(measured\s+in\s+the\s+same)", std::regex::icase);
    speaks = speaks || std::regex_search(std::regex_replace(rest, how_it_times, ""), speaks_of_measuring);
    if (!speaks) return false;
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), figure); it != std::sregex_iterator(); ++it) {
      const auto at = it->position(1);
      if (std::regex_search(rest.substr(at, 24), with_unit)) continue;  // already reported
      find(b, at, "unmarked figure '" + (*it)[1].str() +
                      "' in a paragraph about measurements: add a measured marker, or a napkin marker");
    }
    return true;
  }

  const std::string& text_of(const fs::path& p) {
    auto [it, fresh] = texts_.try_emplace(p.string());
    if (fresh) it->second = slurp(p);
    return it->second;
  }

  const json* json_of(const fs::path& p, std::string& error) {
    auto [it, fresh] = docs_.try_emplace(p.string());
    if (fresh) it->second = json::parse(slurp(p), nullptr, false);
    if (it->second.is_discarded()) {
      error = "results/" + p.filename().string() + " is not valid JSON";
      return nullptr;
    }
    return &it->second;
  }

  Context context_;
  std::map<std::string, std::string> sources_;  // the tree's fingerprints, computed once
  std::vector<Finding> findings_;
  std::map<std::string, json> docs_;
  std::map<std::string, std::string> texts_;
};

}  // namespace

const json* locate(const json& doc, const std::string& path, std::string& error) {
  // .key | [key=value] | [N] | ["key"] (a key that is no identifier, such as "cub::DeviceReduce::Sum")
  static const std::regex step(R"re(\.?([A-Za-z_][A-Za-z0-9_]*)|\[([^\]="]+)=([^\]]*)\]|\[(\d+)\]|\["([^"]+)"\])re");
  const json* at = &doc;
  std::size_t pos = 0;
  for (auto it = std::sregex_iterator(path.begin(), path.end(), step); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (static_cast<std::size_t>(m.position(0)) != pos) break;
    pos += m.length(0);
    if (m[1].matched || m[5].matched) {
      const std::string key = m[1].matched ? m[1].str() : m[5].str();
      if (!at->is_object() || !at->contains(key)) {
        error = path + ": no key '" + key + "'";
        return nullptr;
      }
      at = &at->at(key);
    } else if (m[4].matched) {
      const auto index = std::stoul(m[4].str());
      if (!at->is_array() || index >= at->size()) {
        error = path + ": no element [" + m[4].str() + "]";
        return nullptr;
      }
      at = &at->at(index);
    } else {
      const json* found = nullptr;
      int matches = 0;
      if (at->is_array())
        for (const auto& e : *at)
          if (selects(e, m[2], m[3])) {
            found = &e;
            ++matches;
          }
      if (matches != 1) {
        error = path + ": " + std::to_string(matches) + " elements with " + m[2].str() + "=" + m[3].str() +
                (matches > 1 ? " (add an index)" : "");
        return nullptr;
      }
      at = found;
    }
  }
  if (pos != path.size() || path.empty()) {
    error = "cannot read the path '" + path + "' at character " + std::to_string(pos);
    return nullptr;
  }
  return at;
}

std::optional<double> resolve(const json& doc, const std::string& path, std::string& error) {
  const json* at = locate(doc, path, error);
  if (!at) return std::nullopt;
  if (!at->is_number()) {
    error = path + ": not a number";
    return std::nullopt;
  }
  return at->get<double>();
}

bool printed_matches(const std::string& printed, double value) {
  std::string digits;
  for (char c : printed)
    if (c != ',') digits += c;
  double shown = 0;
  if (!numeric(digits, shown)) return false;
  const auto dot = digits.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  const double half_step = 0.5 * std::pow(10.0, -decimals);
  return std::abs(value - shown) <= half_step * (1 + 1e-9);
}

std::vector<Finding> check_sheet(const std::string& text, const Context& context) {
  return Checker(context).run(text);
}

namespace {

// The cells of a table row, trimmed: "| a | b |" is {"a", "b"}.
std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> cells;
  std::string inner = row.substr(row.find('|') + 1);
  if (const auto last = inner.find_last_not_of(" \t"); last != std::string::npos && inner[last] == '|')
    inner.erase(last);
  std::stringstream in(inner);
  for (std::string cell; std::getline(in, cell, '|');) {
    const auto first = cell.find_first_not_of(" \t"), last = cell.find_last_not_of(" \t");
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

// The words of a cell, its markers left out: "-" has none, a sentence has several.
int words_in(const std::string& cell) {
  static const std::regex comment(R"(<!--[\s\S]*?-->)"), word(R"([A-Za-z][A-Za-z'-]*)");
  const std::string text = std::regex_replace(cell, comment, " ");
  return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), word), std::sregex_iterator()));
}

}  // namespace

std::vector<Finding> check_reference_table(const std::string& text, const std::vector<std::string>& exercises,
                                           const Context& context) {
  std::vector<Finding> findings;
  const auto find = [&](std::size_t index, std::string what) {
    findings.push_back({static_cast<int>(index) + 1, std::move(what)});
  };
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto heading_at = [&](const std::string& heading, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (lines[i] == heading) return i;
    return to;
  };

  // The subsection, inside "## The ceiling" (up to the next "## " heading).
  const std::size_t section = heading_at("## The ceiling", 0, lines.size());
  if (section == lines.size()) {
    find(0, "no '## The ceiling' section");
    return findings;
  }
  std::size_t section_end = section + 1;
  while (section_end < lines.size() && lines[section_end].rfind("## ", 0) != 0) ++section_end;
  const std::size_t heading = heading_at("### How close the references come", section + 1, section_end);
  if (heading == section_end) {
    find(section, "'## The ceiling' has no '### How close the references come' subsection");
    return findings;
  }
  std::size_t first = heading + 1;
  while (first < section_end && lines[first].rfind("|", 0) != 0 && lines[first].rfind("#", 0) != 0) ++first;
  if (first == section_end || lines[first].rfind("|", 0) != 0) {
    find(heading, "'### How close the references come' holds no table");
    return findings;
  }
  const std::vector<std::string> header = {"exercise", "ceiling", "reference", "why it stops there"};
  if (cells_of(lines[first]) != header)
    find(first, "the table's columns must be: exercise | ceiling | reference | why it stops there");

  // One row per exercise of the manifest, in its order.
  std::vector<std::size_t> rows;
  for (std::size_t i = first + 2; i < section_end && lines[i].rfind("|", 0) == 0; ++i) rows.push_back(i);
  if (rows.size() != exercises.size())
    find(first, std::to_string(rows.size()) + " rows for the manifest's " + std::to_string(exercises.size()) +
                    " exercises");
  std::map<std::string, json> docs;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t at = rows[r];
    const auto cells = cells_of(lines[at]);
    if (cells.size() != header.size()) {
      find(at, "a row of " + std::to_string(cells.size()) + " cells, not 4");
      continue;
    }
    const std::string& name = cells[0];
    if (r >= exercises.size() || name != exercises[r]) {
      find(at, "row " + std::to_string(r + 1) + " is '" + name + "', the manifest's exercise " +
                   std::to_string(r + 1) + " is '" + (r < exercises.size() ? exercises[r] : "none") + "'");
      continue;
    }
    if (words_in(cells[1]) == 0) find(at, name + ": the ceiling cell does not say what the ceiling is");

    // The reference cell: this exercise's percent_of_ceiling, marked (check_sheet() compares the printed number).
    static const std::regex marker(
        R"(^<!--\s*measured:\s*(\S+)\s+(\S+)\.percent_of_ceiling\s*-->\s?(\d[\d,]*(?:\.\d+)?)\s?%$)");
    static const std::regex placeholder(R"(^<!--\s*to measure:\s*(\S+)\s+(\S+)\.percent_of_ceiling\s*-->$)");
    std::smatch m;
    if (std::regex_match(cells[2], m, placeholder)) {
      // Not measured yet (check_sheet() says when it is): no number, so no threshold to explain.
      if (m[2].str().find("exercises[name=" + name + "]") == std::string::npos)
        find(at, name + ": the reference cell's placeholder is not this exercise's (" + m[2].str() + ")");
      continue;
    }
    if (!std::regex_match(cells[2], m, marker)) {
      find(at, name + ": the reference cell must be a marked percent_of_ceiling and nothing else "
                      "(<!-- measured: FILE PATH.percent_of_ceiling -->N%)");
      continue;
    }
    const std::string file = m[1], record = m[2];
    if (record.find("exercises[name=" + name + "]") == std::string::npos) {
      find(at, name + ": the reference cell's marker is not this exercise's (" + record + ")");
      continue;
    }
    const fs::path path = context.repo_root / "results" / file;
    if (file.find("..") != std::string::npos || !fs::is_regular_file(path)) {
      find(at, name + ": results/" + file + " is not in the repository");
      continue;
    }
    auto [doc, fresh] = docs.try_emplace(file);
    if (fresh) doc->second = json::parse(slurp(path), nullptr, false);
    std::string error;
    const json* entry = doc->second.is_discarded() ? nullptr : locate(doc->second, record, error);
    const auto percent = entry ? resolve(*entry, "percent_of_ceiling", error) : std::nullopt;
    if (!percent || !entry->contains("unit") || !entry->at("unit").is_string()) {
      find(at, name + ": results/" + file + " " + record + ": " + (error.empty() ? "no unit" : error));
      continue;
    }

    // The bound from the results record (see the header): GB/s is Bound::memory.
    const bool memory = entry->at("unit").get<std::string>() == "GB/s";
    const double below = memory ? kExplainBelowMemory : kExplainBelowCompute;
    if (*percent < below && words_in(cells[3]) < 8) {
      std::ostringstream v;
      v.precision(3);
      v << *percent;
      find(at, name + ": the reference reaches " + v.str() + "% of its ceiling, below the " +
                   (memory ? "memory" : "compute") + "-bound threshold of " + std::to_string(int(below)) +
                   "%: say why it stops there (a sentence of 8 words or more, napkin math marked)");
    }
  }
  return findings;
}

std::vector<Finding> check_table_shapes(const std::string& text) {
  std::vector<Finding> findings;
  std::stringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto is_row = [](const std::string& line) { return line.rfind('|', 0) == 0; };
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!is_row(lines[i]) || lines[i + 1].rfind("| ---", 0) != 0 || (i > 0 && is_row(lines[i - 1]))) continue;
    const std::size_t header = cells_of(lines[i]).size();
    std::size_t row = i + 2;
    for (; row < lines.size() && is_row(lines[row]); ++row)
      if (const std::size_t cells = cells_of(lines[row]).size(); cells != header)
        findings.push_back({static_cast<int>(row + 1), "a table row of " + std::to_string(cells) +
                                                           " cells under a header of " + std::to_string(header)});
    i = row - 1;
  }
  return findings;
}

}  // namespace sheets
