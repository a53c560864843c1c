#pragma once
/// @file manifest.hpp
/// @brief A lab's grading manifest (`labs/NN_name/manifest.json`): points, timeouts and what its stub must do.
///
/// Instructors edit manifests without recompiling, so every field is checked and every error names the file and the
/// field (`labs/01_coalescing/manifest.json: field 'exercises[1].stub': ...`).

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "grader/concepts.hpp"
#include "grader/sanitize.hpp"

namespace grader {

/// A manifest that cannot be used; what() names the file and the field.
class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the shipped stub of an exercise is expected to do (checked by `grade --self-check`).
enum class StubKind {
  kSlow,       ///< passes every test and earns at most 10% of the performance points
  kIncorrect,  ///< fails at least one test by design
};

/// "slow" or "incorrect".
std::string_view to_string(StubKind kind);

/// One exercise of a lab and its points.
/// `"graded_by": {"metric": "overlap", "full_marks_at": 0.8}`: an exercise whose performance fraction comes from a
/// number the lab's `time` reports for the student and the reference (`<metric>_student`, `<metric>_reference`, each
/// 0 at the baseline and higher when better, with their standard errors) rather than from the times themselves:
/// lab 07's pipelines, whose time scale is a different width on two machines of one kind while the share of the
/// overlap they reach is not (grader/formula.cpp).
struct GradedBy {
  std::string metric;          ///< the stem: "overlap" reads overlap_student and overlap_reference
  double full_marks_at = 0.8;  ///< full marks at this share of the reference's value (0 < it <= 1)
  /// No points at or below this value of the metric (`"zero_at"`, default 0): what the baseline's own code drew when
  /// timed as the student, so that a value the noise between two processes gives earns nothing.
  double zero_at = 0;
};

struct ExerciseSpec {
  std::string name;                ///< as the lab binary knows it (`--exercise NAME`)
  double correctness_points = 0;   ///< shared among the tests (partial credit)
  double performance_points = 0;   ///< scaled by the performance fraction
  StubKind stub = StubKind::kSlow;
  /// The % of its ceiling the reference reaches on the course's GPU (`"reference_percent_of_ceiling"`, optional):
  /// a run whose reference falls far below it is not graded (status invalid-run, grader/lab_run.hpp).
  std::optional<double> reference_percent_of_ceiling;
  /// `grade --concepts`: the checks the manifest's top-level `"concepts"` list gives this exercise (docs/concepts.md).
  std::vector<ConceptSpec> concepts;
  /// Where the scale's zero lies at the latest, as a multiple of the reference's time (`"zero_at_most"`, optional,
  /// above full_marks_at): for a baseline whose time is the host's more than the code's, the grade counts
  /// min(baseline, zero_at_most * reference) as the baseline's time (formula.cpp). 0: the baseline's time.
  double zero_at_most = 0;
  /// How much faster than the baseline's time a kernel must be before it earns anything (`"zero_margin"`, a fraction,
  /// default 0): the scale's zero is baseline / (1 + zero_margin), for an exercise whose baseline code, timed as the
  /// student, ran that much faster than in the baseline's own process of the same run (formula.cpp).
  double zero_margin = 0;
  /// Where the performance fraction comes from when not from the times (`"graded_by"`, optional).
  std::optional<GradedBy> graded_by{};

  /// correctness_points + performance_points.
  double max_score() const { return correctness_points + performance_points; }
};

/// What a lab lets its submissions use beyond the course's strict default, which the build's static check
/// (grader/static_check.hpp) enforces: `"rules": {"allow_symbols": [...], "allow_headers": [...],
/// "allow_instructions": [...]}`. Each entry is a glob where `*` matches any run of characters.
struct SubmissionRules {
  /// External symbols the submission may use: C names ("cudaStreamCreate*") or demangled C++ names.
  std::vector<std::string> allow_symbols;
  /// Headers it may include, matched against the tail of each included path ("cub/*").
  std::vector<std::string> allow_headers;
  /// PTX instructions its device code may contain ("mma.sync*").
  std::vector<std::string> allow_instructions;
};

/// The parsed `manifest.json` of one lab.
struct Manifest {
  std::string title;
  double weight = 1.0;           ///< the lab's weight in `grade all`'s weighted total
  double check_timeout_s = 120;  ///< limit of one `labN check` run
  double time_timeout_s = 300;   ///< limit of one `labN time` run
  double sanitize_timeout_s = kSanitizeTimeoutS;  ///< limit of one compute-sanitizer run (`timeouts.sanitize_s`)
  /// Seconds of timed rounds after which `labN time` stops sampling once every runner has three samples
  /// (`"sampling_s"`, passed as --max-seconds; unset: the lab binary's 3 s). A lab whose runs stay noisier than 1%
  /// (lab 07's copies over the host link) otherwise always samples to the cap.
  std::optional<double> sampling_s;
  double full_marks_at = 1.1;    ///< full performance points at or below this multiple of the reference time
  /// `"host_link": true`: the timed runs move data between host and GPU (lab 07's copies), so one worker's timed run
  /// is slowed by another's traffic over the host: in `grade batch` each exercise's timed runs take a turn on the
  /// host (harness/host_link.hpp), whatever GPU each worker grades on.
  bool host_link = false;
  /// `"work_queues"` (1 to 32, default 1): the hardware work queues of every CUDA process of the lab (its referee,
  /// runners and the tools around them), as CUDA_DEVICE_MAX_CONNECTIONS. CUDA's own default, 8, makes a context take
  /// about twice as long to make and to end, and a host makes contexts one at a time (experiments/context_cost), while
  /// a lab whose code runs on one stream has no use for more than one queue. A lab whose submissions overlap work on
  /// several streams (lab 07) gives them 8, or its streams would wait on each other in one queue.
  int work_queues = 1;
  /// `"check_apart": true`: each exercise's check in a run of its own, all at once, instead of one run for all. A
  /// worker's first timed turn waits for every lab's checks, and a lab whose one check run takes several times any
  /// other's (lab 07's, three exercises of 256 MiB arrays in host memory) holds them all: at the cost of two CUDA
  /// contexts a run more, its runs end with the others'. Such a lab's checks never go on to time (checks_then_time()).
  bool check_apart = false;
  std::vector<ExerciseSpec> exercises;
  SubmissionRules rules;         ///< empty unless the lab widens the default
  /// The compute-sanitizer tools `grade --sanitize` runs on each exercise (`"sanitize": ["memcheck", "racecheck"]`,
  /// optional: none when missing); docs/sanitizer.md.
  std::vector<SanitizerTool> sanitize;
};

/// Parses manifest text; `source` (the file name) prefixes every error message. Throws ManifestError.
Manifest parse_manifest(std::string_view text, const std::string& source);

/// Reads and parses a manifest file. Throws ManifestError.
Manifest load_manifest(const std::filesystem::path& file);

}  // namespace grader
