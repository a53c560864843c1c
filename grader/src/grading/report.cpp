#include "grader/report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include <harness/result_keys.hpp>

namespace grader {
namespace {

using nlohmann::json;
namespace keys = harness::keys;

template <typename T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// Display width of UTF-8 text ("±" is one column, two bytes): fmt's own padding counts differently across versions.
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad(std::string text, std::size_t width) {
  const auto used = columns(text);
  if (used < width) text.append(width - used, ' ');
  return text;
}

std::string timing_cell(const RunnerTiming& r) {
  return r.noise_pct ? fmt::format("{} ±{:.1f}%", format_ms(r.median_ms), *r.noise_pct) : format_ms(r.median_ms);
}
// "-" for a runner that was not timed (the reference and baseline of an exercise worth no performance points).
std::string timing_cell(const std::optional<RunnerTiming>& r) { return r ? timing_cell(*r) : "-"; }

// A concept check's value as the student reads it: "31.9 B/sector", "12 SHFL", "0.778".
std::string concept_value(const ConceptResult& c) {
  if (!c.value) return "-";
  const double v = *c.value;
  const auto number = std::abs(v) >= 100 || v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
  return c.unit.empty() ? number : number + " " + c.unit;
}

// The table's cell for an exercise's concept checks: "31.9 B/sector ✓", several joined by ", ".
std::string concept_cell(const ExerciseResult& x) {
  std::string cell;
  for (const auto& c : x.concepts) {
    if (!cell.empty()) cell += ", ";
    cell += c.value ? concept_value(c) + (c.ok ? " ✓" : " ✗") : "skipped";
  }
  return cell.empty() ? "-" : cell;
}

std::string rate_text(double rate) { return rate >= 100 ? fmt::format("{:.1f}", rate) : fmt::format("{:.3g}", rate); }

}  // namespace

std::string format_ms(double ms) {
  if (ms >= 1000) return fmt::format("{:.0f}", ms);
  if (ms >= 100) return fmt::format("{:.1f}", ms);
  if (ms >= 10) return fmt::format("{:.2f}", ms);
  if (ms >= 1) return fmt::format("{:.3f}", ms);
  return fmt::format("{:.3g}", ms);
}

std::string iso8601_utc(std::chrono::system_clock::time_point time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// grade --concepts: each check with its value and verdict, or why it was skipped.
static json concepts_json(const std::vector<ConceptResult>& concepts) {
  json list = json::array();
  for (const auto& c : concepts) {
    json j = {{"name", c.name},         {"tool", std::string(to_string(c.tool))},
              {"value", or_null(c.value)}, {"unit", c.unit},
              {"expected", c.expected}, {"ok", c.value ? json(c.ok) : json(nullptr)},
              {"points", c.points},     {"points_max", c.points_max},
              {"why", c.why}};
    if (!c.skipped.empty()) j["skipped"] = c.skipped;
    list.push_back(std::move(j));
  }
  return list;
}

json to_json(const ExerciseResult& x) {
  json j = {{"name", x.name},
            {"status", std::string(to_string(x.status))},
            {"message", x.message},
            {"hint", x.hint.empty() ? json(nullptr) : json(x.hint)},
            {"score", x.score.total},
            {"max_score", x.max_score()},
            {"correctness_points", x.score.correctness},
            {"correctness_max", x.correctness_max},
            {"performance_points", x.score.performance},
            {"performance_max", x.performance_max},
            {"perf_fraction", x.score.perf_fraction},
            {"perf_fraction_sd", x.score.perf_fraction_sd},  // how far this run's noise could move it
            {"window", x.score.window},                      // t_b / t_r of this run: the scale's width
            {"host_charge", x.score.host_charge},  // how far the referee's clock, not the events, moved f
            // Why this run could not grade performance (status invalid-run), or null: formula.cpp.
            {"performance_ungraded", x.score.ungraded.empty() ? json(nullptr) : json(x.score.ungraded)},
            {"timed_runs", x.timed_runs},  // more than 1 where the grader timed again (f unresolved or charged)
            {"tests_passed", x.tests_passed},
            {"tests_total", x.tests_total},
            {"wall_s", x.wall_s},
            {"check_s", x.check_s},
            {"time_s", x.time_s},
            {"sanitize_s", x.sanitize_s},
            // What the runs were asked for, so that the grade can be reproduced: --seeds, --timed-seed and
            // --timed-salt-seed.
            {"seeds", x.seeds},
            {"timed_seed", or_null(x.timed_seed)},
            {"timed_salt_seed", or_null(x.timed_salt_seed)},
            {"timed_shape", x.timed_shape.empty() ? json(nullptr) : json(x.timed_shape)},
            {"sanitized", x.sanitized},  // grade --sanitize: what each compute-sanitizer tool said
            {"concepts", concepts_json(x.concepts)}};  // grade --concepts: each check's value, or why it was skipped
  const auto& t = x.timing;
  const auto runner = [&](auto field) -> json {
    if (!t) return {{"student", nullptr}, {"reference", nullptr}, {"baseline", nullptr}, {"ceiling", nullptr}};
    return {{"student", field(t->student)},
            {"reference", t->reference ? field(*t->reference) : json(nullptr)},
            {"baseline", t->baseline ? field(*t->baseline) : json(nullptr)},
            {"ceiling", t->ceiling ? field(*t->ceiling) : json(nullptr)}};
  };
  j[keys::kUnit] = t ? json(t->unit) : json(nullptr);
  j[keys::kMedianMs] = runner([](const RunnerTiming& r) { return json(r.median_ms); });
  j[keys::kNoisePct] = runner([](const RunnerTiming& r) { return or_null(r.noise_pct); });
  j[keys::kEventMedianMs] = runner([](const RunnerTiming& r) { return or_null(r.event_median_ms); });
  j[keys::kHostGapMs] = runner([](const RunnerTiming& r) { return or_null(r.host_gap_ms); });
  j[keys::kRate] = t ? or_null(t->student.rate) : json(nullptr);
  j["ceiling_rate"] = t && t->ceiling ? or_null(t->ceiling->rate) : json(nullptr);
  j["ceiling_what"] = t && t->ceiling ? json(t->ceiling_what) : json(nullptr);
  j[keys::kPercentOfCeiling] = t ? or_null(t->percent_of_ceiling) : json(nullptr);
  // What the sanity gate on the reference compared with the manifest's standing (status invalid-run).
  j["reference_percent_of_ceiling"] = t ? or_null(reference_percent_of_ceiling(*t)) : json(nullptr);
  json peers = json::object();
  if (t)
    for (const auto& [name, p] : t->peers)
      peers[name] = {{keys::kMedianMs, p.median_ms}, {keys::kRate, or_null(p.rate)}};
  j["peers"] = peers;
  j[keys::kMetrics] = t ? json(t->metrics) : json::object();
  j[keys::kMetricErrors] = t ? json(t->metric_errors) : json::object();
  j[keys::kPhasesS] = t ? json(t->phases_s) : json::object();
  return j;
}

json to_json(const LabResult& lab) {
  json exercises = json::array();
  for (const auto& x : lab.exercises) exercises.push_back(to_json(x));
  return {{"lab", lab.number},
          {"id", lab.id},
          {"title", lab.title},
          {"weight", lab.weight},
          {"built", lab.built},
          {"message", lab.message},
          {"check_timeout_s", lab.check_timeout_s},
          {"time_timeout_s", lab.time_timeout_s},
          {"wall_s", lab.wall_s},
          {"sanitizer_wait_s", lab.sanitizer_wait_s},
          {"score", lab.score()},
          {"max_score", lab.max_score()},
          {"exercises", std::move(exercises)}};
}

json to_json(const Report& report) {
  json runs = json::array();
  for (const auto& run : report.runs) {
    json labs = json::array();
    for (const auto& lab : run.labs) labs.push_back(to_json(lab));
    runs.push_back({{"impl", run.impl}, {"repeat", run.repeat}, {"labs", std::move(labs)}});
  }
  json j = {{"schema", 1},
            {"date", report.date},
            {"commit", report.commit},
            {"sources", report.sources},  // what each lab's numbers measured: the sheets' test compares
            {"machine", report.machine},
            {"grader", {{"check_timeout_s", or_null(report.check_timeout_s)},
                        {"time_timeout_s", or_null(report.time_timeout_s)}}},
            {"runs", std::move(runs)}};
  if (!report.repeat_spread.is_null()) j["repeat_spread"] = report.repeat_spread;
  if (!report.self_check.is_null()) j["self_check"] = report.self_check;
  return j;
}

std::string format_lab_table(const LabResult& lab, std::string_view note) {
  // One unit for the whole column when the exercises agree; otherwise each cell names its own.
  std::string unit;
  bool mixed = false;
  for (const auto& x : lab.exercises) {
    if (!x.timing) continue;
    if (unit.empty()) unit = x.timing->unit;
    mixed = mixed || x.timing->unit != unit;
  }
  const std::string rate_heading = mixed || unit.empty() ? "rate" : unit;

  const bool has_concepts = std::any_of(lab.exercises.begin(), lab.exercises.end(),
                                    [](const ExerciseResult& x) { return !x.concepts.empty(); });
  std::size_t name_width = 8;
  for (const auto& x : lab.exercises) name_width = std::max(name_width, columns(x.name));
  name_width += 2;
  const auto row = [&](std::string name, std::string tests, std::string s, std::string r, std::string b,
                       std::string rate, std::string ceil, std::string points, std::string concepts_text = "") {
    return pad(std::move(name), name_width) + pad(std::move(tests), 9) + pad(std::move(s), 16) +
           pad(std::move(r), 16) + pad(std::move(b), 16) + pad(std::move(rate), mixed ? 17 : 10) +
           pad(std::move(ceil), 8) + (has_concepts ? pad(std::move(points), 12) + concepts_text : points) + "\n";
  };

  std::string out = fmt::format("lab{} {}   {}\n", lab.number, lab.title, note);
  out += row("exercise", "tests", "student ms", "reference ms", "baseline ms", rate_heading, "% ceil", "points",
             "concept");
  for (const auto& x : lab.exercises) {
    const auto& t = x.timing;
    std::string rate = "-", ceil = "-";
    if (t && t->student.rate) rate = rate_text(*t->student.rate) + (mixed ? " " + t->unit : "");
    if (t && t->percent_of_ceiling) ceil = fmt::format("{:.1f}%", *t->percent_of_ceiling);
    out += row(x.name, x.status == Status::kNoBinary ? "-" : fmt::format("{}/{}", x.tests_passed, x.tests_total),
               t ? timing_cell(t->student) : "-", t ? timing_cell(t->reference) : "-",
               t ? timing_cell(t->baseline) : "-", rate, ceil,
               fmt::format("{:.1f}/{:g}", x.score.total, x.max_score()), concept_cell(x));
  }
  const double max = lab.max_score();
  out += pad("total", name_width + 9 + 16 * 3 + (mixed ? 17 : 10) + 8) +
         fmt::format("{:.1f}/{:g} ({:.1f}%)\n", lab.score(), max, max > 0 ? 100 * lab.score() / max : 0.0);
  if (!lab.built) {
    out += fmt::format("  {}\n", lab.message);
    return out;
  }
  for (const auto& x : lab.exercises) {
    if (x.status != Status::kOk) out += fmt::format("  {}: {}: {}\n", x.name, to_string(x.status), x.message);
    if (x.status != Status::kOk && !x.hint.empty()) out += fmt::format("    {}\n", x.hint);
  }
  for (const auto& x : lab.exercises) {  // each concept check in words: what it says about the kernel
    for (const auto& c : x.concepts) {
      if (c.value)
        out += fmt::format("  {}: {}: {} {} (expected {}{}): {}\n", x.name, c.name, concept_value(c),
                           c.ok ? "✓" : "✗", c.expected, c.unit.empty() ? "" : " " + c.unit, c.why);
      else
        out += fmt::format("  {}: {}: not measured ({})\n", x.name, c.name, c.skipped);
    }
  }
  for (const auto& x : lab.exercises) {  // what else was timed beside it, and the lab's own figures
    if (!x.timing || (x.timing->peers.empty() && x.timing->metrics.empty())) continue;
    std::string line = fmt::format("  {}:", x.name);
    for (const auto& [name, p] : x.timing->peers) line += fmt::format(" {} {} ms;", name, format_ms(p.median_ms));
    for (const auto& [name, v] : x.timing->metrics) line += fmt::format(" {} {:.3g};", name, v);
    line.pop_back();
    out += line + "\n";
  }
  if (lab.wall_s > 0) {  // what grading cost: the class-scale budget is seconds per lab
    double check = 0, time = 0, sanitize = 0;
    for (const auto& x : lab.exercises) {
      check += x.check_s;
      time += x.time_s;
      sanitize += x.sanitize_s;
    }
    // The checks and the sanitizer runs go at once (lab_run.cpp), so their seconds add up to more than the wall time
    // they took.
    out += fmt::format("  graded in {:.1f} s (time runs {:.1f} s; checks, run at once, {:.1f} s added up{})\n",
                       lab.wall_s, time, check,
                       sanitize > 0 ? fmt::format("; compute-sanitizer {:.1f} s added up", sanitize) : "");
  }
  return out;
}

double weighted_percent(const std::vector<LabResult>& labs) {
  double sum = 0, weights = 0;
  for (const auto& lab : labs) {
    if (lab.max_score() <= 0 || lab.weight <= 0) continue;
    sum += lab.weight * lab.score() / lab.max_score();
    weights += lab.weight;
  }
  return weights > 0 ? 100 * sum / weights : 0;
}

std::vector<Spread> repeat_spreads(const std::vector<RunRecord>& runs) {
  std::vector<Spread> spreads;
  for (const auto& run : runs) {
    for (const auto& lab : run.labs) {
      auto it = std::find_if(spreads.begin(), spreads.end(),
                             [&](const Spread& s) { return s.lab == lab.number && s.impl == run.impl; });
      if (it == spreads.end()) {
        spreads.push_back({lab.number, run.impl, lab.score(), lab.score(), lab.max_score(), 0});
        continue;
      }
      it->lowest = std::min(it->lowest, lab.score());
      it->highest = std::max(it->highest, lab.score());
      it->percent = it->max_score > 0 ? 100 * (it->highest - it->lowest) / it->max_score : 0;
    }
  }
  return spreads;
}

}  // namespace grader
