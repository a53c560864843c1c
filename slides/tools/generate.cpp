// slides_generate: turns the decks in slides/ (Marp Markdown with directives) into the Markdown that marp-cli
// renders, so that code and numbers on a slide come from the compiled sources and the measured results, never from
// a hand-made copy that can go stale (CCCL's example-begin/end; Catch2's snippets synced from code).
//
//   slides_generate SOURCE_DIR OUT_DIR DECK.md...
//
// Directives, each alone on its line unless said otherwise (slides/README.md has examples):
//   <!-- include: PATH#NAME -->               the lines between `// slide-begin: NAME` and `// slide-end: NAME`
//   <!-- include: PATH#NAME from="A" to="B" -->   of those, the lines from the first containing A to the next with B
//   <!-- chart: KIND FILE lab=N [...] -->     an SVG chart from a results file (figures.hpp lists the kinds)
//   <!-- table: FILE lab=N -->                a Markdown table of the lab's measured times
//   <!-- source: FILE -->                     the file, commit, GPU and date the numbers on a slide come from
//   <!-- value: FILE lab=N ex=NAME key=K [run=student] -->   one number, inline, anywhere in a line
//   <!-- quote: SHEET MARK -->                 inline: the number a lab's sheet writes after `<!-- measured: MARK -->`
// A paragraph or list item that names the H200 (the course's GPU, which the sheets quote) must take a number from
// the sheet with `quote`: a number typed beside it could contradict the sheet's marked one.
// Writes OUT_DIR/DECK.md, OUT_DIR/img/DECK-K.svg and OUT_DIR/DECK.slides (the number of slides, for the render
// test). Anything it cannot resolve stops it with exit 1 and a message naming the deck, line and what is missing.
#include "figures.hpp"
#include "results.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using slides::Error;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> read_lines(const fs::path& path, const std::string& shown) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read {}", shown));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool is_marker(const std::string& line) {
  const auto t = trim(line);
  return t.starts_with("// slide-begin:") || t.starts_with("// slide-end:");
}

/// The marked region NAME of a source file, nested markers dropped, common indentation removed. `from="TEXT"` and
/// `to="TEXT"` after PATH#NAME cut it to the lines from the first that contains the one text to the first after it
/// that contains the other (a slide holds about 20 lines); a text the region does not contain is an error, so an
/// excerpt cannot silently drift when the code changes.
std::string marked_region(const fs::path& source_dir, const std::string& include) {
  static const std::regex kSpec(R"re(^(\S+)((?:\s+(?:from|to)="[^"]*")*)\s*$)re");
  static const std::regex kCut(R"re((from|to)="([^"]*)")re");
  std::smatch parts;
  if (!std::regex_match(include, parts, kSpec))
    throw Error(fmt::format("include '{}': expected PATH#NAME [from=\"TEXT\"] [to=\"TEXT\"]", include));
  const std::string spec = parts[1], cuts = parts[2];
  std::string from, to;
  for (auto it = std::sregex_iterator(cuts.begin(), cuts.end(), kCut); it != std::sregex_iterator(); ++it)
    ((*it)[1] == "from" ? from : to) = (*it)[2];
  const auto hash = spec.find('#');
  if (hash == std::string::npos) throw Error(fmt::format("include '{}': expected PATH#NAME", spec));
  const auto path = spec.substr(0, hash), name = spec.substr(hash + 1);
  const auto lines = read_lines(source_dir / path, path);
  const auto begin = "// slide-begin: " + name, end = "// slide-end: " + name;
  std::vector<std::string> body;
  int state = 0;  // 0 before, 1 inside, 2 after
  for (const auto& line : lines) {
    const auto t = trim(line);
    if (t == begin) {
      if (state != 0) throw Error(fmt::format("{}: marker '{}' appears twice", path, begin));
      state = 1;
    } else if (t == end && state == 1) {
      state = 2;
    } else if (state == 1 && !is_marker(line)) {
      body.push_back(line);
    }
  }
  if (state == 0) throw Error(fmt::format("{}: no marker '{}'", path, begin));
  if (state == 1) throw Error(fmt::format("{}: marker '{}' has no '{}'", path, begin, end));
  const bool excerpt = !from.empty() || !to.empty();
  if (excerpt) {
    std::size_t first = 0, last = body.size();
    if (!from.empty()) {
      while (first < body.size() && body[first].find(from) == std::string::npos) ++first;
      if (first == body.size()) throw Error(fmt::format("{}: region '{}' has no line with '{}'", path, name, from));
    }
    if (!to.empty()) {
      last = first;
      while (last < body.size() && body[last].find(to) == std::string::npos) ++last;
      if (last == body.size())
        throw Error(fmt::format("{}: region '{}' has no line with '{}' after '{}'", path, name, to, from));
      ++last;
    }
    body = std::vector<std::string>(body.begin() + first, body.begin() + last);
  }
  // Common indentation goes; preprocessor lines (`#pragma unroll`, always in column 0) do not count.
  const auto directive = [](const std::string& l) { return trim(l).starts_with("#"); };
  std::size_t indent = std::string::npos;
  for (const auto& l : body)
    if (!trim(l).empty() && !directive(l)) indent = std::min(indent, l.find_first_not_of(' '));
  if (indent == std::string::npos) throw Error(fmt::format("{}: region '{}' is empty", path, name));
  std::string code = fmt::format("```cpp\n// {}{}\n", path, excerpt ? " (excerpt)" : "");
  for (const auto& l : body) code += (l.size() > indent && !directive(l) ? l.substr(indent) : trim(l)) + "\n";
  return code + "```";
}

std::string base64(const std::string& in) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    for (int s : {18, 12, 6, 0}) out += kDigits[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = (unsigned char)in[i] << 16;
    if (i + 1 < in.size()) v |= (unsigned char)in[i + 1] << 8;
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < in.size() ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string source_line(const slides::Results& r) {
  return fmt::format("<p class=\"source\">Measured: {}</p>", r.provenance());
}

struct Deck {
  fs::path source_dir, out_dir;
  std::string stem;
  slides::ResultsCache results;
  int charts = 0;

  std::string value(const std::string& text) {
    const auto a = slides::parse_args(text);
    if (a.words.size() != 1) throw Error(fmt::format("value '{}': expected one results file", text));
    const auto& r = results.get(a.words[0]);
    return slides::format_number(r.value(a.lab(), a.get("run", "reference"), a.need("ex"), a.need("key")));
  }

  /// The number the sheet SHEET writes right after `<!-- measured: MARK -->`; every such marker must give the same.
  std::string quote(const std::string& text) {
    const auto space = text.find_first_of(" \t");
    if (space == std::string::npos) throw Error(fmt::format("quote '{}': expected SHEET MARK", text));
    const auto sheet = text.substr(0, space), mark = trim(text.substr(space));
    std::string doc;
    for (const auto& line : read_lines(source_dir / sheet, sheet)) doc += line + "\n";
    static const std::regex kNumber(R"(^[0-9][0-9,]*(?:\.[0-9]+)?)");
    std::string number;
    for (auto at = doc.find("<!--"); at != std::string::npos; at = doc.find("<!--", at + 4)) {
      const auto close = doc.find("-->", at);
      if (close == std::string::npos) break;
      auto inside = trim(doc.substr(at + 4, close - at - 4));
      if (!inside.starts_with("measured:") || trim(inside.substr(9)) != mark) continue;
      std::smatch m;
      const auto after = doc.substr(close + 3, 32);
      if (!std::regex_search(after, m, kNumber))
        throw Error(fmt::format("{}: no number after '<!-- measured: {} -->'", sheet, mark));
      if (!number.empty() && number != m[0])
        throw Error(fmt::format("{}: '<!-- measured: {} -->' marks {} and {}", sheet, mark, number, m[0].str()));
      number = m[0];
    }
    if (number.empty()) throw Error(fmt::format("{}: no number marked '<!-- measured: {} -->'", sheet, mark));
    return number;
  }

  std::string block(const std::string& kind, const std::string& text) {
    if (kind == "include") return marked_region(source_dir, trim(text));
    const auto a = slides::parse_args(text);
    if (kind == "source") return source_line(results.get(a.words.at(0)));
    if (a.words.empty()) throw Error(fmt::format("{} '{}': no results file", kind, text));
    if (kind == "table") {
      const auto& r = results.get(a.words[0]);
      return slides::results_table(r, a.lab()) + "\n" + source_line(r);
    }
    if (a.words.size() != 2) throw Error(fmt::format("chart '{}': expected KIND FILE", text));
    const auto& r = results.get(a.words[1]);
    const auto svg = slides::chart_svg(a.words[0], r, a);
    const auto file = fmt::format("img/{}-{}.svg", stem, ++charts);
    std::ofstream(out_dir / file) << svg;
    return fmt::format("<img class=\"chart\" alt=\"{} chart, lab {}\" data-file=\"{}\" src=\"data:image/svg+xml;base64,{}\">\n{}",
                       a.words[0], a.lab(), file, base64(svg), source_line(r));
  }
};

/// Expands one deck; returns its number of slides (separators outside code fences and the front matter, plus one).
int generate(const fs::path& source_dir, const fs::path& deck_path, const fs::path& out_dir) {
  const auto shown = deck_path.filename().string();
  Deck deck{source_dir, out_dir, deck_path.stem().string(), slides::ResultsCache(source_dir)};
  const auto lines = read_lines(deck_path, deck_path.string());
  static const std::regex kBlock(R"(^\s*<!--\s*(include|chart|table|source):\s*(.*?)\s*-->\s*$)");
  static const std::regex kValue(R"(<!--\s*(value|quote):\s*(.*?)\s*-->)");
  std::ostringstream out;
  bool fence = false, front = !lines.empty() && trim(lines[0]) == "---";
  int separators = 0;
  // The paragraph or list item being read, and its first line, for the rule on numbers said of the H200.
  std::string claim;
  std::size_t claim_line = 0;
  const auto check_claim = [&] {
    static const std::regex kDirective(R"(<!--[\s\S]*?-->)"), kGpu(R"(\bH200\b)"), kDigit(R"([0-9])");
    const auto prose = std::regex_replace(std::regex_replace(claim, kDirective, ""), kGpu, "GPU");
    if (std::regex_search(std::regex_replace(claim, kDirective, ""), kGpu) && std::regex_search(prose, kDigit) &&
        claim.find("quote:") == std::string::npos)
      throw Error(fmt::format("{}:{}: a number said of the H200 is typed in: take it from the lab's sheet with "
                              "<!-- quote: labs/NN_name/README.md MARK -->",
                              shown, claim_line));
    claim.clear();
  };
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const auto& line = lines[n];
    const auto t = trim(line);
    if (fence || front || t.empty() || t == "---" || t.starts_with("#") || t.starts_with("- ") || t.starts_with("|") ||
        std::regex_search(t, std::regex(R"(^[0-9]+\. )")))
      check_claim();
    if (!fence && !front && !t.empty() && t != "---") {
      if (claim.empty()) claim_line = n + 1;
      claim += line + "\n";
    }
    try {
      std::smatch m;
      if (trim(line).starts_with("```")) fence = !fence;
      if (!fence && trim(line) == "---" && n > 0) {
        if (front) front = false;
        else ++separators;
      }
      if (!fence && std::regex_match(line, m, kBlock)) {
        out << deck.block(m[1], m[2]) << "\n";
        continue;
      }
      std::string expanded;
      auto rest = line;
      while (!fence && std::regex_search(rest, m, kValue)) {
        expanded += m.prefix().str() + (m[1] == "value" ? deck.value(m[2]) : deck.quote(m[2]));
        rest = m.suffix().str();
      }
      out << expanded << rest << "\n";
    } catch (const std::exception& e) {
      throw Error(fmt::format("{}:{}: {}", shown, n + 1, e.what()));
    }
  }
  check_claim();
  std::ofstream(out_dir / (deck.stem + ".md")) << out.str();
  const int slides = separators + 1;
  std::ofstream(out_dir / (deck.stem + ".slides")) << slides << "\n";
  return slides;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: slides_generate SOURCE_DIR OUT_DIR DECK.md...\n";
    return 2;
  }
  const fs::path source_dir = argv[1], out_dir = argv[2];
  try {
    fs::create_directories(out_dir / "img");
    for (int i = 3; i < argc; ++i) {
      const int n = generate(source_dir, argv[i], out_dir);
      std::cout << fmt::format("slides: {} -> {} ({} slides)\n", argv[i], (out_dir / fs::path(argv[i]).filename()).string(), n);
    }
  } catch (const std::exception& e) {
    std::cerr << "slides_generate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
