// Manifest parsing: defaults, and an error naming the file and the field for every malformed manifest.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/manifest.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using grader::ManifestError;
using grader::parse_manifest;
using grader::StubKind;

TEST_CASE("a full manifest is parsed field by field", "[grader][manifest]") {
  const auto m = parse_manifest(R"({"title": "Memory coalescing", "weight": 2.5,
      "timeouts": {"check_s": 60, "time_s": 200, "sanitize_s": 90}, "sampling_s": 1.5, "full_marks_at": 1.25,
      "host_link": true, "work_queues": 8, "check_apart": true,
      "exercises": [{"name": "scale", "correctness_points": 4, "performance_points": 6, "stub": "slow"},
                    {"name": "saxpy", "correctness_points": 5.5, "performance_points": 0, "stub": "incorrect",
       "reference_percent_of_ceiling": 0.077, "zero_at_most": 4, "zero_margin": 0.1,
       "graded_by": {"metric": "overlap", "full_marks_at": 0.75, "zero_at": 0.1}}]})",
                                "m.json");
  CHECK(m.title == "Memory coalescing");
  CHECK(m.weight == 2.5);
  CHECK(m.check_timeout_s == 60);
  CHECK(m.time_timeout_s == 200);
  CHECK(m.sanitize_timeout_s == 90);
  CHECK(m.sampling_s == 1.5);
  CHECK(m.full_marks_at == 1.25);
  CHECK(m.host_link);
  CHECK(m.work_queues == 8);
  CHECK(m.check_apart);
  REQUIRE(m.exercises.size() == 2);
  CHECK(m.exercises[0].name == "scale");
  CHECK(m.exercises[0].max_score() == 10);
  CHECK(m.exercises[0].stub == StubKind::kSlow);
  CHECK(m.exercises[1].correctness_points == 5.5);
  CHECK(m.exercises[1].stub == StubKind::kIncorrect);
  CHECK(m.exercises[1].reference_percent_of_ceiling == 0.077);
  CHECK(m.exercises[1].zero_at_most == 4);
  CHECK(m.exercises[1].zero_margin == 0.1);
  REQUIRE(m.exercises[1].graded_by);
  CHECK(m.exercises[1].graded_by->metric == "overlap");
  CHECK(m.exercises[1].graded_by->full_marks_at == 0.75);
  CHECK(m.exercises[1].graded_by->zero_at == 0.1);
  CHECK_FALSE(m.exercises[0].graded_by);  // by its times
}

TEST_CASE("optional manifest fields take their defaults", "[grader][manifest]") {
  const auto m = parse_manifest(
      R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
      "m.json");
  CHECK(m.weight == 1.0);
  CHECK(m.check_timeout_s == 120);
  CHECK(m.time_timeout_s == 300);
  CHECK_FALSE(m.sampling_s.has_value());  // the lab binary's own cap
  CHECK_FALSE(m.host_link);
  CHECK(m.work_queues == 1);  // one hardware work queue: the labs whose code runs on one stream
  CHECK_FALSE(m.check_apart);  // a lab's exercises checked in one run
  CHECK(m.full_marks_at == 1.1);
  CHECK_FALSE(m.exercises[0].reference_percent_of_ceiling.has_value());  // no sanity gate on the reference
  CHECK(m.exercises[0].zero_at_most == 0);
  CHECK(m.exercises[0].zero_margin == 0);
  const auto partial = parse_manifest(
      R"({"title": "T", "timeouts": {"time_s": 50},
          "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
      "m.json");
  CHECK(partial.check_timeout_s == 120);
  CHECK(partial.time_timeout_s == 50);
}

TEST_CASE("a manifest's submission rules widen the static check's default, which is strict", "[grader][manifest]") {
  const auto strict = parse_manifest(
      R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
      "m.json");
  CHECK(strict.rules.allow_symbols.empty());
  CHECK(strict.rules.allow_headers.empty());
  CHECK(strict.rules.allow_instructions.empty());
  const auto wide = parse_manifest(
      R"({"title": "T", "rules": {"allow_symbols": ["cudaStreamCreate*", "cudaEventRecord"], "allow_headers": ["cub/*"],
          "allow_instructions": ["mma.sync*"]},
          "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
      "m.json");
  CHECK(wide.rules.allow_symbols == std::vector<std::string>{"cudaStreamCreate*", "cudaEventRecord"});
  CHECK(wide.rules.allow_headers == std::vector<std::string>{"cub/*"});
  CHECK(wide.rules.allow_instructions == std::vector<std::string>{"mma.sync*"});
  const auto partial = parse_manifest(
      R"({"title": "T", "rules": {}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
      "m.json");
  CHECK(partial.rules.allow_symbols.empty());
}

TEST_CASE("malformed manifests are rejected naming the file and the field", "[grader][manifest]") {
  struct Case {
    const char* text;
    const char* expected;
  };
  constexpr const char* kEx = R"("exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}])";
  const std::string ok_exercises = kEx;
  const auto c = GENERATE_COPY(values<Case>({
      {"{\"title\": \"T\", ", "bad JSON"},
      {"[1, 2]", "field '(top level)': must be a JSON object"},
      {R"({"exercises": []})", "field 'title': missing"},
      {R"({"title": 3})", "field 'title': must be a string"},
      {R"({"title": "T"})", "field 'exercises': missing"},
      {R"({"title": "T", "exercises": {}})", "field 'exercises': must be an array"},
      {R"({"title": "T", "exercises": []})", "field 'exercises': must list at least one exercise"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": -1, "performance_points": 2, "stub": "slow"}]})",
       "field 'exercises[0].correctness_points': must be >= 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": -2, "stub": "slow"}]})",
       "field 'exercises[0].performance_points': must be >= 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "performance_points": 2, "stub": "slow"}]})",
       "field 'exercises[0].correctness_points': missing"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": "4", "performance_points": 2, "stub": "slow"}]})",
       "field 'exercises[0].correctness_points': must be a number"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"},
           {"name": "b", "correctness_points": 1, "performance_points": 2, "stub": "fast"}]})",
       "field 'exercises[1].stub': unknown value 'fast'"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2}]})",
       "field 'exercises[0].stub': missing"},
      {R"({"title": "T", "exercises": [{"correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'exercises[0].name': missing"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"},
           {"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'exercises[1].name': duplicate exercise 'a'"},
      {R"({"title": "T", "exercises": [3]})", "field 'exercises[0]': must be an object"},
      {R"({"title": "T", "weight": -1, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'weight': must be >= 0"},
      {R"({"title": "T", "timeouts": {"check_s": 0}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'timeouts.check_s': must be > 0"},
      {R"({"title": "T", "timeouts": 5, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'timeouts': must be an object"},
      {R"({"title": "T", "full_marks_at": "1.1", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'full_marks_at': must be a number"},
      {R"({"title": "T", "host_link": "yes", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'host_link': must be true or false, not \"yes\""},
      {R"({"title": "T", "check_apart": 1, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'check_apart': must be true or false, not 1"},
      {R"({"title": "T", "work_queues": 0, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'work_queues': must be a whole number from 1 to 32, not 0"},
      {R"({"title": "T", "work_queues": 33, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'work_queues': must be a whole number from 1 to 32, not 33"},
      {R"({"title": "T", "work_queues": 2.5, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'work_queues': must be a whole number from 1 to 32, not 2.5"},
      {R"({"title": "T", "full_mark_at": 1.2, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'full_mark_at': unknown field"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "points": 3}]})",
       "field 'exercises[0].points': unknown field"},
      {R"({"title": "T", "rules": [], "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'rules': must be an object"},
      {R"({"title": "T", "rules": {"allow_symbol": ["cudaStreamCreate"]}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'rules.allow_symbol': unknown field"},
      {R"({"title": "T", "rules": {"allow_symbols": "cudaStreamCreate"}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'rules.allow_symbols': must be an array of strings"},
      {R"({"title": "T", "rules": {"allow_headers": ["cub/*", 3]}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'rules.allow_headers[1]': must be a string"},
      {R"({"title": "T", "rules": {"allow_instructions": [""]}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'rules.allow_instructions[0]': must name something"},
      {R"({"title": "T", "rules": {"allow_symbols": ["**"]}, "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow"}]})",
       "field 'rules.allow_symbols[0]': must name something"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "rules": {}}]})",
       "field 'exercises[0].rules': unknown field"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "zero_at_most": 1.1}]})",
       "field 'exercises[0].zero_at_most': must be > 1.1, not 1.1"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "zero_margin": 1}]})",
       "field 'exercises[0].zero_margin': must be a fraction below 1, not 1"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "zero_margin": -0.1}]})",
       "field 'exercises[0].zero_margin': must be >= 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": {"metric": "m", "zero_at": -1}}]})",
       "field 'exercises[0].graded_by.zero_at': must be >= 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "reference_percent_of_ceiling": 0}]})",
       "field 'exercises[0].reference_percent_of_ceiling': must be > 0, not 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "reference_percent_of_ceiling": -90}]})",
       "field 'exercises[0].reference_percent_of_ceiling': must be > 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "reference_percent_of_ceiling": "90"}]})",
       "field 'exercises[0].reference_percent_of_ceiling': must be a number, not \"90\""},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "reference_percent_of_ceiling": null}]})",
       "field 'exercises[0].reference_percent_of_ceiling': must be a number, not null"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "reference_percent_ceiling": 90}]})",
       "field 'exercises[0].reference_percent_ceiling': unknown field"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": "overlap"}]})",
       "field 'exercises[0].graded_by': must be an object"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": {"full_marks_at": 0.8}}]})",
       "field 'exercises[0].graded_by.metric': missing"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": {"metric": "over lap"}}]})",
       "field 'exercises[0].graded_by.metric': 'over lap' must be letters, digits and '_'"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": {"metric": "overlap", "full_marks_at": 1.5}}]})",
       "field 'exercises[0].graded_by.full_marks_at': must be <= 1, not 1.5"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": {"metric": "overlap", "full_marks_at": 0}}]})",
       "field 'exercises[0].graded_by.full_marks_at': must be > 0"},
      {R"({"title": "T", "exercises": [{"name": "a", "correctness_points": 1, "performance_points": 2, "stub": "slow", "graded_by": {"metric": "overlap", "full_marks": 0.8}}]})",
       "field 'exercises[0].graded_by.full_marks': unknown field"},
  }));
  CAPTURE(c.text);
  REQUIRE_THROWS_AS(parse_manifest(c.text, "labs/07_x/manifest.json"), ManifestError);
  try {
    parse_manifest(c.text, "labs/07_x/manifest.json");
  } catch (const ManifestError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("labs/07_x/manifest.json: ") && ContainsSubstring(c.expected));
  }
  CHECK_NOTHROW(parse_manifest("{\"title\": \"T\", " + ok_exercises + "}", "x"));
}

TEST_CASE("a manifest file that cannot be read is named", "[grader][manifest]") {
  const grader_test::TempDir dir;
  const auto missing = dir.path / "manifest.json";
  CHECK_THROWS_WITH(grader::load_manifest(missing), missing.string() + ": cannot be read");
}

TEST_CASE("the fake lab's own manifest is valid", "[grader][manifest]") {
  const auto m = grader::load_manifest(std::string(FAKE_LABS_DIR) + "/01_fake/manifest.json");
  REQUIRE(m.exercises.size() == 2);
  CHECK(m.exercises[0].name == "copy");
  CHECK(m.exercises[1].stub == StubKind::kIncorrect);
  CHECK(m.exercises[0].reference_percent_of_ceiling == 90);  // the fake reference: ceiling 0.9 ms, reference 1.0 ms
  CHECK(m.exercises[1].reference_percent_of_ceiling == 80);
}

TEST_CASE("every course lab records its reference's standing for the sanity gate", "[grader][manifest]") {
  // Filled from results/h100.json (the reference graded in the student slot); without it a lab's runs are not gated.
  // The one exception is a new lab no GPU has run yet: its sheet's ceiling table then holds the exercise's placeholder
  // (`<!-- to measure: ...exercises[name=X].percent_of_ceiling -->`, tests/sheets/sheet_check.hpp), which the sheet
  // check turns into a finding as soon as results/ holds the number, and then this test asks for the standing too.
  int exercises = 0;
  for (const auto& entry : std::filesystem::directory_iterator(COURSE_LABS_DIR)) {
    const auto file = entry.path() / "manifest.json";
    if (!std::filesystem::is_regular_file(file)) continue;
    std::ifstream in(entry.path() / "README.md");
    const std::string sheet{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    for (const auto& spec : grader::load_manifest(file).exercises) {
      CAPTURE(file.string(), spec.name);
      const std::regex placeholder("<!--\\s*to measure:\\s*\\S+\\s+\\S*exercises\\[name=" + spec.name +
                                   "\\]\\.percent_of_ceiling\\s*-->");
      if (!spec.reference_percent_of_ceiling) CHECK(std::regex_search(sheet, placeholder));
      ++exercises;
    }
  }
  CHECK(exercises >= 24);  // 7 labs
}
