// Lookups into the JSON that `grade --self-check` writes (results/*.json): the slide generator's only source of
// numbers, so that a measured value on a slide is always read from a results file and named with its commit.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace slides {

/// Thrown for anything the generator cannot resolve (a missing marker, file, lab, exercise or key): the message
/// names it, and the build stops with it.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One results file, loaded once: `path` is as the deck spells it (relative to the source tree).
class Results {
 public:
  Results(const std::filesystem::path& source_dir, const std::string& path);

  /// "results/h100.json, commit 6ca7ef4, NVIDIA H100 80GB HBM3, 2026-11-22": what every chart and table names.
  [[nodiscard]] std::string provenance() const;
  [[nodiscard]] const std::string& path() const { return path_; }

  /// The exercises of lab `lab` in run `impl` ("reference": the reference graded as the student; "student": the
  /// shipped stubs), in the lab's order.
  [[nodiscard]] const nlohmann::json& exercises(int lab, const std::string& impl) const;
  [[nodiscard]] const nlohmann::json& exercise(int lab, const std::string& impl, const std::string& name) const;

  /// A number named by `key` for one exercise: rate, percent, ceiling_rate, ms.<runner>, speedup (the stub's time
  /// over the reference's, both from the reference run), metrics.<name>, peer.<name>.ms, peer.<name>.rate.
  [[nodiscard]] double value(int lab, const std::string& impl, const std::string& name, const std::string& key) const;

 private:
  /// Throws where this run recorded lab `lab`'s fingerprint (grader/sources_hash.hpp) and the tree's differs: a
  /// slide must not show what other code measured.
  void check_sources(int lab) const;

  std::string path_;
  std::filesystem::path source_dir_;
  nlohmann::json doc_;
  mutable std::map<std::string, std::string> tree_;  ///< the tree's fingerprints, computed on first need
};

/// Results files by path, each read once per generator run.
class ResultsCache {
 public:
  explicit ResultsCache(std::filesystem::path source_dir) : source_dir_(std::move(source_dir)) {}
  const Results& get(const std::string& path);

 private:
  std::filesystem::path source_dir_;
  std::map<std::string, Results> loaded_;
};

/// Short, honest number formatting: 3 significant digits for small values, none after the point for large ones.
std::string format_number(double v);

/// A directive's arguments: positional words, then key=value pairs (`chart: ladder results/h100.json lab=5`).
struct Args {
  std::vector<std::string> words;
  std::map<std::string, std::string> named;
  [[nodiscard]] const std::string& need(const std::string& key) const;
  [[nodiscard]] std::string get(const std::string& key, const std::string& fallback) const;
  [[nodiscard]] int lab() const;
};
Args parse_args(const std::string& text);

}  // namespace slides
