#pragma once
/// @file self_check.hpp
/// @brief `grade --self-check`: the reference must earn full marks and each shipped stub must behave as its
/// manifest says ("slow": passes every test, earns at most 10% of the performance points; "incorrect": fails a test).

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/lab_run.hpp"
#include "grader/manifest.hpp"

namespace grader {

/// The outcome of one expectation about one exercise (or about a whole lab, when `exercise` is empty).
struct Verdict {
  int lab = 0;
  int repeat = 1;
  std::string exercise;     ///< empty for a lab-level problem (broken manifest)
  std::string impl;         ///< "reference" or "student"
  std::string expectation;  ///< e.g. "full marks", "stub slow", "stub incorrect"
  bool passed = false;
  std::string detail;       ///< one line: what was measured
};

/// A reference counts as full marks when its performance fraction is at least this (timing noise between two runs
/// of the same code must not fail the self-check).
inline constexpr double kFullPerfFraction = 0.99;
/// A "slow" stub may earn at most this share of the performance points.
inline constexpr double kSlowStubShare = 0.10;

/// The verdicts for every exercise of `result`: `impl` "reference" is held to full marks, any other impl to the
/// manifest's stub expectation.
std::vector<Verdict> self_check_verdicts(const LabResult& result, const Manifest& manifest, std::string_view impl,
                                         int repeat = 1);

/// One console line: "self-check lab1 copy (student, stub slow): PASS ...".
std::string format_verdict(const Verdict& verdict);

/// {"passed": bool, "verdicts": [{"lab", "repeat", "exercise", "impl", "expectation", "passed", "detail"}, ...]}.
nlohmann::json self_check_json(const std::vector<Verdict>& verdicts);

}  // namespace grader
