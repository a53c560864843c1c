#pragma once
/// @file batch.hpp
/// @brief `grade batch`: grades a whole class, one private build per student and lab, and `grade merge`, which
/// combines the per-student results into one class file (docs/batch.md).
///
/// A student's file is compiled against the objects the course's build already made, with the commands CMake wrote
/// into build/submission/labN.json (cmake/SubmissionRecipe.cmake); the result is graded by the lab binary like any
/// other implementation, from a private folder that holds the lab binary and the student's runner.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/discovery.hpp"
#include "grader/manifest.hpp"

namespace grader::batch {

/// How to build one lab's submission (build/submission/labN.json).
struct Recipe {
  int lab = 0;
  std::string id;                      ///< the lab folder's name
  std::filesystem::path lab_binary;    ///< the course's labN
  std::filesystem::path runners_dir;   ///< the course's runners: reference, baseline, ...
  std::filesystem::path contract;      ///< the lab's contract folder: with the student's file, all a compile reads
  std::vector<std::string> compile;    ///< argv with {source} and {object}
  std::vector<std::string> check;      ///< argv with {source} and {object}; empty: no static check
  std::vector<std::string> link;       ///< argv with {object} and {output}
};

/// Reads a recipe; throws std::runtime_error naming the file and what is wrong.
Recipe load_recipe(const std::filesystem::path& file);

/// `argv` with every {name} replaced by its value.
std::vector<std::string> expand(const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& values);

/// One student and the file handed in for each lab (absent: no submission for that lab).
struct StudentFiles {
  std::string name;
  std::map<int, std::filesystem::path> files;  ///< by lab number
};

/// The file a student folder holds for `lab`: labN.cu, NN_name.cu, NN_name/student.cu or labN/student.cu, or
/// student.cu when `only_lab` (the batch grades this lab alone).
std::optional<std::filesystem::path> find_lab_file(const std::filesystem::path& student_dir, const LabEntry& lab,
                                                   bool only_lab);

/// The students of a submissions folder, sorted by name: one per subfolder (hidden ones skipped), or, where the
/// folder itself holds a lab's file (Gradescope's layout: one submission's files directly in it), one student named
/// `single_name` (the folder's name when empty).
std::vector<StudentFiles> find_students(const std::filesystem::path& submissions,
                                        const std::vector<const LabEntry*>& labs, const std::string& single_name = "");

/// Shard `index` of `count` (0-based): every count-th student of the sorted list, starting at `index`.
std::vector<StudentFiles> shard(const std::vector<StudentFiles>& students, int index, int count);

/// Parses "I/N" (0 <= I < N); throws std::invalid_argument.
std::pair<int, int> parse_shard(std::string_view text);

/// How building one lab's submission went.
struct BuildOutcome {
  enum class Kind { kBuilt, kNoSubmission, kCompileError, kRefused, kLinkError } kind = Kind::kNoSubmission;
  std::string message;               ///< for a row: "compile error: student.cu:3: error: ...", "refused: ..."
  std::filesystem::path bin_dir;     ///< kBuilt: the private folder to grade with (GradeOptions::bin_dir)
};

/// Compiles, checks and links `source` by `recipe` in `dir` (made if missing), then lays out `dir/bin`: labN (a hard
/// link or copy of the course's), runners/labN-student, and links to the
/// course's other runners. Every command runs through run_process() with `timeout_s`.
BuildOutcome build_submission(const Recipe& recipe, const std::filesystem::path& source,
                              const std::filesystem::path& dir, double timeout_s);

/// The first line of compiler or linker output that reports an error ("file:line: error: ...", "undefined
/// reference to ..."), else its last line.
std::string first_error_line(std::string_view output);

/// Writes `value` to `file` so that a reader sees the old file or the whole new one: a temporary file beside it,
/// then rename. Throws std::runtime_error when it cannot.
void write_atomically(const std::filesystem::path& file, const nlohmann::json& value);

/// One student's row of the class file: {"student", "results": <results file or null>, "error": null or text}.
/// `file` is a per-student file that `grade batch` wrote (a results file with "student" and "error" added).
nlohmann::json class_row(const nlohmann::json& file);

/// The class file from per-student files, folders of them (a batch's results folder or its students/ folder) and
/// class files (shards): {"schema": 1, "kind": "class", "date", "commit", "students": [...]} sorted by student.
/// Throws std::runtime_error for an unreadable input or a student found twice.
nlohmann::json merge_class(const std::vector<std::filesystem::path>& inputs, const std::string& date,
                           const std::string& commit);

/// The end-of-batch summary: per lab the score distribution (min, median, max, count), the failures (no submission,
/// compile errors, refused, crashed), and the grading rate when `graded_now` students took `elapsed`.
std::string format_summary(const nlohmann::json& class_file, int graded_now, std::chrono::duration<double> elapsed);

/// One lab of a batch: what grading and building it needs.
struct LabSetup {
  const LabEntry* lab = nullptr;
  Manifest manifest;
  Recipe recipe;
};

/// What every worker of a batch shares.
struct BatchSetup {
  std::vector<LabSetup> labs;
  std::filesystem::path results;  ///< students/ and work/ are made in it
  std::string commit = "unknown";
  bool single_lab = false;        ///< errors are then written without the lab's name
  bool keep_work = false;         ///< keep work/STUDENT after the result is recorded
  double build_timeout_s = 600;
  std::optional<double> check_timeout_s, time_timeout_s;
  /// compute-sanitizer, run after the passing checks as `grade --sanitize` runs it (docs/sanitizer.md); empty:
  /// --no-sanitize, or none found
  std::optional<std::filesystem::path> sanitizer;
};

/// The build worker: builds each lab's file of `student` in results/work/STUDENT/labN and writes what happened to
/// results/work/STUDENT/build.json. Returns 0 (each failure is a row, not an error of the worker).
int build_student(const BatchSetup& setup, const StudentFiles& student);

/// The grading worker, on GPU `gpu` (CUDA_VISIBLE_DEVICES; "" leaves it as it is): grades what build_student()
/// built and writes results/students/STUDENT.json atomically. Returns 0, or 3 when the lab binary sees no GPU
/// (nothing is written: the student is still to grade).
int grade_student(const BatchSetup& setup, const StudentFiles& student, const std::string& gpu);

/// `grade batch ...` (argv[0] is "batch"): exit code. `labs_dir` is the default of --labs-dir.
int batch_main(int argc, char** argv, const std::string& labs_dir);
/// `grade merge ...` (argv[0] is "merge"): exit code.
int merge_main(int argc, char** argv);

/// Writes the Slurm job-array script and the dependent merge script into `dir`; returns the sbatch command line
/// that submits both. `batch_args` are the `grade batch` arguments each shard repeats (without --slurm options).
struct SlurmPlan {
  std::filesystem::path grade;                 ///< the grade executable
  std::vector<std::string> batch_args;         ///< SUBMISSIONS_DIR and options, as given
  std::filesystem::path results;               ///< the results folder (shared by every node)
  int array_size = 1;                          ///< shards
  std::string gres = "gpu:1";                  ///< --gres value; empty: no --gres line
  std::string partition;                       ///< empty: the cluster's default
  std::string time_limit = "04:00:00";
};
/// The two scripts' paths (batch.sbatch, merge.sbatch) and the shell command that submits them.
struct SlurmScripts {
  std::filesystem::path batch, merge;
  std::string submit_command;
};
SlurmScripts write_slurm_scripts(const SlurmPlan& plan, const std::filesystem::path& dir);

}  // namespace grader::batch
