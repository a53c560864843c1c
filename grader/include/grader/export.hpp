#pragma once
/// @file export.hpp
/// @brief Gradebook exports of grade results (`grade export`): Gradescope's results.json, JUnit XML and CSV.
///
/// Input is either one grade results file (schema 1, one student) or a class file written by `grade batch` /
/// `grade merge`: {"schema": 1, "kind": "class", "date", "commit", "students": [{"student", "results", "error"}]},
/// where "results" is a grade results file or null and "error" is null or why there are no results
/// ("compile error: ..."). docs/exports.md describes every format.

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

/// One student's graded labs, or why there are none.
struct StudentGrades {
  std::string student;
  bool has_results = false;     ///< false: no results (a compile error, a failed batch run): see `error`
  std::vector<LabResult> labs;  ///< the labs of the run exported (see read_gradebook)
  std::string error;            ///< the class file's "error", else empty
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

/// JUnit XML: a testsuite per student and lab, a testcase per exercise, a failure for every exercise not `ok`.
std::string junit_xml(const Gradebook& book);

/// CSV (RFC 4180, CRLF line ends): student, labN totals, weighted_percent, error; one row per student.
std::string csv_table(const Gradebook& book);

/// `text` escaped for XML 1.0 text and attribute values; characters XML 1.0 cannot hold become U+FFFD.
std::string xml_escape(std::string_view text);

/// One CSV field: quoted when it holds a comma, quote, CR or LF (quotes doubled). Text starting with = + - @ or a tab
/// gets a leading ' so that a spreadsheet shows it instead of evaluating it (`text_cell` only: numbers keep a -).
std::string csv_field(std::string_view text, bool text_cell = true);

/// A file name for a student's export: letters, digits, '.', '-' and '_' kept, everything else '_'.
std::string file_name_for(std::string_view student);

}  // namespace grader
