#pragma once
/// @file discovery.hpp
/// @brief Finds the labs (`labs/NN_name/` folders with a `manifest.json`) and their binaries (`<bin-dir>/labN`).
///
/// No central list: a new lab folder is graded as soon as it has a manifest.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

/// One lab folder.
struct LabEntry {
  int number = 0;                   ///< int(NN): `01_coalescing` is lab 1
  std::string id;                   ///< the folder name, e.g. `01_coalescing`
  std::filesystem::path dir;        ///< the folder
  std::filesystem::path manifest;   ///< `dir / "manifest.json"`
};

/// Every `NN_name` folder of `labs_dir` that holds a `manifest.json`, sorted by number. Empty if the folder is missing.
std::vector<LabEntry> discover_labs(const std::filesystem::path& labs_dir);

/// `bin_dir / "labN"`.
std::filesystem::path lab_binary(const std::filesystem::path& bin_dir, int number);

/// The commit of the course that `labs_dir` belongs to (`git rev-parse HEAD` in its parent), or "unknown": what a
/// results file records so that a grade names the code that made it.
std::string git_commit(const std::filesystem::path& labs_dir);

/// The lab a command-line LAB argument names: `lab1`, `1`, `01`, `01_coalescing` or `coalescing`; nullptr if none.
const LabEntry* find_lab(const std::vector<LabEntry>& labs, std::string_view arg);

}  // namespace grader
