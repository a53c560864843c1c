#pragma once
/// @file concepts.hpp
/// @brief `grade --concepts`: checks that a kernel uses the idea its lab teaches, read from the hardware rather than
/// from the clock (docs/concepts.md).
///
/// A fast kernel can be fast for another reason than the one the lab teaches; a concept check measures the idea
/// itself: lab 1's loads use every byte of each 32-byte sector, lab 2's warps run with all lanes active, lab 3's
/// kernels contain SHFL instructions, lab 6's padded transpose has (almost) no shared-memory bank conflicts, lab 7's
/// copies overlap. One mechanism, parameterized by the lab's manifest (`"concepts": [...]`), with three tools:
///   - `ncu`: Nsight Compute's counters of the exercise's kernels in the runner program of the graded
///     implementation, during one `labN check --seeds 1`; the value is sum(numerator) / sum(denominator) over every
///     profiled launch;
///   - `sass`: the count of one instruction in the runner's machine code (`cuobjdump -sass runners/labN-IMPL`), in the
///     functions whose name matches a pattern;
///   - `time_metric`: a number the lab's `time` already reported (`metrics` of the time results): no tool.
/// Points default to 0: the checks inform; where a tool is missing or may not read the counters, the check is
/// skipped and costs nothing. Everything here is text in and out, so CI tests it on recorded output without a GPU.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

/// How a concept check is measured.
enum class ConceptTool {
  kNcu,         ///< Nsight Compute counters during a check run
  kSass,        ///< an instruction count in the runner's SASS (cuobjdump)
  kTimeMetric,  ///< a metric of the exercise's time results
};

/// "ncu", "sass" or "time_metric": the tool's name in the manifest and in the results.
std::string_view to_string(ConceptTool tool);

/// One concept check of an exercise, as its lab's manifest declares it.
struct ConceptSpec {
  std::string exercise;  ///< the exercise it belongs to
  std::string name;      ///< short, e.g. "bytes used per sector"
  std::string why;       ///< one line for the student: what the number says about the kernel
  ConceptTool tool = ConceptTool::kTimeMetric;
  std::string unit;      ///< shown after the value, e.g. "B/sector" (may be empty)
  /// ncu: a regular expression on the kernel's function name (`ncu -k regex:...`).
  std::string kernel;
  /// ncu: metrics summed over every profiled launch, the value's numerator.
  std::vector<std::string> numerator;
  /// ncu: metrics summed likewise, the denominator; empty: the value is the numerator's sum.
  std::vector<std::string> denominator;
  /// sass: the instruction's mnemonic, e.g. "SHFL" (also counts SHFL.BFLY, SHFL.DOWN, ...).
  std::string instruction;
  /// sass: a regular expression searched in each function's (mangled) name; empty: every function.
  std::string function;
  /// time_metric: the key in the time results' `metrics`, e.g. "overlap_student".
  std::string metric;
  std::optional<double> min;  ///< the value must be at least this (at least one of min and max is set)
  std::optional<double> max;  ///< the value must be at most this
  double points = 0;          ///< earned when the value is in range; 0 (the default): informative only

  /// True when `value` is within [min, max].
  [[nodiscard]] bool in_range(double value) const;
  /// The expected range in words: ">= 24", "<= 0.5", "0.5 to 2".
  [[nodiscard]] std::string expected() const;
};

/// What one concept check gave.
struct ConceptResult {
  std::string name;
  std::string why;
  ConceptTool tool = ConceptTool::kTimeMetric;
  std::string unit;
  std::string expected;         ///< ConceptSpec::expected()
  std::optional<double> value;  ///< empty when the check could not be measured
  bool ok = false;              ///< value in range (false when not measured)
  double points = 0;            ///< points earned
  double points_max = 0;        ///< the manifest's points; 0 when not measured (a skipped check costs nothing)
  std::string skipped;          ///< why there is no value ("ncu not found", "no permission ..."), else empty
};

/// Measures `spec` from already gathered tool output; the functions below make that output.
ConceptResult concept_result(const ConceptSpec& spec, std::optional<double> value, std::string skipped);

/// One metric value of one profiled kernel launch, as ncu's `--csv` report lists it.
struct NcuRow {
  std::string id;       ///< the launch's "ID"
  std::string process;  ///< "Process Name", e.g. "lab6-student"
  std::string kernel;   ///< "Kernel Name"
  std::string metric;   ///< "Metric Name"
  std::string unit;     ///< "Metric Unit"
  std::optional<double> value;  ///< "Metric Value" without thousands separators, scaled to base units; empty if n/a
};

/// What ncu printed.
struct NcuReport {
  std::vector<NcuRow> rows;  ///< every data row after the CSV header (other output is ignored)
  std::string error;         ///< the first "==ERROR==" line, without the prefix, else empty
  bool no_permission = false;  ///< ERR_NVGPUCTRPERM: this user may not read the GPU's performance counters
};

/// Reads ncu's output (`--csv`, details page: a header line with "Process Name", "Kernel Name", "Metric Name",
/// "Metric Unit" and "Metric Value" among its quoted columns, then one row per metric and launch). Values may carry
/// thousands separators ("65,924,515") and, where ncu scaled them, a prefixed unit ("Kbyte", "Msector").
NcuReport parse_ncu_csv(std::string_view text);

/// sum(numerator) / sum(denominator) over the rows of the runner program `process` (the denominator is 1 when the
/// spec has none); empty with `why` filled in when the rows lack a metric, no launch ran there, or the denominator is 0.
std::optional<double> ncu_value(const NcuReport& report, const ConceptSpec& spec, std::string_view process,
                                std::string& why);

/// The ncu command measuring `metrics` of the kernels matching `kernel` during `lab_binary check --impl IMPL
/// --exercise EX --seeds 1`: every process is followed (`--target-processes all`: the kernels run in runner
/// programs), the GPU's clocks are left alone, units are base units and the report is CSV.
std::vector<std::string> ncu_command(const std::filesystem::path& ncu, const std::vector<std::string>& metrics,
                                     const std::string& kernel, const std::string& lab_binary,
                                     const std::string& impl, const std::string& exercise);

/// Most kernel launches one ncu run profiles (`--launch-count`): each costs several replays of the kernel.
inline constexpr int kNcuLaunchLimit = 64;

/// Seconds one ncu or cuobjdump run may take.
inline constexpr double kConceptTimeoutS = 300;

/// The machine code of one function in cuobjdump's output.
struct SassFunction {
  std::string name;  ///< as cuobjdump prints it after "Function : " (mangled)
  std::string arch;  ///< the "code for sm_XX" block it is in, e.g. "sm_90"
  std::map<std::string, int> mnemonics;  ///< instruction counts by full mnemonic ("SHFL.BFLY", "FADD", ...)
};

/// Reads `cuobjdump -sass` output: "code for sm_XX" blocks, "Function : NAME" headers and instruction lines
/// ("/*0200*/  @!P0 SHFL.DOWN PT, R5, R4, 0x10, 0x1f ;").
std::vector<SassFunction> parse_sass(std::string_view text);

/// How often `spec.instruction` (or any of its variants, "SHFL" counting "SHFL.BFLY") occurs in the functions matching
/// `spec.function`, in the highest architecture that has one; empty with `why` filled in when no function matches.
std::optional<int> sass_count(const std::vector<SassFunction>& functions, const ConceptSpec& spec, std::string& why);

/// `program` on this machine: the first of `path_env`'s folders (a PATH value) that holds it as an executable, else
/// `cuda_home`/bin (CUDA_HOME), else /usr/local/cuda/bin. nullopt when none has it.
std::optional<std::filesystem::path> find_cuda_tool(std::string_view program, std::string_view path_env,
                                                    std::string_view cuda_home);

/// The tools `grade --concepts` found, and what went wrong with them during this grade (said once, kept for every
/// later exercise). Shared by every lab graded.
struct ConceptTools {
  std::optional<std::filesystem::path> ncu;        ///< empty: not found
  std::optional<std::filesystem::path> cuobjdump;  ///< empty: not found
  /// Why ncu cannot measure on this machine after a run found out (no permission to the counters), else empty.
  std::string ncu_unusable;
};

}  // namespace grader
