// The decks that `make slides` built (build/slides/*.html, *.pdf), opened in headless Chromium: every slide renders,
// every code block included from the sources holds code, every chart is a real SVG that also exists on disk, no
// slide overflows and its code is readable when projected (check_slides.js), and a screenshot and the PDF are not
// empty. The ctest fixture `slides.build` runs `make slides` first. Where node or
// Chromium was not found at configure the tests SKIP, saying which; CI installs both, so there they run.
#include <catch2/catch_test_macros.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kSlides = COURSE_SLIDES_DIR;
const fs::path kCheckScript = COURSE_SLIDES_CHECK_JS;
constexpr const char* kChromium = COURSE_CHROMIUM;  // empty: none found at configure
constexpr bool kNode = COURSE_SLIDES_NODE;

std::vector<std::string> decks() {
  std::vector<std::string> out;
  std::stringstream in(COURSE_SLIDE_DECK_NAMES);  // from the source decks, so a deck without HTML fails
  for (std::string d; std::getline(in, d, ',');) out.push_back(d);
  return out;
}

void require_tools() {
  if (!kNode) SKIP("node/npm were not found at configure: `make slides` cannot run marp-cli here");
  if (std::string(kChromium).empty()) SKIP("chromium was not found at configure: nothing to render the HTML with");
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Runs headless Chromium with its own profile (tests may run in parallel) and returns its stdout.
std::string chromium(const std::string& args) {
  const auto profile = fs::temp_directory_path() / ("slides-test-" + std::to_string(std::rand()) + std::to_string(
                                                        reinterpret_cast<std::uintptr_t>(&args)));
  const auto cmd = std::string(kChromium) + " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                   profile.string() + " " + args + " 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    std::array<char, 65536> buf;
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
    pclose(p);
  }
  std::error_code ec;
  fs::remove_all(profile, ec);
  return out;
}

/// The DOM of a deck's HTML after its scripts ran, once per deck.
const std::string& dom(const std::string& deck) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(deck);
  if (it == cache.end()) {
    const auto html = kSlides / (deck + ".html");
    REQUIRE(fs::exists(html));
    it = cache.emplace(deck, chromium("--dump-dom file://" + html.string())).first;
  }
  return it->second;
}

/// A part 2 deck, the walk-through after the lab (NN_name-walkthrough.md); part 1 is NN_name.md.
bool walkthrough(const std::string& deck) { return deck.ends_with("-walkthrough"); }

/// What check_slides.js found in the deck, laid out by Chromium at the slides' own size: one line per problem after
/// a first line "slides checked: N".
std::string layout_report(const std::string& deck) {
  auto html = read(kSlides / (deck + ".html"));
  const auto body = html.rfind("</body>");
  REQUIRE(body != std::string::npos);
  const auto script = read(kCheckScript);
  REQUIRE(!script.empty());
  html.insert(body, "<script>\n" + script + "\n</script>\n");
  // Beside the deck, so that anything it names by a relative path still resolves.
  const auto copy = kSlides / (".layout-test-" + deck + ".html");
  std::ofstream(copy, std::ios::binary) << html;
  const auto d = chromium("--window-size=1280,720 --virtual-time-budget=5000 --dump-dom file://" + copy.string());
  fs::remove(copy);
  const std::string open = "<pre id=\"slides-test-report\">";
  const auto at = d.rfind(open);
  REQUIRE(at != std::string::npos);
  const auto end = d.find("</pre>", at);
  REQUIRE(end != std::string::npos);
  auto text = d.substr(at + open.size(), end - at - open.size());
  for (const auto& [entity, c] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (std::size_t p; (p = text.find(entity)) != std::string::npos;) text.replace(p, std::string(entity).size(), c);
  return text;
}

std::size_t count(const std::string& text, const std::regex& re) {
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), {}));
}

std::string strip_tags(const std::string& html) {
  static const std::regex tag("<[^>]*>");
  return std::regex_replace(html, tag, "");
}

std::string base64_decode(const std::string& in) {
  std::string out;
  int bits = 0, value = 0;
  for (char c : in) {
    const auto pos = std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").find(c);
    if (pos == std::string::npos) continue;  // '=' padding
    value = value << 6 | static_cast<int>(pos);
    if ((bits += 6) >= 8) out += static_cast<char>((value >> (bits -= 8)) & 0xff);
  }
  return out;
}

}  // namespace

TEST_CASE("every deck renders one section per slide in headless Chromium", "[slides]") {
  require_tools();
  for (const auto& deck : decks()) {
    CAPTURE(deck);
    const auto expected = std::stoul(read(kSlides / (deck + ".slides")));
    const auto& d = dom(deck);
    REQUIRE(d.find("</html>") != std::string::npos);  // Chromium dumped the whole DOM
    CHECK(count(d, std::regex("<section[^>]* id=\"[0-9]+\"")) == expected);
  }
}

TEST_CASE("every code block included from the sources is rendered with its code", "[slides]") {
  require_tools();
  for (const auto& deck : decks()) {
    CAPTURE(deck);
    // The generator writes each region as a fence that opens with the source's path as a comment.
    const auto markdown = read(kSlides / (deck + ".md"));
    const auto included = count(markdown, std::regex("```cpp\n// "));
    REQUIRE(included > 0);
    const auto& d = dom(deck);
    // Marp renders a fence as <marp-pre> (it scales long code down), plain Markdown as <pre>.
    static const std::regex pre("<(?:marp-)?pre\\b[^>]*>([\\s\\S]*?)</(?:marp-)?pre>");
    std::size_t rendered = 0;
    for (auto it = std::sregex_iterator(d.begin(), d.end(), pre); it != std::sregex_iterator(); ++it) {
      const auto text = strip_tags((*it)[1].str());
      CAPTURE(text.substr(0, 200));
      const auto newline = text.find('\n');
      REQUIRE(newline != std::string::npos);  // a path line, then code
      CHECK(text.find_first_not_of(" \n", newline) != std::string::npos);
      rendered += text.starts_with("// ");
    }
    CHECK(rendered == included);
  }
}

TEST_CASE("every chart in the rendered slides is a nonempty SVG with axis ticks and a unit, also on disk", "[slides]") {
  require_tools();
  for (const auto& deck : decks()) {
    CAPTURE(deck);
    const auto& d = dom(deck);
    static const std::regex img("<img[^>]*>");
    static const std::regex src("src=\"([^\"]*)\"");
    static const std::regex file("data-file=\"([^\"]*)\"");
    std::size_t charts = 0;
    for (auto it = std::sregex_iterator(d.begin(), d.end(), img); it != std::sregex_iterator(); ++it) {
      const auto tag = it->str();
      CAPTURE(tag.substr(0, 200));
      std::smatch s, f;
      REQUIRE(std::regex_search(tag, s, src));
      const std::string prefix = "data:image/svg+xml;base64,";
      if (!s[1].str().starts_with(prefix)) {  // any other image must be a file beside the HTML
        CHECK(fs::file_size(kSlides / s[1].str()) > 0);
        continue;
      }
      const auto svg = base64_decode(s[1].str().substr(prefix.size()));
      CHECK(svg.starts_with("<svg"));
      CHECK(svg.find("<rect") != std::string::npos);  // it has bars
      CHECK(count(svg, std::regex("<text class=\"tick\"")) >= 2);  // an axis with labelled ticks ...
      CHECK(std::regex_search(svg, std::regex("<text class=\"unit\"[^>]*>[^<]+</text>")));  // ... and its unit
      REQUIRE(std::regex_search(tag, f, file));
      CHECK(read(kSlides / f[1].str()) == svg);
      ++charts;
    }
    CHECK(charts == count(read(kSlides / (deck + ".md")), std::regex("<img class=\"chart\"")));
    if (walkthrough(deck)) CHECK(charts > 0);  // part 1 may show no measurement yet
  }
}

TEST_CASE("no slide overflows, and code on a slide is at most 20 lines and as large as its prose", "[slides]") {
  require_tools();
  for (const auto& deck : decks()) {
    CAPTURE(deck);
    const auto report = layout_report(deck);
    const auto expected = read(kSlides / (deck + ".slides"));
    CAPTURE(report);
    REQUIRE(report.starts_with("slides checked: " + std::to_string(std::stoul(expected)) + "\n"));
    CHECK(report.find('\n') == report.size() - 1);  // nothing after the count: no problem found
  }
}

TEST_CASE("every deck screenshots in headless Chromium and has a nonempty PDF", "[slides]") {
  require_tools();
  for (const auto& deck : decks()) {
    CAPTURE(deck);
    const auto png = fs::temp_directory_path() / ("slides-test-" + deck + ".png");
    fs::remove(png);
    chromium("--window-size=1280,720 --screenshot=" + png.string() + " file://" + (kSlides / (deck + ".html")).string());
    REQUIRE(fs::exists(png));
    CHECK(read(png).starts_with("\x89PNG"));
    CHECK(fs::file_size(png) > 5000);  // a blank 1280 x 720 page compresses to far less
    fs::remove(png);
    CHECK(read(kSlides / (deck + ".pdf")).starts_with("%PDF"));
  }
}
