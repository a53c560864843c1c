#pragma once
/// @file repeatability.hpp
/// @brief The repeatability benchmark's verdict: each exercise's performance fraction f over repeated gradings of
/// the shipped baseline, the reference and the known-middle fixture (`grade all --impl IMPL --repeat N --output
/// FILE`, scripts/gpu-check.sh's `repeatability` phase), held against the goals, and the same benchmark on two GPU
/// kinds compared (`grade repeatability`).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace grader {

/// One exercise's f over the repeats of one implementation.
struct RepeatedFraction {
  int lab = 0;
  std::string exercise, impl;
  std::vector<double> fractions;  ///< f of each repeat whose performance was graded (status ok), in file order
  int not_graded = 0;             ///< repeats with any other status: f says nothing there
};

/// Every (lab, exercise, impl) worth performance points in `results` (grade's results files; several files' runs add
/// up), in the order first seen. Throws std::runtime_error naming what is missing when one is not a results file.
std::vector<RepeatedFraction> repeated_fractions(const std::vector<nlohmann::json>& results);

/// f's range over the repeats as a person reads it: "f 0.500 to 1.000 (spread 0.500) over 2 repeats", or "f never
/// graded", then ", N not graded" where some repeats were not.
std::string describe_fractions(const RepeatedFraction& r);

/// The goals, as fixed points of f: a grade that noise decides is not a grade.
inline constexpr double kBaselineFractionAtMost = 0.05;  ///< the baseline as the student, in every repeat
inline constexpr double kMiddleSpreadAtMost = 0.10;      ///< a middle's highest f less its lowest
inline constexpr double kKindsApartAtMost = 0.10;        ///< a middle's median f on one GPU kind against another's

/// One goal and how the repeats met it.
struct RepeatabilityGoal {
  int lab = 0;
  std::string exercise, impl;
  std::string goal;   ///< e.g. "f <= 0.05 in every repeat"
  std::string found;  ///< e.g. "f 0.000 to 0.027 over 10 repeats"
  bool met = false;
};

/// The goals of `these` (one GPU kind's benchmark): the baseline's f at most 0.05 in every repeat, the reference's 1
/// in every repeat, each middle's spread at most 0.10; every repeat graded (one that was not misses its goal); other
/// implementations have none. With `other` (the same benchmark on another GPU kind), also each middle's median
/// (harness::median) within 0.10 of the other kind's; a middle only one of them has misses that goal.
std::vector<RepeatabilityGoal> repeatability_goals(const std::vector<RepeatedFraction>& these,
                                                   const std::vector<RepeatedFraction>* other = nullptr);

}  // namespace grader
