#pragma once
/// @file sanitize.hpp
/// @brief `grade --sanitize`: runs `labN check` on a few small shapes under NVIDIA compute-sanitizer, and reads what
/// the tool found (docs/sanitizer.md).
///
/// A kernel can be right on every test and still write past a shared-memory array, race on a tile, or shuffle with a
/// mask that leaves lanes out: undefined behaviour that happens to give the right numbers on this GPU today. The
/// sanitizer sees those. Everything here is plain text in and out (the command line, the tool's report), so CI tests
/// it on captured output without a GPU; sanitizer_runs.cpp runs the command and turns a finding into a status.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

/// The compute-sanitizer tools a lab's manifest may name in `"sanitize": [...]`.
enum class SanitizerTool {
  kMemcheck,   ///< out-of-bounds and misaligned accesses to global, local and shared memory
  kRacecheck,  ///< shared-memory hazards between threads of a block (a missing __syncthreads)
  kSynccheck,  ///< invalid barriers and warp-synchronous calls (a shuffle mask that leaves out calling lanes)
  kInitcheck,  ///< reads of global memory nobody wrote
};

/// "memcheck", "racecheck", "synccheck", "initcheck": the tool's name on compute-sanitizer's command line.
std::string_view to_string(SanitizerTool tool);

/// The tool called `name`, or nullopt.
std::optional<SanitizerTool> parse_sanitizer_tool(std::string_view name);

/// Seconds one sanitizer run (one tool, one exercise, the small shapes at one seed) may take, unless the manifest says
/// (`timeouts.sanitize_s`): the tools slow a kernel down 10-100x, and the small shapes keep that to seconds (about 3 s
/// a run on one H100 with every lab's runs at once, 6 s on an H200 one after another, 10 s with two workers grading
/// beside each other on one host; each exercise's `sanitize_s` records its own). A run that hangs is run again
/// (sanitizer_runs.cpp, crowded_out) and two hangs are final, so a submission that keeps the GPU busy costs a lab two
/// limits: at about six times the slowest clean run, one minute each.
inline constexpr double kSanitizeTimeoutS = 60;

/// The exit code asked of compute-sanitizer when it found something (`--error-exitcode`): none of the lab binary's
/// own (docs/protocol.md), so a finding can be told from the check's verdict even without reading the report.
inline constexpr int kSanitizerFoundExit = 86;

/// compute-sanitizer on this machine: the first of `path_env`'s folders (a PATH value) that holds it, else
/// `cuda_home`/bin (CUDA_HOME), else /usr/local/cuda/bin. nullopt when none has it.
std::optional<std::filesystem::path> find_compute_sanitizer(std::string_view path_env, std::string_view cuda_home);

/// `--sanitize` / `--sanitizer GIVEN` of `grade` and `grade batch`: the file GIVEN, or compute-sanitizer found from
/// this process's PATH and CUDA_HOME (find_compute_sanitizer). nullopt when there is none, said once on stderr by
/// `who` ("grade", "grade batch"): grading goes on without it.
std::optional<std::filesystem::path> locate_sanitizer(const std::string& given, std::string_view who);

/// The command of one sanitizer run: `tool` around `lab_binary check --impl IMPL --exercise EX[,EX...] --seeds SEED
/// --small` (every exercise of `exercises` in one process: the grader's first run of a tool covers a lab).
/// compute-sanitizer follows the runner processes labN starts (`--target-processes all`) and only those
/// (`--target-processes-filter regex:^labN-`), whose environment keeps the tool's injection variables
/// (harness/referee/src/runner_client.cpp); CUDA API errors the harness provokes and handles are
/// not findings (`--report-api-errors no`); a few reports are enough (`--print-limit`).
std::vector<std::string> sanitizer_command(const std::filesystem::path& sanitizer, SanitizerTool tool,
                                           const std::string& lab_binary, const std::string& impl,
                                           const std::vector<std::string>& exercises, std::uint64_t seed);

/// What one sanitizer run reported.
struct SanitizerReport {
  int errors = 0;             ///< the sum of every process's "ERROR SUMMARY: N errors" (and racecheck's errors)
  std::string first_finding;  ///< the first report's first line, without the "========= " prefix
  std::string tool_error;     ///< a failure of the tool itself ("Error: No attachable process found..."), else empty
  /// True when the tool found something in the code it watched.
  [[nodiscard]] bool found() const { return errors > 0 || !first_finding.empty(); }
};

/// Reads compute-sanitizer's output (its "========= " lines; anything else, such as the check's own output, is
/// ignored): memcheck's "Invalid __global__ write of size 4 bytes", racecheck's "Error: Race reported between ..."
/// and hazard lines, synccheck's "Barrier error detected...", and the summaries.
SanitizerReport parse_sanitizer_output(std::string_view text);

}  // namespace grader
