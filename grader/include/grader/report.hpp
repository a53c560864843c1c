#pragma once
/// @file report.hpp
/// @brief The grader's output: a console table per lab and the JSON results file (schema 1).

#include <chrono>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/lab_run.hpp"

namespace grader {

/// One pass over the selected labs with one implementation in the student slot.
struct RunRecord {
  std::string impl = "student";
  int repeat = 1;  ///< 1-based, for `--repeat N`
  std::vector<LabResult> labs;
};

/// Everything the results file holds.
struct Report {
  std::string date;                        ///< ISO-8601 UTC
  std::string commit = "unknown";
  /// The fingerprints of the sources graded (grader/sources_hash.hpp: "labN", "harness"); empty when unknown.
  std::map<std::string, std::string> sources;
  nlohmann::json machine;                  ///< `info` of the first lab binary that answered, or null
  std::optional<double> check_timeout_s;   ///< command-line overrides, null when the manifests decide
  std::optional<double> time_timeout_s;
  std::vector<RunRecord> runs;
  nlohmann::json repeat_spread;            ///< null unless `--repeat` > 1
  nlohmann::json self_check;               ///< null unless `--self-check`
};

/// One exercise as stored in the results file; timing fields are null when there was no timed run. `seeds`,
/// `timed_seed` and `timed_shape` record what the lab binary was asked for (and timed), to reproduce the grade.
nlohmann::json to_json(const ExerciseResult& exercise);

/// One lab as stored in the results file.
nlohmann::json to_json(const LabResult& lab);

/// The whole results file: {"schema": 1, "date", "commit", "machine", "grader", "runs", ...}.
nlohmann::json to_json(const Report& report);

/// The console table of one lab: a heading, a row per exercise, the lab total, a line per non-ok exercise.
/// `note` follows the title in the heading, e.g. "(impl: student)".
std::string format_lab_table(const LabResult& lab, std::string_view note);

/// sum(weight * score / max_score) / sum(weight), in percent, over labs with a positive max score and weight.
double weighted_percent(const std::vector<LabResult>& labs);

/// How much one lab's score moved between repeats of the same implementation.
struct Spread {
  int lab = 0;
  std::string impl;
  double lowest = 0, highest = 0;  ///< lowest and highest score over the repeats
  double max_score = 0;
  double percent = 0;              ///< (highest - lowest) / max_score, in percent
};

/// The spread of every (lab, impl) pair over the runs, in the order first seen.
std::vector<Spread> repeat_spreads(const std::vector<RunRecord>& runs);

/// `time` in ISO-8601 UTC, e.g. "2026-01-31T12:00:00Z".
std::string iso8601_utc(std::chrono::system_clock::time_point time);

/// A duration in ms with about four significant digits: 17.52, 0.551, 1234.
std::string format_ms(double ms);

}  // namespace grader
