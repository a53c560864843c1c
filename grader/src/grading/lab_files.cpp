// The lab binary's results files read and checked against the plan (grader/lab_files.hpp).

#include "grader/lab_files.hpp"

#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <harness/result_keys.hpp>

namespace grader {
namespace {

using nlohmann::json;
namespace keys = harness::keys;

// A JSON value as message text: strings without quotes, anything else as JSON.
std::string text_of(const json& object, const char* key) {
  if (!object.contains(key)) return "?";
  const json& v = object.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::optional<RunnerTiming> parse_runner(const json& runners, const char* name, std::string& problem) {
  if (!runners.is_object() || !runners.contains(name) || !runners.at(name).is_object()) {
    problem = fmt::format("runners.{} is missing", name);
    return std::nullopt;
  }
  const json& r = runners.at(name);
  const auto number = [&](const char* key) -> std::optional<double> {
    if (!r.contains(key) || !r.at(key).is_number()) return std::nullopt;
    const double x = r.at(key).get<double>();
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
  };
  const auto median = number(keys::kMedianMs);
  if (!median || *median <= 0) {
    problem = fmt::format("runners.{}.median_ms is missing or not a positive number", name);
    return std::nullopt;
  }
  return RunnerTiming{*median,          number(keys::kNoisePct),   number(keys::kRate),
                      number(keys::kEventMedianMs), number(keys::kHostGapMs), number(keys::kSamples)};
}

// Calls on_line(number, text, value) for each non-blank line of a JSON-lines stream, in order, until it returns false.
// A last line cut off mid-write (no newline, not JSON) ends the walk unseen: a dying process leaves one. `value` is
// discarded where a whole line is not JSON.
template <class OnLine>
void for_each_json_line(std::string_view text, OnLine&& on_line) {
  std::size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    const auto newline = text.find('\n', pos);
    const bool complete = newline != std::string_view::npos;
    const auto line = text.substr(pos, complete ? newline - pos : std::string_view::npos);
    pos = complete ? newline + 1 : text.size();
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto j = json::parse(line, nullptr, false);
    if (!complete && (j.is_discarded() || !j.is_object())) return;
    if (!on_line(line_no, line, j)) return;
  }
}

}  // namespace

std::string join_seeds(const std::vector<std::uint64_t>& seeds) {
  std::string text;
  for (auto seed : seeds) text += fmt::format("{}{}", text.empty() ? "" : ",", seed);
  return text;
}

std::string clip(std::string_view text, std::size_t n) {
  return text.size() <= n ? std::string(text) : std::string(text.substr(0, n)) + "...";
}

CheckFile parse_check_results(std::string_view text, std::string_view exercise) {
  CheckFile f;
  for_each_json_line(text, [&](int line_no, std::string_view line, const json& j) {
    if (j.is_discarded() || !j.is_object()) {
      f.error = fmt::format("line {} is not a JSON object: {}", line_no, clip(line, 60));
      return false;
    }
    const auto bad = [&](std::string_view problem) {
      f.error = fmt::format("line {}: {}", line_no, problem);
      return false;
    };
    if (j.contains(keys::kPlan)) {
      const json& plan = j.at(keys::kPlan);
      if (!plan.is_object() || !plan.contains(keys::kCases) || !plan.at(keys::kCases).is_number_integer() ||
          plan.at(keys::kCases).get<long long>() < 0 || plan.at(keys::kCases).get<long long>() > 1'000'000'000)
        return bad("plan without a valid 'cases' count");
      if (plan.contains(keys::kExercise) && text_of(plan, keys::kExercise) != exercise)
        return bad(fmt::format("plan is for exercise '{}', not '{}'", text_of(plan, keys::kExercise), exercise));
      if (f.plan_impl.empty() && plan.contains(keys::kImpl)) f.plan_impl = text_of(plan, keys::kImpl);
      ++f.plans;
      f.has_plan = true;
      f.total = static_cast<int>(std::min<long long>(f.total + plan.at(keys::kCases).get<long long>(), 1'000'000'000));
      return true;
    }
    if (!j.contains(keys::kOk) || !j.at(keys::kOk).is_boolean()) return bad("result without a true/false 'ok'");
    if (j.contains(keys::kExercise) && text_of(j, keys::kExercise) != exercise)
      return bad(fmt::format("result for exercise '{}', not '{}'", text_of(j, keys::kExercise), exercise));
    if (!j.contains(keys::kShape) || !j.contains(keys::kSeed) || !j.at(keys::kSeed).is_number_unsigned())
      return bad("result without a shape and a non-negative integer seed");
    f.seeds_by_shape[text_of(j, keys::kShape)].push_back(j.at(keys::kSeed).get<std::uint64_t>());
    ++f.cases;
    if (j.at(keys::kOk).get<bool>()) {
      ++f.passed;
    } else {
      if (f.first_failure.empty())
        f.first_failure = fmt::format("shape {} seed {}: {}", text_of(j, keys::kShape), text_of(j, keys::kSeed),
                                      clip(j.contains(keys::kMessage) ? text_of(j, keys::kMessage) : "", 160));
      if (f.hint.empty() && j.contains(keys::kHint) && j.at(keys::kHint).is_string())
        f.hint = clip(j.at(keys::kHint).get<std::string>(), 400);
    }
    return true;
  });
  return f;
}

std::optional<std::map<std::string, std::string>> split_check_results(std::string_view text) {
  std::map<std::string, std::string> parts;
  bool whole = true;
  for_each_json_line(text, [&](int, std::string_view line, const json& j) {
    const bool plan = j.is_object() && j.contains(keys::kPlan) && j.at(keys::kPlan).is_object();
    const json* named = plan ? &j.at(keys::kPlan) : &j;
    whole = j.is_object() && named->contains(keys::kExercise) && named->at(keys::kExercise).is_string();
    if (!whole) return false;
    auto& part = parts[named->at(keys::kExercise).get<std::string>()];
    part.append(line);
    part.push_back('\n');
    return true;
  });
  if (!whole) return std::nullopt;
  return parts;
}

std::pair<std::string, std::string> split_checks_from_times(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto newline = text.find('\n', pos);
    if (newline == std::string_view::npos) break;  // a last line cut off is not a timed result
    const auto j = json::parse(text.substr(pos, newline - pos), nullptr, false);
    if (j.is_object() && j.contains(keys::kCorrect)) break;
    pos = newline + 1;
  }
  if (pos >= text.size() || text.find('\n', pos) == std::string_view::npos) return {std::string(text), ""};
  return {std::string(text.substr(0, pos)), std::string(text.substr(pos))};
}

std::vector<std::uint64_t> parse_seeds(std::string_view text) {
  std::vector<std::uint64_t> seeds;
  for (std::size_t pos = 0; pos <= text.size();) {
    const auto comma = std::min(text.find(',', pos), text.size());
    auto item = text.substr(pos, comma - pos);
    item.remove_prefix(std::min(item.find_first_not_of(' '), item.size()));
    item = item.substr(0, item.find_last_not_of(' ') + 1);
    std::uint64_t seed = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), seed);
    if (item.empty() || error != std::errc() || end != item.data() + item.size())
      throw std::invalid_argument(
          fmt::format("--seeds {}: '{}' is not a seed (non-negative integers, comma-separated)", text, item));
    if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end()) seeds.push_back(seed);
    pos = comma + 1;
  }
  return seeds;
}

std::string contradiction(const CheckFile& f, const CheckPlan& plan, bool finished) {
  const auto asked = join_seeds(plan.seeds);
  if (f.plans > 1) return fmt::format("{} plan lines for one exercise", f.plans);
  if (!f.plan_impl.empty() && f.plan_impl != plan.impl)
    return fmt::format("the plan is for implementation '{}', not '{}'", f.plan_impl, plan.impl);
  const auto per_seed = static_cast<int>(plan.seeds.size());
  if (f.has_plan && per_seed > 0 && f.total % per_seed != 0)
    return fmt::format("a plan of {} cases cannot be every shape at each of the {} seeds asked for ({})", f.total,
                       per_seed, asked);
  for (const auto& [shape, seeds] : f.seeds_by_shape) {
    for (auto seed : seeds)
      if (std::find(plan.seeds.begin(), plan.seeds.end(), seed) == plan.seeds.end())
        return fmt::format("a result at seed {}, which was not asked for (seeds {})", seed, asked);
    if (std::set<std::uint64_t>(seeds.begin(), seeds.end()).size() < seeds.size())
      return fmt::format("two results for shape {} at the same seed", shape);
    if (finished && f.cases == f.total && seeds.size() != plan.seeds.size())
      return fmt::format("shape {} was checked at {} of the {} seeds asked for ({})", shape, seeds.size(), per_seed,
                         asked);
  }
  return "";
}

std::string contradiction(const TimeFile& f, const TimePlan& plan) {
  const auto named = [](const std::string& text) { return text.empty() ? std::string("none") : "'" + text + "'"; };
  if (f.exercise != plan.exercise)
    return fmt::format("the result names exercise {}, not '{}'", named(f.exercise), plan.exercise);
  if (f.impl != plan.impl) return fmt::format("the result names implementation {}, not '{}'", named(f.impl), plan.impl);
  if (f.seed != plan.seed)
    return fmt::format("the result names seed {}, not {}", f.seed ? std::to_string(*f.seed) : "none", plan.seed);
  if (plan.salt_seed && f.salt_seed != plan.salt_seed)
    return fmt::format("the result names salt seed {}, not {}", f.salt_seed ? std::to_string(*f.salt_seed) : "none",
                       *plan.salt_seed);
  if (f.shape.empty()) return "the result names no shape";
  return "";
}

TimeFile parse_time_results(std::string_view text, bool student_only) {
  TimeFile f;
  const auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    f.error = fmt::format("not a JSON object: {}", clip(text, 60));
    return f;
  }
  if (j.contains(keys::kCorrect)) {
    if (!j.at(keys::kCorrect).is_boolean()) {
      f.error = "'correct' is not true or false";
      return f;
    }
    f.correct = j.at(keys::kCorrect).get<bool>();
  }
  if (j.contains(keys::kMessage) && j.at(keys::kMessage).is_string())
    f.message = j.at(keys::kMessage).get<std::string>();
  for (auto [key, field] : {std::pair{keys::kExercise, &f.exercise}, {keys::kImpl, &f.impl}, {keys::kShape, &f.shape}})
    if (j.contains(key) && j.at(key).is_string()) *field = j.at(key).get<std::string>();
  if (j.contains(keys::kSeed) && j.at(keys::kSeed).is_number_unsigned())
    f.seed = j.at(keys::kSeed).get<std::uint64_t>();
  if (j.contains(keys::kSaltSeed) && j.at(keys::kSaltSeed).is_number_unsigned())
    f.salt_seed = j.at(keys::kSaltSeed).get<std::uint64_t>();

  const json runners = j.contains(keys::kRunners) ? j.at(keys::kRunners) : json::object();
  Timing t;
  auto student = parse_runner(runners, "student", f.timing_problem);
  if (!student) return f;
  t.student = *student;
  std::string ignored;
  for (auto [name, into] : {std::pair{"reference", &t.reference}, {"baseline", &t.baseline}}) {
    if (student_only && !runners.contains(name)) continue;
    *into = parse_runner(runners, name, f.timing_problem);
    if (!*into) return f;
  }
  t.ceiling = parse_runner(runners, "ceiling", ignored);
  if (t.ceiling && runners.at("ceiling").contains(keys::kWhat))
    t.ceiling_what = text_of(runners.at("ceiling"), keys::kWhat);
  if (j.contains(keys::kUnit) && j.at(keys::kUnit).is_string()) t.unit = j.at(keys::kUnit).get<std::string>();
  if (j.contains(keys::kPercentOfCeiling) && j.at(keys::kPercentOfCeiling).is_number())
    t.percent_of_ceiling = j.at(keys::kPercentOfCeiling).get<double>();
  for (const auto& [name, value] : runners.items()) {
    if (name == "student" || name == "reference" || name == "baseline" || name == "ceiling") continue;
    if (auto peer = parse_runner(runners, name.c_str(), ignored)) t.peers.emplace(name, *peer);
  }
  for (const auto& [key, into] :
       {std::pair{keys::kMetrics, &t.metrics}, std::pair{keys::kMetricErrors, &t.metric_errors}})
    if (j.contains(key) && j.at(key).is_object())
      for (const auto& [name, value] : j.at(key).items())
        if (value.is_number()) into->emplace(name, value.get<double>());
  if (j.contains(keys::kPhasesS) && j.at(keys::kPhasesS).is_object())
    for (const auto& [name, value] : j.at(keys::kPhasesS).items())
      if (value.is_number()) t.phases_s.emplace(name, value.get<double>());
  f.timing = std::move(t);
  return f;
}

}  // namespace grader
