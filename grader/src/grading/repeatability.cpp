#include "grader/repeatability.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include <harness/median.hpp>

namespace grader {
namespace {

using nlohmann::json;

// `j[key]`, which must be there and of the kind `is` accepts; `where` says whose it is in the error.
const json& field(const json& j, const char* key, bool (json::*is)() const noexcept, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !((*it).*is)()) throw std::runtime_error(fmt::format("{}: no {} of the right kind", where, key));
  return *it;
}

// Every repeat graded, and each f within [lowest, highest].
bool all_within(const RepeatedFraction& r, double lowest, double highest) {
  return r.not_graded == 0 && !r.fractions.empty() &&
         std::all_of(r.fractions.begin(), r.fractions.end(), [&](double f) { return f >= lowest && f <= highest; });
}

// Only rounding's slack: a goal is met by f itself, not by f as printed.
constexpr double kSlack = 1e-9;

}  // namespace

std::string describe_fractions(const RepeatedFraction& r) {
  const auto [low, high] = std::minmax_element(r.fractions.begin(), r.fractions.end());
  auto text = r.fractions.empty() ? std::string("f never graded")
                                  : fmt::format("f {:.3f} to {:.3f} (spread {:.3f}) over {} repeats", *low, *high,
                                                *high - *low, r.fractions.size());
  if (r.not_graded > 0) text += fmt::format(", {} not graded", r.not_graded);
  return text;
}

std::vector<RepeatedFraction> repeated_fractions(const std::vector<json>& results) {
  std::vector<RepeatedFraction> out;
  for (const json& file : results) {
    if (!file.is_object()) throw std::runtime_error("not a results file (not a JSON object)");
    for (const json& run : field(file, "runs", &json::is_array, "results file")) {
      const std::string impl = field(run, "impl", &json::is_string, "a run").get<std::string>();
      for (const json& lab : field(run, "labs", &json::is_array, "run of " + impl)) {
        const int number = field(lab, "lab", &json::is_number_integer, "a lab").get<int>();
        const auto where = fmt::format("lab{} ({})", number, impl);
        for (const json& x : field(lab, "exercises", &json::is_array, where)) {
          const auto name = field(x, "name", &json::is_string, where + " exercise").get<std::string>();
          const auto& max = field(x, "performance_max", &json::is_number, fmt::format("{} {}", where, name));
          if (!(max.get<double>() > 0)) continue;  // graded by its tests only: f is not a grade there
          auto it = std::find_if(out.begin(), out.end(), [&](const RepeatedFraction& r) {
            return r.lab == number && r.exercise == name && r.impl == impl;
          });
          if (it == out.end()) it = out.insert(out.end(), {number, name, impl, {}, 0});
          const auto status = x.find("status");
          const auto f = x.find("perf_fraction");
          if (status != x.end() && *status == "ok" && f != x.end() && f->is_number())
            it->fractions.push_back(f->get<double>());
          else
            ++it->not_graded;
        }
      }
    }
  }
  return out;
}

std::vector<RepeatabilityGoal> repeatability_goals(const std::vector<RepeatedFraction>& these,
                                                   const std::vector<RepeatedFraction>* other) {
  std::vector<RepeatabilityGoal> goals;
  const auto add = [&](const RepeatedFraction& r, std::string goal, std::string found, bool met) {
    goals.push_back({r.lab, r.exercise, r.impl, std::move(goal), std::move(found), met});
  };
  for (const auto& r : these) {
    if (r.impl == "baseline")
      add(r, fmt::format("f <= {:.2f} in every repeat", kBaselineFractionAtMost), describe_fractions(r),
          all_within(r, 0, kBaselineFractionAtMost));
    else if (r.impl == "reference")
      add(r, "f = 1 in every repeat", describe_fractions(r), all_within(r, 1 - kSlack, 1 + kSlack));
    else if (r.impl == "middle") {
      const auto [low, high] = std::minmax_element(r.fractions.begin(), r.fractions.end());
      add(r, fmt::format("spread of f <= {:.2f}", kMiddleSpreadAtMost), describe_fractions(r),
          r.not_graded == 0 && !r.fractions.empty() && *high - *low <= kMiddleSpreadAtMost + kSlack);
    }
  }
  if (!other) return goals;
  const auto goal = fmt::format("median f within {:.2f} of the other GPU kind's", kKindsApartAtMost);
  const auto find = [](const std::vector<RepeatedFraction>& in, const RepeatedFraction& r) {
    return std::find_if(in.begin(), in.end(), [&](const RepeatedFraction& o) {
      return o.lab == r.lab && o.exercise == r.exercise && o.impl == r.impl;
    });
  };
  for (const auto& r : these) {
    if (r.impl != "middle") continue;
    const auto there = find(*other, r);
    if (there == other->end()) {
      add(r, goal, "not in the other kind's results", false);
      continue;
    }
    const bool graded = !r.fractions.empty() && !there->fractions.empty();
    const double here_f = harness::median(r.fractions), there_f = harness::median(there->fractions);
    add(r, goal,
        graded ? fmt::format("median {:.3f} here, {:.3f} there ({:.3f} apart)", here_f, there_f,
                             std::abs(here_f - there_f))
               : "never graded on one of them",
        graded && std::abs(here_f - there_f) <= kKindsApartAtMost + kSlack);
  }
  for (const auto& o : *other)
    if (o.impl == "middle" && find(these, o) == these.end())
      add(o, goal, "only in the other kind's results", false);
  return goals;
}

}  // namespace grader
