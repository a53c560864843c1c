// SVG charts and Markdown tables from results/*.json (figures.hpp lists the kinds).
#include "figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace slides {
namespace {

constexpr const char* kStub = "#9aa0a6";
constexpr const char* kReference = "#76b900";
constexpr const char* kPeer = "#4a90d9";
constexpr const char* kCeiling = "#30343b";

struct Bar {
  std::string label;  // empty: same group as the row above
  std::string series;
  double value;
  std::string text;
  const char* color;
};

struct Line {
  double value;
  std::string label;
};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

/// A tick's label: no trailing zeros, thousands as "k" (10k reads better than 10000 or 1e+04).
std::string tick_label(double v) {
  if (v >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

/// Ticks of a linear axis from 0 to at least `hi`: a step of 1, 2 or 5 times a power of ten, 4 to 10 of them.
std::vector<double> linear_ticks(double hi) {
  const double raw = hi / 5, power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  std::vector<double> ticks;
  for (int i = 0; i * step <= hi * 1.0001; ++i) ticks.push_back(i * step);
  return ticks;
}

/// Horizontal bars, one row each, on a linear or log axis with its ticks and unit; an optional vertical line (the
/// ceiling). `title` heads the chart, `axis_unit` ends the axis.
std::string bar_chart(const std::vector<Bar>& bars, bool log_scale, std::optional<Line> line, const std::string& title,
                      const std::string& axis_unit) {
  constexpr double kWidth = 1120, kLabel = 330, kArea = 560, kRow = 30, kTop = 34;
  double hi = line ? line->value : 0, lo = 1e300;
  for (const auto& b : bars) {
    hi = std::max(hi, b.value);
    if (b.value > 0) lo = std::min(lo, b.value);
  }
  if (hi <= 0) throw Error("chart: nothing to draw (every value is zero)");
  const double log_lo = std::floor(std::log10(lo)), log_hi = std::ceil(std::log10(hi));
  std::vector<double> ticks;
  if (log_scale) {
    for (double k = log_lo; k <= log_hi; ++k) ticks.push_back(std::pow(10.0, k));
  } else {
    ticks = linear_ticks(hi);
    hi = std::max(hi, ticks.back());  // the axis ends on its last tick
  }
  auto x = [&](double v) {
    if (!log_scale) return kLabel + kArea * v / hi;
    const double f = (std::log10(std::max(v, std::pow(10.0, log_lo))) - log_lo) / std::max(1.0, log_hi - log_lo);
    return kLabel + kArea * f;
  };
  std::size_t groups = 0;
  for (const auto& b : bars) groups += !b.label.empty();
  const double bars_end = kTop + kRow * bars.size() + 8 * groups;
  const double height = bars_end + (line ? 64 : 44);
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"17\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text x=\"{:.0f}\" y=\"20\" fill=\"#555\" font-size=\"15\">{} ({} scale)</text>\n",
      kWidth, height, kWidth, height, kLabel, escape(title), log_scale ? "log" : "linear");
  // The axis under the bars: a grid line, a tick and a label at each tick, the unit after the last.
  const double axis = bars_end + 6;
  for (const double t : ticks) {
    s += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#e3e3e3\"/>\n"
                     "<line class=\"tick\" x1=\"{0:.1f}\" y1=\"{2:.0f}\" x2=\"{0:.1f}\" y2=\"{3:.0f}\" stroke=\"#555\"/>\n"
                     "<text class=\"tick\" x=\"{0:.1f}\" y=\"{4:.0f}\" text-anchor=\"middle\" fill=\"#555\" "
                     "font-size=\"14\">{5}</text>\n",
                     x(t), kTop, axis, axis + 6, axis + 22, escape(tick_label(t)));
  }
  s += fmt::format("<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"#555\"/>\n"
                   "<text class=\"unit\" x=\"{:.0f}\" y=\"{:.0f}\" fill=\"#555\" font-size=\"14\">{}</text>\n",
                   kLabel, axis, kLabel + kArea, axis, kLabel + kArea + 24, axis + 22, escape(axis_unit));
  double y = kTop;
  for (const auto& b : bars) {
    if (!b.label.empty()) {
      y += 8;
      s += fmt::format("<text x=\"8\" y=\"{:.0f}\" font-weight=\"bold\">{}</text>\n", y + 20, escape(b.label));
    }
    const double w = std::max(2.0, x(b.value) - kLabel);
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\" fill=\"#333\">{}</text>\n", kLabel - 10,
                     y + 20, escape(b.series));
    s += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\"/>\n", kLabel, y + 4,
                     w, kRow - 8, b.color);
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" fill=\"#111\">{}</text>\n", kLabel + w + 8, y + 20,
                     escape(b.text));
    y += kRow;
  }
  if (line) {
    const double lx = x(line->value);
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"{3}\" stroke-width=\"2\" "
        "stroke-dasharray=\"6 4\"/>\n<text x=\"{0:.1f}\" y=\"{4:.0f}\" text-anchor=\"middle\" fill=\"{3}\" "
        "font-size=\"15\">{5}</text>\n",
        lx, kTop, axis, kCeiling, axis + 44, escape(line->label));
  }
  return s + "</svg>\n";
}

std::string rate_text(const nlohmann::json& e, double rate) {
  return fmt::format("{} {}", format_number(rate), e.value("unit", ""));
}

std::vector<Bar> percent_bars(const Results& r, int lab) {
  std::vector<Bar> bars;
  for (const auto& ref : r.exercises(lab, "reference")) {
    const auto name = ref.at("name").get<std::string>();
    const auto& stub = r.exercise(lab, "student", name);
    for (const auto* e : {&stub, &ref}) {
      const double pct = e->at("percent_of_ceiling").get<double>();
      const bool is_stub = e == &stub;
      bars.push_back({is_stub ? name : "", is_stub ? "stub" : "reference", pct,
                      fmt::format("{}%  ({})", format_number(pct), rate_text(*e, e->at("rate").get<double>())),
                      is_stub ? kStub : kReference});
    }
  }
  return bars;
}

std::string ladder(const Results& r, int lab) {
  const auto& exs = r.exercises(lab, "reference");
  if (exs.empty()) throw Error(fmt::format("{}: lab {} has no exercises", r.path(), lab));
  const auto& first = exs.front();
  const auto& last = exs.back();
  // An exercise that is itself the stub (lab 04's stage 1 in newer runs) has no reference or baseline time of its
  // own: the time graded is the student's, which in this run is the reference's code.
  const auto ms_of = [](const nlohmann::json& e) {
    const auto& ms = e.at("median_ms");
    return (ms.contains("reference") && ms.at("reference").is_number() ? ms.at("reference") : ms.at("student"))
        .get<double>();
  };
  const double work = first.at("rate").get<double>() * ms_of(first);
  auto timed = [](double rate, double ms) { return fmt::format("{}  ({} ms)", format_number(rate), format_number(ms)); };
  std::vector<Bar> bars;
  const auto& base = first.at("median_ms").at("baseline");
  if (base.is_number()) {
    const double base_ms = base.get<double>();
    bars.push_back({"", fmt::format("stub of {}", first.at("name").get<std::string>()), work / base_ms,
                    timed(work / base_ms, base_ms), kStub});
  }
  for (const auto& e : exs) {
    const double ms = ms_of(e);
    bars.push_back({"", e.at("name").get<std::string>(), e.at("rate").get<double>(), timed(e.at("rate"), ms), kReference});
  }
  if (last.contains("peers"))
    for (const auto& [peer, p] : last.at("peers").items())
      bars.push_back({"", peer, p.at("rate").get<double>(), timed(p.at("rate"), p.at("median_ms")), kPeer});
  const double ceiling = last.at("ceiling_rate").get<double>();
  bars.push_back({"", "ceiling", ceiling, timed(ceiling, last.at("median_ms").at("ceiling")), kCeiling});
  return bar_chart(bars, true, std::nullopt,
                   fmt::format("{}; ceiling: {}", last.value("unit", ""), last.value("ceiling_what", "")),
                   last.value("unit", ""));
}

std::string overlap(const Results& r, int lab, const std::string& name) {
  const auto& ref = r.exercise(lab, "reference", name);
  const auto& stub = r.exercise(lab, "student", name);
  auto ms = [](double v) { return fmt::format("{} ms", format_number(v)); };
  std::vector<Bar> bars;
  for (const auto& [peer, p] : ref.at("peers").items())
    bars.push_back({"", peer, p.at("median_ms").get<double>(), ms(p.at("median_ms")), kPeer});
  const double seq = ref.at("median_ms").at("baseline").get<double>();
  const double stub_ms = stub.at("median_ms").at("student").get<double>();
  const double ref_ms = ref.at("median_ms").at("reference").get<double>();
  bars.push_back({"", "sequential (baseline)", seq, ms(seq), kStub});
  bars.push_back({"", "stub", stub_ms, ms(stub_ms), kStub});
  bars.push_back({"", "reference (streams)", ref_ms, ms(ref_ms), kReference});
  const double floor_ms = ref.at("median_ms").at("ceiling").get<double>();
  return bar_chart(bars, false, Line{floor_ms, fmt::format("ceiling: {}", ms(floor_ms))},
                   fmt::format("{}: median time per run, ms", name), "ms");
}

}  // namespace

std::string chart_svg(const std::string& kind, const Results& results, const Args& args) {
  const int lab = args.lab();
  if (kind == "percent")
    return bar_chart(percent_bars(results, lab), false, Line{100.0, "100% of the ceiling"},
                     "% of the ceiling measured in the same run", "% of ceiling");
  if (kind == "ladder") return ladder(results, lab);
  if (kind == "overlap") return overlap(results, lab, args.need("exercise"));
  throw Error(fmt::format("unknown chart kind '{}' (percent, ladder, overlap)", kind));
}

std::string results_table(const Results& r, int lab) {
  std::string t =
      "| exercise | stub ms | reference ms | ceiling ms | reference rate | % of ceiling | speedup |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& e : r.exercises(lab, "reference")) {
    const auto& ms = e.at("median_ms");
    // An exercise that is the stub itself (lab 04's stage 1 in newer runs) has no baseline: "-" for it and the
    // speedup, and the time graded as the reference's.
    const bool has_stub = ms.contains("baseline") && ms.at("baseline").is_number();
    const bool has_ref = ms.contains("reference") && ms.at("reference").is_number();
    const double ref = (has_ref ? ms.at("reference") : ms.at("student")).get<double>();
    const double stub = has_stub ? ms.at("baseline").get<double>() : 0;
    t += fmt::format("| {} | {} | {} | {} | {} | {}% | {} |\n", e.at("name").get<std::string>(),
                     has_stub ? format_number(stub) : "-", format_number(ref),
                     format_number(ms.at("ceiling").get<double>()), rate_text(e, e.at("rate")),
                     format_number(e.at("percent_of_ceiling").get<double>()),
                     has_stub ? format_number(stub / ref) + "x" : "-");
  }
  return t;
}

}  // namespace slides
