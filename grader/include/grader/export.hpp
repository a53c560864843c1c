#pragma once
/// @file export.hpp
/// @brief Gradebook exports of grade results (`grade export`): Gradescope's results.json, JUnit XML, CSV, and the
/// gradebook imports of Canvas and Moodle.
///
/// Input is either one grade results file (schema 1, one student) or a class file written by `grade batch` /
/// `grade merge`: {"schema": 1, "kind": "class", "date", "commit", "students": [{"student", "results", "error",
/// "builds"}]}, where "results" is a grade results file or null, "error" is null or why there are no results
/// ("compile error: ..."), and "builds" (absent in files of older batches) says per lab how its build went.
/// docs/exports.md describes every format.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/lab_run.hpp"

namespace grader {

/// A results or class file that cannot be exported; what() names the field at fault.
class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How `grade batch` built one lab of a student: an entry of a class row's "builds" (docs/batch.md).
struct LabBuild {
  int lab = 0;
  std::string outcome;  ///< "built", "no submission", "compile error", "refused" or "link error"
  std::string message;  ///< why it was not built ("refused: ..."), else empty
  std::optional<double> max_score;  ///< the lab's points possible, where the record gives them

  bool built() const { return outcome == "built"; }
  bool missing() const { return outcome == "no submission"; }
};

/// The builds of a class row ("builds": [{"lab", "outcome", "message", "max_score"}]); empty where the row has none
/// (a results file, a class file of an older batch). Throws ExportError for a malformed entry.
std::vector<LabBuild> builds_from_json(const nlohmann::json& row);

/// One student's graded labs, or why there are none.
struct StudentGrades {
  std::string student;
  bool has_results = false;     ///< false: no results (a compile error, a failed batch run): see `error`
  std::vector<LabResult> labs;  ///< the labs of the run exported (see read_gradebook)
  std::string error;            ///< the class file's "error", else empty
  std::vector<LabBuild> builds; ///< the class row's "builds", else empty

  /// The build of lab `number` where the row records one, else nullptr.
  const LabBuild* build_of(int number) const;
  /// Whether lab `number` was not handed in: its build says "no submission" or, in a record without builds, its
  /// lab was not built and its message is exactly "no submission" (what `grade batch` writes).
  bool missing(int number) const;
};

/// Everything an export writes: one student (a results file) or a class.
struct Gradebook {
  bool is_class = false;
  std::string date, commit;
  std::vector<StudentGrades> students;
};

/// Reads a results file or a class file. Of each results file, the last run whose impl is "student" is exported, or
/// the only run when there is one. `student` names the student of a plain results file. Throws ExportError.
Gradebook read_gradebook(const nlohmann::json& file, const std::string& student = "student");

/// One lab of a results file (the inverse of to_json(LabResult) for what the exports use). Throws ExportError.
LabResult lab_from_json(const nlohmann::json& lab);

/// Gradescope's autograder results.json for one student: top-level score, one test per exercise ("lab1 scale").
nlohmann::json gradescope_results(const StudentGrades& student);

/// JUnit XML: a testsuite per student and lab, a testcase per exercise, a failure for every exercise not `ok`, and
/// a skipped test for every exercise of a lab the student did not hand in.
std::string junit_xml(const Gradebook& book);

/// CSV (RFC 4180, CRLF line ends): student, labN totals, weighted_percent, error; a "points possible" row, then one
/// row per student. A lab that was not built (refused, compile error, no submission) is 0 with its reason in error.
std::string csv_table(const Gradebook& book);

/// Who a student is in an LMS gradebook: the login its import matches the row by, and the name shown beside it.
struct GradebookIdentity {
  std::string login;  ///< Canvas: the SIS Login ID; Moodle: the username, email address or ID number mapped to
  std::string name;   ///< the Student column of a Canvas import (Moodle's import has none)
};

/// A student as `grade batch` names them (the submission folder's name) -> their gradebook identity.
using Roster = std::map<std::string, GradebookIdentity>;

/// Reads a roster CSV (RFC 4180; a header row naming the columns `student` and `login`, optionally `name`), e.g.
/// `student,login,name` / `alice,asmith@uni.edu,"Smith, Alice"`. Throws ExportError for a malformed file, a missing
/// column, an empty student or login, or a student listed twice.
Roster roster_from_csv(std::string_view text);

/// How the LMS imports name rows and columns.
struct ImportOptions {
  /// Each student's identity; where empty, every student's login and name are its batch name (the submission
  /// folder's name must then be the gradebook's login). Where given, a student missing from it is an ExportError.
  Roster roster;
  /// Lab number -> its column's name (Canvas: an assignment's title, or "Lab 1 (12345)" with the assignment's id);
  /// a lab not named here is "Lab N".
  std::map<int, std::string> columns;
};

/// Canvas's gradebook import (Grades > Import): the columns Student, ID, SIS User ID, SIS Login ID, Section, then
/// one column per lab; a "Points Possible" row; one row per student, keyed by SIS Login ID. Throws ExportError for
/// an identity the import would not match (empty, or a login starting with = + - @) or two students of one login.
std::string canvas_csv(const Gradebook& book, const ImportOptions& options = {});

/// Moodle's "Import grades from CSV": a `login` column (mapped to username, email address or ID number at import)
/// and one column per lab, numbers or "-" (no grade); no points-possible row (Moodle keeps each grade item's
/// maximum). Throws
/// ExportError as canvas_csv does, and for a login or column name holding a comma, quote or line break.
std::string moodle_csv(const Gradebook& book, const ImportOptions& options = {});

/// The most characters (code points) a CSV text field holds; a longer one is cut and ends with "...".
inline constexpr std::size_t kCsvFieldMax = 500;

/// `text` cut to at most `max` code points, the last three of them "..." when it was cut; never inside a UTF-8
/// sequence.
std::string capped(std::string_view text, std::size_t max = kCsvFieldMax);

/// `text` escaped for XML 1.0 text and attribute values; characters XML 1.0 cannot hold become U+FFFD.
std::string xml_escape(std::string_view text);

/// One CSV field: quoted when it holds a comma, quote, CR or LF (quotes doubled). Text starting with = + - @ or a tab
/// gets a leading ' so that a spreadsheet shows it instead of evaluating it (`text_cell` only: numbers keep a -).
std::string csv_field(std::string_view text, bool text_cell = true);

/// A file name for a student's export: letters, digits, '.', '-' and '_' kept, everything else '_'.
std::string file_name_for(std::string_view student);

}  // namespace grader
