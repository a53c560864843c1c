// sheet_check: keeps the exercise sheets (labs/NN_name/README.md) honest about what was measured.
//
// A measured number in a sheet carries a marker that names where it comes from, in results/:
//
//   <!-- measured: h200.json runs[impl=reference].labs[lab=1].exercises[name=scale].median_ms.reference -->0.550 ms
//   <!-- measured: h200.json <path> / <path> -->6.2x          a ratio of two values of that file
//   <!-- measured: h200.json <path> * 0.001 -->31.5 TFLOP/s   a value times a constant (a unit change)
//   <!-- measured: h200-lab06-bank-conflicts.txt -->65,951,034   a text file: the number as the file prints it
//
// A path walks the JSON: `.key`, `["key"]` (any key), `[N]` (an array index) and `[key=value]` (the one array element
// whose `key` is `value`; none or several is an error). The number right after the marker must equal the value rounded to the digits
// printed. Numbers that were not measured (napkin math, a vendor's figures) are marked too: `<!-- napkin -->` makes
// the rest of its paragraph (or up to `<!-- /napkin -->`) exempt. Everything else that looks like a measurement is a finding: a number with a unit of time or rate, and, in a
// paragraph that speaks of measuring (or of anchors), a decimal, a percentage or a ratio. So is a file a sheet cites
// (in backticks, as a link, or as results/...) that is not in the repository.
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
};

/// The value at `path` in `doc`, or an error message (in `error`) when the path points at nothing or is ambiguous.
std::optional<double> resolve(const nlohmann::json& doc, const std::string& path, std::string& error);

/// Whether `printed` (digits, optional thousands commas, optional decimals) is `value` rounded to the printed digits.
bool printed_matches(const std::string& printed, double value);

/// Every finding in the sheet's text.
std::vector<Finding> check_sheet(const std::string& text, const Context& context);

}  // namespace sheets
