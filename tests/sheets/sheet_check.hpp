// sheet_check: keeps the exercise sheets (labs/NN_name/README.md) honest about what was measured.
//
// A measured number in a sheet carries a marker that names where it comes from, in results/:
//
//   <!-- measured: h200.json runs[impl=reference].labs[lab=1].exercises[name=scale].median_ms.reference -->0.550 ms
//   <!-- measured: h200.json <path> / <path> -->6.2x          a ratio of two values of that file
//   <!-- measured: h200.json <path> * 0.001 -->31.5 TFLOP/s   a value times a constant (a unit change)
//   <!-- measured: h200-lab06-bank-conflicts.txt -->65,951,034   a text file: the number as the file prints it
//   <!-- measured on older sources: h200.json <path> -->1.98 ms   a number of code the sheet says was changed since
//
// A path walks the JSON: `.key`, `["key"]` (any key), `[N]` (an array index) and `[key=value]` (the one array element
// whose `key` is `value`; none or several is an error). The number right after the marker must equal the value rounded to the digits
// printed. Numbers that were not measured (napkin math, a vendor's figures) are marked too: `<!-- napkin -->` makes
// the rest of its paragraph (or up to `<!-- /napkin -->`) exempt. Everything else that looks like a measurement is a finding: a number with a unit of time or rate, and, in a
// paragraph that speaks of measuring (or of anchors), a decimal, a percentage or a ratio. So is a file a sheet cites
// (in backticks, as a link, or as results/...) that is not in the repository.
//
// A value of a `grade` results file must come from a run that recorded the fingerprints of its lab's sources (the lab
// the path's `labs[lab=N]` names, else the sheet's), and they must be the tree's: the number measured the code that
// ships. A sentence about code the course has since changed (what a fix saved) cites that older run with `measured on
// older sources:`, whose value is checked and whose sources are not.
//
// A number not measured yet is a placeholder that names where it will come from, with no number after it:
//
//   <!-- to measure: h100.json runs[impl=reference].labs[lab=0].exercises[name=ilp].median_ms.reference -->(not yet)
//
// It passes while results/ does not hold that value, and is a finding once it does: then print the number with a
// measured marker. A number typed after a placeholder is a finding too.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sheets {

/// One problem found in a sheet: its 1-based line and what is wrong.
struct Finding {
  int line = 0;
  std::string what;
};

/// Where the sheet's files are: the repository root (citations), results/ (markers' files).
struct Context {
  std::filesystem::path repo_root;
  std::filesystem::path sheet_dir;  // citations are tried relative to the sheet first
  /// Whether a `grade` results file's fingerprints are held against the tree (stale or missing ones are findings);
  /// off only where a test of the markers' mechanics reads old results files that predate fingerprints.
  bool fingerprints = true;
};

/// The value at `path` in `doc`, or an error message (in `error`) when the path points at nothing or is ambiguous.
std::optional<double> resolve(const nlohmann::json& doc, const std::string& path, std::string& error);

/// What `path` points at in `doc`, of any type (resolve() is this and a number check), or nullptr and `error`.
const nlohmann::json* locate(const nlohmann::json& doc, const std::string& path, std::string& error);

/// Whether `printed` (digits, optional thousands commas, optional decimals) is `value` rounded to the printed digits.
bool printed_matches(const std::string& printed, double value);

/// Every finding in the sheet's text.
std::vector<Finding> check_sheet(const std::string& text, const Context& context);

/// Below these shares of its ceiling (in percent) a reference must say in its sheet what stops it: a memory-bound
/// exercise's ceiling is a copy of its bytes, which a good kernel comes close to; a compute-bound one's is a library
/// or a loop of the same instructions with nothing around it.
inline constexpr double kExplainBelowMemory = 95, kExplainBelowCompute = 80;

/// Every finding in the table `### How close the references come` that must end the sheet's `## The ceiling`:
///
///   | exercise | ceiling | reference | why it stops there |
///   | --- | --- | --- | --- |
///   | scale | a copy | <!-- measured: FILE runs[...].exercises[name=scale].percent_of_ceiling -->92.0% | ... |
///
/// One row per exercise of the manifest (`exercises`), in its order; each reference cell marked with the exercise's
/// own percent_of_ceiling in a results file (or, before the reference is measured, nothing but the exercise's
/// placeholder `<!-- to measure: FILE PATH.percent_of_ceiling -->`); and where that value is below the threshold of
/// the exercise's bound, a why cell of a sentence (8 words or more). The bound is read from the same results record: the harness writes
/// its unit, "GB/s", for Bound::memory exercises only (harness/referee/src/lab/time.cpp), so it cannot disagree with the
/// ExerciseSpec the way a word typed into the sheet could.
std::vector<Finding> check_reference_table(const std::string& text, const std::vector<std::string>& exercises,
                                           const Context& context);

/// Every finding of table shape: a row of a markdown table (a header line, then `| --- |`) whose number of cells is not
/// its header's. Such a row renders shifted or cut, and once a table's row was replaced by another table's.
std::vector<Finding> check_table_shapes(const std::string& text);

}  // namespace sheets
