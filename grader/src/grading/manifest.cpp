#include "grader/manifest.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace grader {
namespace {

using nlohmann::json;

// Field checks that all report "<file>: field '<path>': <problem>".
struct Reader {
  const std::string& source;

  [[noreturn]] void fail(std::string_view field, std::string_view problem) const {
    throw ManifestError(fmt::format("{}: field '{}': {}", source, field, problem));
  }

  // Unknown keys are rejected: a misspelt optional field ("full_mark_at") would otherwise silently keep its default.
  void only_known(const json& object, std::string_view where, std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end())
        fail(where.empty() ? key : fmt::format("{}.{}", where, key), "unknown field");
    }
  }

  double number(const json& object, const char* key, std::string_view field, std::optional<double> fallback,
                double minimum, bool strictly_above) const {
    if (!object.contains(key)) {
      if (!fallback) fail(field, "missing");
      return *fallback;
    }
    const json& value = object.at(key);
    if (!value.is_number()) fail(field, fmt::format("must be a number, not {}", value.dump()));
    const double x = value.get<double>();
    if (!std::isfinite(x)) fail(field, "must be finite");
    if (strictly_above ? x <= minimum : x < minimum)
      fail(field, fmt::format("must be {} {}, not {}", strictly_above ? ">" : ">=", minimum, x));
    return x;
  }

  std::string string(const json& object, const char* key, std::string_view field) const {
    if (!object.contains(key)) fail(field, "missing");
    const json& value = object.at(key);
    if (!value.is_string()) fail(field, fmt::format("must be a string, not {}", value.dump()));
    auto text = value.get<std::string>();
    if (text.empty()) fail(field, "must not be empty");
    return text;
  }

  bool boolean(const json& object, const char* key, std::string_view field) const {
    if (!object.contains(key)) return false;
    const json& value = object.at(key);
    if (!value.is_boolean()) fail(field, fmt::format("must be true or false, not {}", value.dump()));
    return value.get<bool>();
  }

  // Any finite number, or nullopt when the key is missing.
  std::optional<double> optional_number(const json& object, const char* key, std::string_view field) const {
    if (!object.contains(key)) return std::nullopt;
    const json& value = object.at(key);
    if (!value.is_number()) fail(field, fmt::format("must be a number, not {}", value.dump()));
    const double x = value.get<double>();
    if (!std::isfinite(x)) fail(field, "must be finite");
    return x;
  }

  // A regular expression (ECMAScript, as std::regex and ncu's `regex:` read it) that compiles.
  std::string regex(const json& object, const char* key, std::string_view field, bool required) const {
    if (!required && !object.contains(key)) return "";
    auto text = string(object, key, field);
    try {
      std::regex compiled(text);
    } catch (const std::regex_error& e) {
      fail(field, fmt::format("'{}' is not a regular expression: {}", text, e.what()));
    }
    return text;
  }

  // A list of ncu metric names (letters, digits, '_' and '.', as `ncu --query-metrics` prints them).
  std::vector<std::string> metrics(const json& object, const char* key, std::string_view field, bool required) const {
    std::vector<std::string> out;
    if (!object.contains(key)) {
      if (required) fail(field, "missing");
      return out;
    }
    const json& list = object.at(key);
    if (!list.is_array() || (required && list.empty()))
      fail(field, fmt::format("must be a{} array of metric names, not {}", required ? " non-empty" : "n", list.dump()));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto where = fmt::format("{}[{}]", field, i);
      if (!list[i].is_string()) fail(where, fmt::format("must be a string, not {}", list[i].dump()));
      auto name = list[i].get<std::string>();
      const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
      });
      if (!plain) fail(where, fmt::format("'{}' is not an ncu metric name (letters, digits, '_', '.')", name));
      out.push_back(std::move(name));
    }
    return out;
  }

  // A list of non-empty glob strings; a missing key is an empty list.
  std::vector<std::string> patterns(const json& object, const char* key, std::string_view field) const {
    std::vector<std::string> out;
    if (!object.contains(key)) return out;
    const json& list = object.at(key);
    if (!list.is_array()) fail(field, fmt::format("must be an array of strings, not {}", list.dump()));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto where = fmt::format("{}[{}]", field, i);
      if (!list[i].is_string()) fail(where, fmt::format("must be a string, not {}", list[i].dump()));
      auto text = list[i].get<std::string>();
      if (text.empty() || text.find_first_not_of('*') == std::string::npos)
        fail(where, "must name something (a pattern of only '*' would allow everything)");
      out.push_back(std::move(text));
    }
    return out;
  }
};

// One entry of the top-level "concepts" list (docs/concepts.md): the exercise, a name, a why, exactly one tool
// ("ncu", "sass" or "time_metric"), the expected range and the points.
ConceptSpec parse_concept(const Reader& in, const json& c, const std::string& where) {
  if (!c.is_object()) in.fail(where, "must be an object");
  in.only_known(c, where, {"exercise", "name", "why", "unit", "ncu", "sass", "time_metric", "min", "max", "points"});
  ConceptSpec spec;
  spec.exercise = in.string(c, "exercise", where + ".exercise");
  spec.name = in.string(c, "name", where + ".name");
  spec.why = in.string(c, "why", where + ".why");
  if (spec.why.find('\n') != std::string::npos) in.fail(where + ".why", "must be one line");
  if (c.contains("unit") && !c.at("unit").is_string())
    in.fail(where + ".unit", fmt::format("must be a string, not {}", c.at("unit").dump()));
  spec.unit = c.value("unit", std::string());
  const int tools = static_cast<int>(c.contains("ncu")) + static_cast<int>(c.contains("sass")) +
                    static_cast<int>(c.contains("time_metric"));
  if (tools != 1)
    in.fail(where, fmt::format("must name exactly one tool (\"ncu\", \"sass\" or \"time_metric\"), not {}", tools));
  if (c.contains("ncu")) {
    const json& ncu = c.at("ncu");
    const auto at = where + ".ncu";
    if (!ncu.is_object())
      in.fail(at, "must be an object like {\"kernel\": \"scale\", \"numerator\": [...], \"denominator\": [...]}");
    in.only_known(ncu, at, {"kernel", "numerator", "denominator"});
    spec.tool = ConceptTool::kNcu;
    spec.kernel = in.regex(ncu, "kernel", at + ".kernel", true);
    spec.numerator = in.metrics(ncu, "numerator", at + ".numerator", true);
    spec.denominator = in.metrics(ncu, "denominator", at + ".denominator", false);
  } else if (c.contains("sass")) {
    const json& sass = c.at("sass");
    const auto at = where + ".sass";
    if (!sass.is_object()) in.fail(at, "must be an object like {\"instruction\": \"SHFL\", \"function\": \"warp_sum\"}");
    in.only_known(sass, at, {"instruction", "function"});
    spec.tool = ConceptTool::kSass;
    spec.instruction = in.string(sass, "instruction", at + ".instruction");
    const bool mnemonic = std::all_of(spec.instruction.begin(), spec.instruction.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
             c == '.';
    });
    if (!mnemonic)
      in.fail(at + ".instruction",
              fmt::format("'{}' is not a SASS mnemonic (upper case, as cuobjdump prints it: SHFL, LDS.128)",
                          spec.instruction));
    spec.function = in.regex(sass, "function", at + ".function", false);
  } else {
    spec.tool = ConceptTool::kTimeMetric;
    spec.metric = in.string(c, "time_metric", where + ".time_metric");
  }
  spec.min = in.optional_number(c, "min", where + ".min");
  spec.max = in.optional_number(c, "max", where + ".max");
  if (!spec.min && !spec.max) in.fail(where, "needs \"min\", \"max\" or both: the range a kernel that uses the idea is in");
  if (spec.min && spec.max && *spec.min > *spec.max)
    in.fail(where + ".min", fmt::format("{} is above max {}", *spec.min, *spec.max));
  spec.points = in.number(c, "points", where + ".points", 0.0, 0, false);
  return spec;
}

// `"graded_by"`: a metric stem the time results name with _student and _reference, and where full marks start.
GradedBy parse_graded_by(const Reader& in, const json& g, const std::string& where) {
  if (!g.is_object()) in.fail(where, "must be an object");
  in.only_known(g, where, {"metric", "full_marks_at", "zero_at"});
  GradedBy by;
  by.metric = in.string(g, "metric", where + ".metric");
  const bool word = std::all_of(by.metric.begin(), by.metric.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!word) in.fail(where + ".metric", fmt::format("'{}' must be letters, digits and '_'", by.metric));
  by.full_marks_at = in.number(g, "full_marks_at", where + ".full_marks_at", 0.8, 0, true);
  if (by.full_marks_at > 1) in.fail(where + ".full_marks_at", fmt::format("must be <= 1, not {}", by.full_marks_at));
  by.zero_at = in.number(g, "zero_at", where + ".zero_at", 0.0, 0, false);
  return by;
}

}  // namespace

std::string_view to_string(StubKind kind) { return kind == StubKind::kSlow ? "slow" : "incorrect"; }

Manifest parse_manifest(std::string_view text, const std::string& source) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ManifestError(fmt::format("{}: bad JSON: {}", source, e.what()));
  }
  const Reader in{source};
  if (!root.is_object()) in.fail("(top level)", "must be a JSON object");
  in.only_known(root, "", {"title", "weight", "timeouts", "sampling_s", "full_marks_at", "host_link", "work_queues",
                            "check_apart", "exercises", "rules", "sanitize", "concepts"});

  Manifest m;
  m.title = in.string(root, "title", "title");
  m.weight = in.number(root, "weight", "weight", 1.0, 0, false);
  m.full_marks_at = in.number(root, "full_marks_at", "full_marks_at", 1.1, 0, true);
  if (root.contains("sampling_s")) m.sampling_s = in.number(root, "sampling_s", "sampling_s", 3.0, 0, true);
  m.host_link = in.boolean(root, "host_link", "host_link");
  m.check_apart = in.boolean(root, "check_apart", "check_apart");
  if (root.contains("work_queues")) {
    const json& queues = root.at("work_queues");
    if (!queues.is_number_integer() || queues.get<long long>() < 1 || queues.get<long long>() > 32)
      in.fail("work_queues", fmt::format("must be a whole number from 1 to 32, not {}", queues.dump()));
    m.work_queues = static_cast<int>(queues.get<long long>());
  }
  if (root.contains("timeouts")) {
    const json& timeouts = root.at("timeouts");
    if (!timeouts.is_object()) in.fail("timeouts", "must be an object like {\"check_s\": 120, \"time_s\": 300}");
    in.only_known(timeouts, "timeouts", {"check_s", "time_s", "sanitize_s"});
    m.check_timeout_s = in.number(timeouts, "check_s", "timeouts.check_s", 120.0, 0, true);
    m.time_timeout_s = in.number(timeouts, "time_s", "timeouts.time_s", 300.0, 0, true);
    m.sanitize_timeout_s = in.number(timeouts, "sanitize_s", "timeouts.sanitize_s", kSanitizeTimeoutS, 0, true);
  }
  if (root.contains("rules")) {
    const json& rules = root.at("rules");
    if (!rules.is_object()) in.fail("rules", "must be an object like {\"allow_symbols\": [\"cudaStreamCreate*\"]}");
    in.only_known(rules, "rules", {"allow_symbols", "allow_headers", "allow_instructions"});
    m.rules.allow_symbols = in.patterns(rules, "allow_symbols", "rules.allow_symbols");
    m.rules.allow_headers = in.patterns(rules, "allow_headers", "rules.allow_headers");
    m.rules.allow_instructions = in.patterns(rules, "allow_instructions", "rules.allow_instructions");
  }

  for (const auto& name : in.patterns(root, "sanitize", "sanitize")) {
    const auto tool = parse_sanitizer_tool(name);
    if (!tool) in.fail("sanitize", fmt::format("unknown tool '{}' (memcheck, racecheck, synccheck or initcheck)", name));
    if (std::find(m.sanitize.begin(), m.sanitize.end(), *tool) == m.sanitize.end()) m.sanitize.push_back(*tool);
  }

  if (!root.contains("exercises")) in.fail("exercises", "missing");
  const json& exercises = root.at("exercises");
  if (!exercises.is_array()) in.fail("exercises", "must be an array");
  if (exercises.empty()) in.fail("exercises", "must list at least one exercise");
  std::set<std::string> names;
  for (std::size_t i = 0; i < exercises.size(); ++i) {
    const json& e = exercises[i];
    const auto where = fmt::format("exercises[{}]", i);
    if (!e.is_object()) in.fail(where, "must be an object");
    in.only_known(e, where,
                  {"name", "correctness_points", "performance_points", "stub", "reference_percent_of_ceiling",
                   "zero_at_most", "zero_margin", "graded_by"});
    ExerciseSpec spec;
    spec.name = in.string(e, "name", where + ".name");
    if (!names.insert(spec.name).second) in.fail(where + ".name", fmt::format("duplicate exercise '{}'", spec.name));
    spec.correctness_points = in.number(e, "correctness_points", where + ".correctness_points", {}, 0, false);
    spec.performance_points = in.number(e, "performance_points", where + ".performance_points", {}, 0, false);
    const auto stub = in.string(e, "stub", where + ".stub");
    if (stub == "slow") {
      spec.stub = StubKind::kSlow;
    } else if (stub == "incorrect") {
      spec.stub = StubKind::kIncorrect;
    } else {
      in.fail(where + ".stub", fmt::format("unknown value '{}' (expected \"slow\" or \"incorrect\")", stub));
    }
    if (e.contains("reference_percent_of_ceiling"))
      spec.reference_percent_of_ceiling = in.number(e, "reference_percent_of_ceiling",
                                                    where + ".reference_percent_of_ceiling", {}, 0, true);
    // Beyond full marks: a zero at or below them would leave no scale to grade on.
    if (e.contains("zero_at_most"))
      spec.zero_at_most = in.number(e, "zero_at_most", where + ".zero_at_most", {}, m.full_marks_at, true);
    spec.zero_margin = in.number(e, "zero_margin", where + ".zero_margin", 0.0, 0, false);
    if (spec.zero_margin >= 1)
      in.fail(where + ".zero_margin", fmt::format("must be a fraction below 1, not {}", spec.zero_margin));
    if (e.contains("graded_by")) spec.graded_by = parse_graded_by(in, e.at("graded_by"), where + ".graded_by");
    m.exercises.push_back(std::move(spec));
  }

  if (root.contains("concepts")) {
    const json& concepts = root.at("concepts");
    if (!concepts.is_array()) in.fail("concepts", "must be an array");
    for (std::size_t i = 0; i < concepts.size(); ++i) {
      const auto where = fmt::format("concepts[{}]", i);
      auto spec = parse_concept(in, concepts[i], where);
      const auto owner = std::find_if(m.exercises.begin(), m.exercises.end(),
                                      [&](const ExerciseSpec& e) { return e.name == spec.exercise; });
      if (owner == m.exercises.end())
        in.fail(where + ".exercise", fmt::format("no exercise named '{}' in this manifest", spec.exercise));
      const bool taken = std::any_of(owner->concepts.begin(), owner->concepts.end(),
                                     [&](const ConceptSpec& other) { return other.name == spec.name; });
      if (taken) in.fail(where + ".name", fmt::format("duplicate concept '{}' for exercise '{}'", spec.name, spec.exercise));
      owner->concepts.push_back(std::move(spec));
    }
  }
  return m;
}

Manifest load_manifest(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw ManifestError(fmt::format("{}: cannot be read", file.string()));
  std::ostringstream text;
  text << stream.rdbuf();
  return parse_manifest(text.str(), file.string());
}

}  // namespace grader
