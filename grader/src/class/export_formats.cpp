// The gradebook formats of `grade export`: Gradescope's autograder results.json (its published specification:
// top-level score, tests[] with name, score, max_score, status, output, visibility), JUnit XML as CI systems read it
// (testsuites > testsuite > testcase, the Ant/Jenkins layout), an RFC 4180 CSV for spreadsheets, and the CSV files
// that Canvas's and Moodle's gradebook imports read (canvas_csv, moodle_csv: what each importer requires is written
// beside them, from the importers' own code).

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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

namespace {

// Every lab any student has or was built for, in lab order: one column each, with its points possible, the most any
// student's record gives (none where no record gives one: a lab only named by builds of an older batch).
std::map<int, std::optional<double>> lab_columns(const Gradebook& book) {
  std::map<int, std::optional<double>> labs;
  const auto note = [&](int lab, std::optional<double> points) {
    auto& possible = labs[lab];
    if (points) possible = std::max(possible.value_or(*points), *points);
  };
  for (const auto& s : book.students) {
    for (const auto& lab : s.labs) note(lab.number, lab.max_score());
    for (const auto& b : s.builds) note(b.lab, b.max_score);
  }
  return labs;
}

// A student's points in lab `n`. A lab graded, or not built (it is in the results at 0), has its points; where the
// student has no results, nothing was built: 0 for each lab of the record's builds, or of every column in a record
// without them. A lab the student's batch did not grade at all has none (shards of different --labs merged).
std::optional<double> lab_points(const StudentGrades& s, int n) {
  const auto it = std::find_if(s.labs.begin(), s.labs.end(), [&](const LabResult& l) { return l.number == n; });
  if (it != s.labs.end()) return it->score();
  if (!s.has_results && (s.builds.empty() || s.build_of(n) != nullptr)) return 0.0;
  return std::nullopt;
}

std::string points_cell(std::optional<double> points) { return points ? number_text(*points) : ""; }

// Appends ",field" to a CSV line.
void next_field(std::string& line, std::string_view field) {
  line += ',';
  line += field;
}

}  // namespace

std::string csv_table(const Gradebook& book) {
  const auto labs = lab_columns(book);
  std::string out = "student";
  for (const auto& [n, possible] : labs) out += fmt::format(",lab{}", n);
  out += ",weighted_percent,error\r\n";
  out += "points possible";  // what a gradebook import takes as each column's maximum
  for (const auto& [n, possible] : labs) next_field(out, points_cell(possible));
  out += fmt::format(",{},\r\n", number_text(100));
  for (const auto& s : book.students) {
    out += csv_field(s.student);
    // Why a lab has no points: the record's error, or, in a results file, each unbuilt lab's message.
    std::string reason = s.error;
    for (const auto& lab : s.labs)
      if (s.error.empty() && !lab.built && !lab.message.empty())
        reason += fmt::format("{}lab{}: {}", reason.empty() ? "" : "; ", lab.number, lab.message);
    for (const auto& [n, possible] : labs) next_field(out, points_cell(lab_points(s, n)));
    out += ',';
    out += number_text(s.has_results ? weighted_percent(s.labs) : 0.0);
    out += ',';
    out += csv_field(capped(reason));
    out += "\r\n";
  }
  return out;
}

// The LMS imports. What each importer requires, read from its code (both open source), since a file that parses as
// CSV can still be refused or, worse, half imported:
//
// Canvas (Grades > Import; the guide "How do I import grades in the Gradebook?",
// https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807, and its
// implementation, canvas-lms app/models/gradebook_importer.rb):
// - The header row is the student columns, then assignments. It is accepted only when its first cell contains
//   "Student" and its second "ID"; after those, "SIS User ID" then "SIS Login ID" (or "SIS Login ID" alone) are
//   student columns, and the last student column must contain "Section". Every other column is an assignment: a
//   header "Title (12345)" is assignment 12345, else the assignment titled exactly so, else a new assignment. So
//   a stray column (an error message, a percentage) becomes a new assignment: there is none here.
// - A row whose first cell contains "Points Possible" sets each new assignment's points.
// - A student row is matched by ID (Canvas's user id), else SIS User ID, else SIS Login ID, else by name: we write the
//   SIS Login ID. A cell is a score; an empty cell is no score (no change where the gradebook has none; where it has
//   one, the import lists the change to none on its confirmation page).
// - Ruby's CSV reads it (quotes doubled, CRLF fine); the first three lines decide between ',' and ';' by a steady
//   field count, which every row here has.
//
// Moodle (Grades > Import > CSV file; https://docs.moodle.org/en/Grade_import, implemented by
// grade/import/csv/classes/load_data.php and lib/csvlib.class.php):
// - Every row must have the header's field count ("csvweirdcolumns"); the header names the columns, and at import
//   the teacher maps one column to the user ("Map from" login, "Map to" username, email address or ID number) and
//   each other column to a grade item (or a new one named by the header).
// - Every data row is a student: a row whose user is not found stops the whole import, so there is no
//   points-possible row (Moodle keeps each grade item's maximum). A grade cell is a number; "-" is no grade, for an
//   existing grade item and a new one alike ("" is too for an existing one; a new one records "" as its grade);
//   anything else ("badgrade") stops the import. Grades above 100 need the site's unlimitedgrades setting.
// - Older Moodles split lines on the delimiter without reading quotes: no field written here needs quoting.
namespace {

// How a student appears in an LMS import: their roster entry, or their batch name as both login and name.
GradebookIdentity identity_of(const StudentGrades& s, const ImportOptions& options) {
  if (options.roster.empty()) return {s.student, s.student};
  const auto it = options.roster.find(s.student);
  if (it == options.roster.end())
    throw ExportError(fmt::format("student '{}' is not in the roster: the import could not match the row", s.student));
  auto identity = it->second;
  if (identity.name.empty()) identity.name = s.student;
  return identity;
}

// Text that an LMS import matches verbatim cannot get csv_field's leading ' (it would no longer match), and a
// spreadsheet would evaluate it without one: such a login or column name is refused, not altered.
void require_plain(std::string_view what, std::string_view text, bool no_quoting) {
  if (text.empty()) throw ExportError(fmt::format("{} is empty: the import could not match it", what));
  if (std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos)
    throw ExportError(fmt::format("{} '{}' starts with '{}': a spreadsheet would evaluate it as a formula", what,
                                  text, text.front()));
  if (no_quoting && text.find_first_of(",\"\r\n") != std::string_view::npos)
    throw ExportError(fmt::format("{} '{}' holds a comma, quote or line break, which Moodle's CSV reader may split",
                                  what, text));
}

// The rows of an LMS import: each student's identity (logins unique) and points per column.
struct ImportTable {
  std::map<int, std::optional<double>> labs;  // lab -> points possible
  std::vector<std::string> columns;           // the labs' column names, in lab order
  std::vector<std::pair<GradebookIdentity, std::vector<std::optional<double>>>> rows;
};

ImportTable import_table(const Gradebook& book, const ImportOptions& options, bool no_quoting) {
  ImportTable table;
  table.labs = lab_columns(book);
  for (const auto& [n, name] : options.columns)
    if (!table.labs.contains(n))
      throw ExportError(fmt::format("a column is named for lab {}, which no student's results hold", n));
  std::set<std::string> names;
  for (const auto& [n, possible] : table.labs) {
    const auto it = options.columns.find(n);
    auto name = it != options.columns.end() ? it->second : fmt::format("Lab {}", n);
    require_plain(fmt::format("the column of lab {}", n), name, no_quoting);
    if (!names.insert(name).second) throw ExportError(fmt::format("two labs' columns are both named '{}'", name));
    table.columns.push_back(std::move(name));
  }
  std::map<std::string, std::string> logins;  // login -> student, so that no two rows claim one gradebook user
  for (const auto& s : book.students) {
    auto identity = identity_of(s, options);
    require_plain(fmt::format("the login of student '{}'", s.student), identity.login, no_quoting);
    if (const auto [it, fresh] = logins.emplace(identity.login, s.student); !fresh)
      throw ExportError(fmt::format("students '{}' and '{}' both have the login '{}'", it->second, s.student,
                                    identity.login));
    std::vector<std::optional<double>> points;
    for (const auto& [n, possible] : table.labs) points.push_back(lab_points(s, n));
    table.rows.emplace_back(std::move(identity), std::move(points));
  }
  return table;
}

}  // namespace

std::string canvas_csv(const Gradebook& book, const ImportOptions& options) {
  const auto table = import_table(book, options, false);
  // Canvas reads columns of these names, or holding these phrases, as student or total columns, not assignments
  // (gradebook_importer.rb's GRADEBOOK_IMPORTER_RESERVED_NAMES and NON_ASSIGNMENT_COLUMN_HEADERS): a lab so named
  // would vanish from the import.
  static const std::set<std::string_view> kReserved = {
      "Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID", "Section", "Integration ID",
      "Root Account"};
  static const std::string_view kTotals[] = {"Current Score", "Current Points", "Current Grade",
                                             "Final Score",   "Final Points",   "Final Grade",
                                             "Override Score", "Override Grade", "Override Status"};
  for (const auto& name : table.columns) {
    const bool total = std::any_of(std::begin(kTotals), std::end(kTotals),
                                   [&](std::string_view t) { return name.find(t) != std::string::npos; });
    if (kReserved.contains(name) || total)
      throw ExportError(fmt::format("the column '{}' is one Canvas reads as a student or total column, not an "
                                    "assignment", name));
  }
  std::string out = "Student,ID,SIS User ID,SIS Login ID,Section";
  for (const auto& name : table.columns) next_field(out, csv_field(name, false));
  out += "\r\nPoints Possible,,,,";
  for (const auto& [n, possible] : table.labs) next_field(out, points_cell(possible));
  out += "\r\n";
  for (const auto& [who, points] : table.rows) {
    // ID and SIS User ID empty: Canvas then matches the SIS Login ID.
    out += fmt::format("{},,,{},", csv_field(who.name), csv_field(who.login, false));
    for (const auto& p : points) next_field(out, points_cell(p));
    out += "\r\n";
  }
  return out;
}

std::string moodle_csv(const Gradebook& book, const ImportOptions& options) {
  const auto table = import_table(book, options, true);
  std::string out = "login";
  for (const auto& name : table.columns) next_field(out, name);
  out += "\r\n";
  for (const auto& [who, points] : table.rows) {
    out += who.login;
    for (const auto& p : points) next_field(out, p ? number_text(*p) : "-");  // "-": no grade
    out += "\r\n";
  }
  return out;
}

}  // namespace grader
