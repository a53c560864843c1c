#pragma once
/// @file sources_hash.hpp
/// @brief Fingerprints of the sources a measurement depends on, so that a number cited from results/ can be checked
/// against the code that ships: one per lab (its labs/ and solutions/ folders) and one for the harness. `grade`
/// records them in every results file (`sources`); the sheets' test refuses a cited run whose lab's fingerprint is
/// not the tree's. Header-only: the sheets' test computes them the same way without linking the grader.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <system_error>
#include <vector>

namespace grader {

/// FNV-1a, 64 bits, over every regular file under `dirs` (each a folder below `root`), in the order of their paths
/// relative to `root`: each path, a NUL, its bytes, a NUL. README.md and student.cu are left out: a sheet's text is not
/// what a run measured (the sheet cites the run), and student.cu is the student's. The `.student.cu.stub-sha256` that
/// configuring writes is hashed: in a tree configured from the current stub.cu (a fresh clone, the GPU machine's copy)
/// it is that stub's checksum, but where student.cu was copied from an older stub it differs, and the fingerprint with
/// it until that student.cu and its checksum are removed and the tree configured again. 16 hex digits, or "" when no
/// file was found.
inline std::string sources_hash(const std::filesystem::path& root, const std::vector<std::filesystem::path>& dirs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& dir : dirs) {
    if (!fs::is_directory(root / dir, error)) continue;
    for (auto it = fs::recursive_directory_iterator(root / dir, error); !error && it != fs::end(it); it.increment(error))
      if (it->is_regular_file(error) && it->path().filename() != "README.md" && it->path().filename() != "student.cu")
        files.push_back(fs::relative(it->path(), root, error).generic_string());
  }
  if (files.empty()) return "";
  std::sort(files.begin(), files.end());
  std::uint64_t h = 14695981039346656037ull;
  const auto add = [&h](const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  };
  for (const auto& file : files) {
    add(file.c_str(), file.size() + 1);
    std::ifstream in(root / file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    add(bytes.c_str(), bytes.size() + 1);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

/// The fingerprints of the course whose lab folders are in `labs_dir`: "labN" for every NN_name folder there (with
/// its namesake in the solutions/ folder beside `labs_dir`), and "harness" for the harness/ folder beside it. Paths are
/// hashed relative to the folder holding `labs_dir`. Empty where `labs_dir` holds no lab folder.
inline std::map<std::string, std::string> course_sources(const std::filesystem::path& labs_dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  std::error_code error;
  fs::path labs = fs::absolute(labs_dir, error).lexically_normal();
  if (!labs.has_filename()) labs = labs.parent_path();  // "course/labs/" names the same folder as "course/labs"
  const fs::path root = labs.parent_path(), name_of_labs = labs.filename();
  if (!fs::is_directory(labs, error)) return out;
  for (const auto& entry : fs::directory_iterator(labs, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || name[2] != '_' || !std::isdigit(static_cast<unsigned char>(name[0])) ||
        !std::isdigit(static_cast<unsigned char>(name[1])) || !entry.is_directory(error))
      continue;
    const auto hash = sources_hash(root, {name_of_labs / name, fs::path("solutions") / name});
    if (!hash.empty()) out["lab" + std::to_string(std::stoi(name.substr(0, 2)))] = hash;
  }
  if (const auto harness = sources_hash(root, {"harness"}); !harness.empty()) out["harness"] = harness;
  return out;
}

/// Why a run that recorded `recorded` as `lab`'s fingerprint ("labN") no longer measures the tree whose fingerprints
/// are `tree` (course_sources()), or "" where it still does: what the sheets' test and the slide generator say.
inline std::string stale_sources(const std::string& lab, const std::string& recorded,
                                 const std::map<std::string, std::string>& tree) {
  const auto now = tree.find(lab);
  if (now != tree.end() && now->second == recorded) return "";
  return "the run measured " + lab + "'s sources at " + recorded + ", and they are now " +
         (now == tree.end() ? std::string("gone") : now->second) + ": measure the lab again and cite the new run";
}

}  // namespace grader
