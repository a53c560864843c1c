// Lookups into results/*.json for the slide generator (results.hpp says why they are the only source of numbers).
#include "results.hpp"

#include <grader/sources_hash.hpp>

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace slides {

Results::Results(const std::filesystem::path& source_dir, const std::string& path)
    : path_(path), source_dir_(source_dir) {
  std::ifstream in(source_dir / path);
  if (!in) throw Error(fmt::format("results file not found: {}", path));
  try {
    doc_ = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!doc_.contains("runs") || !doc_.contains("commit")) throw Error(fmt::format("{}: no runs or commit", path));
}

std::string Results::provenance() const {
  const auto& machine = doc_.value("machine", nlohmann::json::object());
  const std::string date = doc_.value("date", "");
  return fmt::format("{}, commit {}, {}, {}", path_, doc_.at("commit").get<std::string>(),
                     machine.value("gpu", "unknown GPU"), date.substr(0, 10));
}

void Results::check_sources(int lab) const {
  const std::string name = fmt::format("lab{}", lab);
  const auto& sources = doc_.value("sources", nlohmann::json::object());
  if (!sources.is_object() || !sources.contains(name) || !sources.at(name).is_string()) return;  // before fingerprints
  if (tree_.empty()) tree_ = grader::course_sources(source_dir_ / "labs");
  if (const auto stale = grader::stale_sources(name, sources.at(name).get<std::string>(), tree_); !stale.empty())
    throw Error(fmt::format("{}: {}", path_, stale));
}

const nlohmann::json& Results::exercises(int lab, const std::string& impl) const {
  check_sources(lab);
  // The run that graded the shipped stubs is impl "student" in older runs, "stub" in newer ones.
  const auto matches = [&](const std::string& run_impl) {
    return run_impl == impl || (impl == "student" && run_impl == "stub");
  };
  for (const auto& run : doc_.at("runs")) {
    if (!matches(run.value("impl", ""))) continue;
    for (const auto& l : run.at("labs"))
      if (l.value("lab", 0) == lab) return l.at("exercises");
  }
  throw Error(fmt::format("{}: no lab {} in the run of impl '{}'", path_, lab, impl));
}

const nlohmann::json& Results::exercise(int lab, const std::string& impl, const std::string& name) const {
  for (const auto& e : exercises(lab, impl))
    if (e.value("name", "") == name) return e;
  throw Error(fmt::format("{}: lab {} ({}) has no exercise '{}'", path_, lab, impl, name));
}

namespace {
double number_at(const nlohmann::json& j, const std::string& what, const std::string& where) {
  if (!j.is_number()) throw Error(fmt::format("{}: '{}' is not a number", where, what));
  return j.get<double>();
}
const nlohmann::json& member(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw Error(fmt::format("{}: no '{}'", where, key));
  return j.at(key);
}
}  // namespace

double Results::value(int lab, const std::string& impl, const std::string& name, const std::string& key) const {
  const auto& e = exercise(lab, impl, name);
  const auto where = fmt::format("{} lab {} {} {}", path_, lab, impl, name);
  if (key == "rate") return number_at(member(e, "rate", where), key, where);
  if (key == "percent") return number_at(member(e, "percent_of_ceiling", where), key, where);
  if (key == "ceiling_rate") return number_at(member(e, "ceiling_rate", where), key, where);
  if (key == "speedup") {
    const auto& ms = member(e, "median_ms", where);
    return number_at(member(ms, "baseline", where), key, where) / number_at(member(ms, "reference", where), key, where);
  }
  if (key.starts_with("ms.")) return number_at(member(member(e, "median_ms", where), key.substr(3), where), key, where);
  if (key.starts_with("metrics."))
    return number_at(member(member(e, "metrics", where), key.substr(8), where), key, where);
  if (key.starts_with("peer.")) {
    const auto dot = key.rfind('.');
    const auto peer = key.substr(5, dot - 5), field = key.substr(dot + 1);
    const auto& p = member(member(e, "peers", where), peer, where);
    return number_at(member(p, field == "ms" ? "median_ms" : field, where), key, where);
  }
  throw Error(fmt::format("{}: unknown value key '{}'", where, key));
}

const Results& ResultsCache::get(const std::string& path) {
  auto it = loaded_.find(path);
  if (it == loaded_.end()) it = loaded_.emplace(path, Results(source_dir_, path)).first;
  return it->second;
}

std::string format_number(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

const std::string& Args::need(const std::string& key) const {
  const auto it = named.find(key);
  if (it == named.end()) throw Error(fmt::format("missing argument {}=...", key));
  return it->second;
}
std::string Args::get(const std::string& key, const std::string& fallback) const {
  const auto it = named.find(key);
  return it == named.end() ? fallback : it->second;
}
int Args::lab() const {
  try {
    return std::stoi(need("lab"));
  } catch (const std::logic_error&) {
    throw Error(fmt::format("lab={} is not a number", need("lab")));
  }
}

Args parse_args(const std::string& text) {
  Args a;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) a.words.push_back(w);
    else a.named[w.substr(0, eq)] = w.substr(eq + 1);
  }
  return a;
}

}  // namespace slides
