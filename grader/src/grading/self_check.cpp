#include "grader/self_check.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace grader {
namespace {

constexpr double kTolerance = 1e-9;

std::string status_note(const ExerciseResult& x) {
  return fmt::format("status {}: {}", to_string(x.status), x.message);
}

Verdict reference_verdict(const ExerciseResult& x) {
  Verdict v;
  v.expectation = "full marks";
  const bool all_passed = x.tests_total > 0 && x.tests_passed == x.tests_total;
  if (x.status != Status::kOk || !all_passed) {
    v.detail = fmt::format("{}/{} tests, {}", x.tests_passed, x.tests_total, status_note(x));
  } else if (std::abs(x.score.correctness - x.correctness_max) > kTolerance) {
    v.detail = fmt::format("correctness {:.3f} of {:g}", x.score.correctness, x.correctness_max);
  } else if (x.performance_max == 0) {
    // Worth no performance points: timed for the report only, the student alone (timed_runs.cpp), so there is no
    // fraction to judge (lab 06 row_sums, timed with three samples, once read 0.84 against itself on an H200).
    v.passed = true;
    v.detail = fmt::format("{}/{} tests (no performance points: its time is not judged)", x.tests_passed,
                           x.tests_total);
  } else if (x.score.perf_fraction < kFullPerfFraction) {
    v.detail = fmt::format("performance fraction {:.3f} < {} ({})", x.score.perf_fraction, kFullPerfFraction,
                           x.message);
  } else {
    v.passed = true;
    v.detail = fmt::format("{}/{} tests, performance fraction {:.3f}", x.tests_passed, x.tests_total,
                           x.score.perf_fraction);
  }
  return v;
}

Verdict stub_verdict(const ExerciseResult& x, StubKind stub) {
  Verdict v;
  v.expectation = fmt::format("stub {}", to_string(stub));
  if (stub == StubKind::kIncorrect) {
    v.passed = x.tests_total > 0 && x.tests_passed < x.tests_total;
    v.detail = v.passed ? fmt::format("fails {} of {} tests as intended", x.tests_total - x.tests_passed,
                                      x.tests_total)
                        : fmt::format("must fail at least one test: {}/{} tests, {}", x.tests_passed, x.tests_total,
                                      status_note(x));
    return v;
  }
  const double limit = kSlowStubShare * x.performance_max;
  if (x.status != Status::kOk) {
    v.detail = fmt::format("must pass every test and time correctly: {}/{} tests, {}", x.tests_passed, x.tests_total,
                           status_note(x));
  } else if (x.score.performance > limit + kTolerance) {
    v.detail = fmt::format("stub too fast: earns {:.2f} of {:g} performance points (limit {:g}); {}",
                           x.score.performance, x.performance_max, limit, x.message);
  } else {
    v.passed = true;
    v.detail = fmt::format("passes {}/{} tests, earns {:.2f} of {:g} performance points (limit {:g})", x.tests_passed,
                           x.tests_total, x.score.performance, x.performance_max, limit);
  }
  return v;
}

}  // namespace

std::vector<Verdict> self_check_verdicts(const LabResult& result, const Manifest& manifest, std::string_view impl,
                                         int repeat) {
  std::vector<Verdict> verdicts;
  for (const auto& x : result.exercises) {
    const auto spec = std::find_if(manifest.exercises.begin(), manifest.exercises.end(),
                                   [&](const ExerciseSpec& s) { return s.name == x.name; });
    const StubKind stub = spec != manifest.exercises.end() ? spec->stub : StubKind::kSlow;
    Verdict v = impl == "reference" ? reference_verdict(x) : stub_verdict(x, stub);
    v.lab = result.number;
    v.repeat = repeat;
    v.exercise = x.name;
    v.impl = std::string(impl);
    verdicts.push_back(v);
    // grade --self-check --concepts: the reference must show the idea it teaches, whatever points the check is
    // worth; a check that could not be measured (no tool) is no verdict.
    if (impl != "reference") continue;
    for (const auto& c : x.concepts) {
      if (!c.value) continue;
      Verdict concept_verdict = v;
      concept_verdict.expectation = fmt::format("concept '{}' {}", c.name, c.expected);
      concept_verdict.passed = c.ok;
      concept_verdict.detail = fmt::format("{:g}{}{}", *c.value, c.unit.empty() ? "" : " ", c.unit);
      verdicts.push_back(std::move(concept_verdict));
    }
  }
  return verdicts;
}

std::string format_verdict(const Verdict& v) {
  const auto what = v.exercise.empty() ? fmt::format("lab{}", v.lab)
                                       : fmt::format("lab{} {} ({}, {})", v.lab, v.exercise, v.impl, v.expectation);
  return fmt::format("self-check {}: {} {}", what, v.passed ? "PASS" : "FAIL", v.detail);
}

nlohmann::json self_check_json(const std::vector<Verdict>& verdicts) {
  nlohmann::json list = nlohmann::json::array();
  bool passed = true;
  for (const auto& v : verdicts) {
    passed = passed && v.passed;
    list.push_back({{"lab", v.lab},
                    {"repeat", v.repeat},
                    {"exercise", v.exercise},
                    {"impl", v.impl},
                    {"expectation", v.expectation},
                    {"passed", v.passed},
                    {"detail", v.detail}});
  }
  return {{"passed", passed}, {"verdicts", std::move(list)}};
}

}  // namespace grader
