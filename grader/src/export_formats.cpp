// The three gradebook formats of `grade export`: Gradescope's autograder results.json (its published specification:
// top-level score, tests[] with name, score, max_score, status, output, visibility), JUnit XML as CI systems read it
// (testsuites > testsuite > testcase, the Ant/Jenkins layout), and an RFC 4180 CSV for spreadsheets and LMS imports.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "grader/export.hpp"
#include "grader/report.hpp"

namespace grader {
namespace {

using nlohmann::json;

double lab_seconds(const LabResult& lab) {
  double s = 0;
  for (const auto& x : lab.exercises) s += x.wall_s;
  return s;
}

// What a student reads under one exercise: status, tests, times, % of ceiling, points, and the first failure.
std::string exercise_report(const ExerciseResult& x) {
  std::string out = fmt::format("status: {}\n", to_string(x.status));
  if (x.status != Status::kNoBinary) out += fmt::format("tests passed: {}/{}\n", x.tests_passed, x.tests_total);
  if (const auto& t = x.timing) {
    const auto ms = [](const std::optional<RunnerTiming>& r) { return r ? format_ms(r->median_ms) : "not timed"; };
    out += fmt::format("median ms: student {}, reference {}, baseline {}\n", format_ms(t->student.median_ms),
                       ms(t->reference), ms(t->baseline));
    if (t->student.rate) out += fmt::format("rate: {:.1f} {}\n", *t->student.rate, t->unit);
    if (t->percent_of_ceiling)
      out += fmt::format("{:.1f}% of the ceiling{}\n", *t->percent_of_ceiling,
                         t->ceiling_what.empty() ? "" : " (" + t->ceiling_what + ")");
  }
  out += fmt::format("points: correctness {:.2f}/{:g}, performance {:.2f}/{:g}\n", x.score.correctness,
                     x.correctness_max, x.score.performance, x.performance_max);
  if (!x.message.empty()) out += fmt::format("{}: {}\n", x.status == Status::kOk ? "note" : "first failure", x.message);
  return out;
}

std::string number_text(double value) { return fmt::format("{:.2f}", value); }

// Gradescope's test status: "passed" only at full marks, so that a test shown green is one with nothing left to earn
// (an `ok` exercise at 4/10 of its performance points is "failed", its output says why). The tolerance absorbs the
// rounding of a sum of fractional points, far below the 0.01 the reports print.
bool full_marks(const ExerciseResult& x) { return x.status == Status::kOk && x.score.total >= x.max_score() - 1e-9; }

// Gradescope renders an output as HTML unless told otherwise: "std::vector<int>" would read "std::vector".
constexpr const char* kGradescopeFormat = "text";

}  // namespace

json gradescope_results(const StudentGrades& student) {
  json tests = json::array();
  double score = 0, seconds = 0;
  std::string summary;
  for (const auto& lab : student.labs) {
    summary += fmt::format("lab{} {}: {:.2f}/{:g}{}\n", lab.number, lab.title, lab.score(), lab.max_score(),
                           lab.built ? "" : " (" + lab.message + ")");
    score += lab.score();
    seconds += lab_seconds(lab);
    int index = 0;
    for (const auto& x : lab.exercises) {
      tests.push_back({{"name", fmt::format("lab{} {}", lab.number, x.name)},
                       {"number", fmt::format("{}.{}", lab.number, ++index)},
                       {"score", x.score.total},
                       {"max_score", x.max_score()},
                       {"status", full_marks(x) ? "passed" : "failed"},
                       {"output", exercise_report(x)},
                       {"output_format", kGradescopeFormat},
                       {"visibility", "visible"}});
    }
  }
  if (student.labs.size() > 1) summary += fmt::format("weighted total: {:.1f}%\n", weighted_percent(student.labs));
  if (!student.error.empty()) summary += student.error + "\n";
  return {{"score", student.has_results ? score : 0.0},
          {"execution_time", static_cast<long>(std::lround(seconds))},
          {"output", summary},
          {"output_format", kGradescopeFormat},
          {"visibility", "visible"},
          {"stdout_visibility", "hidden"},  // the build log may show the course's paths: instructors only
          {"tests", std::move(tests)}};
}

std::string junit_xml(const Gradebook& book) {
  std::string suites;
  int tests = 0, failures = 0, errors = 0;
  double seconds = 0;
  const auto property = [](std::string_view name, std::string_view value) {
    return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name), xml_escape(value));
  };
  // A suite of one test case: "<suite>" > "<name>" holding `body`, an error or a skipped element.
  const auto single = [](std::string_view suite, std::string_view name, bool skipped, std::string_view body) {
    return fmt::format("  <testsuite name=\"{0}\" tests=\"1\" failures=\"0\" errors=\"{2}\" skipped=\"{3}\" "
                       "time=\"0\">\n    <testcase name=\"{1}\" classname=\"{0}\" time=\"0\">\n      {4}\n    "
                       "</testcase>\n  </testsuite>\n",
                       suite, name, skipped ? 0 : 1, skipped ? 1 : 0, body);
  };
  const auto error = [](std::string_view type, std::string_view message) {
    return fmt::format("<error message=\"{0}\" type=\"{1}\">{0}</error>", xml_escape(message), xml_escape(type));
  };
  const auto skip = [](std::string_view message) {
    return fmt::format("<skipped message=\"{}\"/>", xml_escape(message));
  };
  for (const auto& s : book.students) {
    if (!s.has_results && s.builds.empty()) {  // no labs to report: one error, so that the student is not lost
      suites += single(xml_escape(s.student), "results", false, error("no-results", s.error));
      ++tests;
      ++errors;
      continue;
    }
    if (!s.has_results) {  // a batch record: per lab, how its build went; a lab not handed in is skipped
      for (const auto& b : s.builds) {
        const auto suite = xml_escape(fmt::format("{}.lab{}", s.student, b.lab));
        const auto why = b.message.empty() ? b.outcome : b.message;
        suites += single(suite, "build", b.missing(), b.missing() ? skip(why) : error(b.outcome, why));
        ++tests;
        if (!b.missing()) ++errors;
      }
      continue;
    }
    for (const auto& lab : s.labs) {
      const auto suite = xml_escape(fmt::format("{}.lab{}", s.student, lab.number));
      const bool missing = s.missing(lab.number);  // not handed in: each exercise skipped, none failed
      std::string props = property("student", s.student) + property("lab", std::to_string(lab.number)) +
                          property("title", lab.title) + property("score", fmt::format("{}", lab.score())) +
                          property("max_score", fmt::format("{}", lab.max_score())) +
                          property("weight", fmt::format("{}", lab.weight));
      std::string cases;
      int failed = 0, skipped = 0;
      for (const auto& x : lab.exercises) {
        props += property(x.name + ".score", fmt::format("{}", x.score.total)) +
                 property(x.name + ".max_score", fmt::format("{}", x.max_score()));
        std::string body;
        if (missing) {
          ++skipped;
          body = "      " + skip(lab.message.empty() ? "no submission" : lab.message) + "\n";
        } else if (x.status != Status::kOk) {
          ++failed;
          const auto status = std::string(to_string(x.status));
          body = fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                             xml_escape(status + (x.message.empty() ? "" : ": " + x.message)), xml_escape(status),
                             xml_escape(x.message));
        }
        body += fmt::format("      <system-out>{}</system-out>\n", xml_escape(exercise_report(x)));
        cases += fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3f}\">\n{}    </testcase>\n",
                             xml_escape(x.name), suite, x.wall_s, body);
      }
      suites += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                            "time=\"{:.3f}\">\n    <properties>\n{}    </properties>\n{}  </testsuite>\n",
                            suite, lab.exercises.size(), failed, skipped, lab_seconds(lab), props, cases);
      tests += static_cast<int>(lab.exercises.size());
      failures += failed;
      seconds += lab_seconds(lab);
    }
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"grade\" tests=\"{}\" "
                     "failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n{}</testsuites>\n",
                     tests, failures, errors, seconds, suites);
}

std::string csv_table(const Gradebook& book) {
  std::set<int> labs;              // every lab any student has or was built for, in lab order: one column each
  std::map<int, double> possible;  // its points possible: the most any student's record gives
  const auto note_possible = [&](int lab, double points) { possible[lab] = std::max(possible[lab], points); };
  for (const auto& s : book.students) {
    for (const auto& lab : s.labs) {
      labs.insert(lab.number);
      note_possible(lab.number, lab.max_score());
    }
    for (const auto& b : s.builds) {
      labs.insert(b.lab);
      if (b.max_score) note_possible(b.lab, *b.max_score);
    }
  }
  std::string out = "student";
  for (int n : labs) out += fmt::format(",lab{}", n);
  out += ",weighted_percent,error\r\n";
  out += "points possible";  // what a gradebook import takes as each column's maximum
  for (int n : labs) {
    out += ',';
    if (const auto it = possible.find(n); it != possible.end()) out += number_text(it->second);
  }
  out += fmt::format(",{},\r\n", number_text(100));
  for (const auto& s : book.students) {
    out += csv_field(s.student);
    // Why a lab has no points: the record's error, or, in a results file, each unbuilt lab's message.
    std::string reason = s.error;
    for (const auto& lab : s.labs)
      if (s.error.empty() && !lab.built && !lab.message.empty())
        reason += fmt::format("{}lab{}: {}", reason.empty() ? "" : "; ", lab.number, lab.message);
    for (int n : labs) {
      const auto it = std::find_if(s.labs.begin(), s.labs.end(), [&](const LabResult& l) { return l.number == n; });
      out += ',';
      // A lab graded, or not built (it is in the results at 0), has its points; where the student has no results,
      // nothing was built: 0 for each lab of the record's builds, or of every column in a record without them. A
      // lab the student's batch did not grade stays empty.
      if (it != s.labs.end()) out += number_text(it->score());
      else if (!s.has_results && (s.builds.empty() || s.build_of(n) != nullptr)) out += number_text(0);
    }
    out += ',';
    out += number_text(s.has_results ? weighted_percent(s.labs) : 0.0);
    out += ',';
    out += csv_field(capped(reason));
    out += "\r\n";
  }
  return out;
}

}  // namespace grader
