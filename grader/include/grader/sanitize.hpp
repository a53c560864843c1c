#pragma once
/// @file sanitize.hpp
/// @brief `grade --sanitize`: runs `labN check` on a few small shapes under NVIDIA compute-sanitizer, and reads what
/// the tool found (docs/sanitizer.md).
///
/// A kernel can be right on every test and still write past a shared-memory array, race on a tile, or shuffle with a
/// mask that leaves lanes out: undefined behaviour that happens to give the right numbers on this GPU today. The
/// sanitizer sees those. Everything here is plain text in and out (the command line, the tool's report), so CI tests
/// it on captured output without a GPU; sanitizer_runs.cpp runs the command and turns a finding into a status.

#include <cstddef>
#include <filesystem>
#include <map>
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

/// Seconds one tool's part of a sanitizer run (the small shapes at one seed) may take, unless the manifest says
/// (`timeouts.sanitize_s`): the lab binary ends a tool at its limit and goes on with the next (`--tool-limit`). The
/// tools slow a kernel down 10-100x, and the small shapes keep that to seconds (about 3 s a run on one H100 with
/// every lab's runs at once, 6 s on an H200 one after another, 10 s with two workers grading beside each other on one
/// host; each exercise's `sanitize_s` records its own). A tool that hangs is run again (sanitizer_runs.cpp,
/// crowded_out) and two hangs are final, so a submission that keeps the GPU busy under a tool costs a lab that tool's
/// limit twice: at about six times the slowest clean run, one minute each.
inline constexpr double kSanitizeTimeoutS = 60;
/// Seconds a sanitizer run may take beyond its tools' limits before the grader kills it: the lab binary's own start
/// and the time between its tools. The tools' limits are the lab binary's to enforce, one by one; this one is for a
/// lab binary that does not.
inline constexpr double kSanitizeRunSlackS = 15;
/// The grader's limit on a sanitizer run of `tools` tools, each with its own limit `tool_limit_s`: theirs one after
/// another and kSanitizeRunSlackS.
inline double sanitizer_run_limit_s(double tool_limit_s, std::size_t tools) {
  return tool_limit_s * static_cast<double>(tools) + kSanitizeRunSlackS;
}

/// compute-sanitizer on this machine: the first of `path_env`'s folders (a PATH value) that holds it, else
/// `cuda_home`/bin (CUDA_HOME), else /usr/local/cuda/bin. nullopt when none has it.
std::optional<std::filesystem::path> find_compute_sanitizer(std::string_view path_env, std::string_view cuda_home);

/// `--sanitize` / `--sanitizer GIVEN` of `grade` and `grade batch`: the file GIVEN, or compute-sanitizer found from
/// this process's PATH and CUDA_HOME (find_compute_sanitizer). nullopt when there is none, said once on stderr by
/// `who` ("grade", "grade batch"): grading goes on without it.
std::optional<std::filesystem::path> locate_sanitizer(const std::string& given, std::string_view who);

/// The command of one sanitizer run: `lab_binary check --impl IMPL --exercise EX[,EX...] --seeds SEED --small
/// --results RESULTS --sanitizer SANITIZER --tools TOOL[,TOOL...] --tool-limit TOOL_LIMIT_S`: the small shapes once
/// under each tool of `tools`, tool after tool, every exercise of `exercises` in one process (the grader's first run
/// covers a lab with all its tools), each tool ended at its limit. The lab binary starts each tool's runner through
/// compute-sanitizer's front end, so that the tool watches the runner alone (the referee's kernels are the course's),
/// and writes each tool's verdict to RESULTS (parse_tool_verdicts), where no runner can write.
std::vector<std::string> sanitizer_command(const std::filesystem::path& sanitizer,
                                           const std::vector<SanitizerTool>& tools, const std::string& lab_binary,
                                           const std::string& impl, const std::vector<std::string>& exercises,
                                           std::uint64_t seed, const std::string& results, double tool_limit_s);

/// What `labN check --tools` said of one tool, on its line of the results (docs/protocol.md).
struct ToolVerdict {
  enum class Kind {
    kClean,   ///< the tool's front ends all exited 0 and every case passed under it
    kFound,   ///< a front end exited with the tool's "found" code: the tool found something in the runner
    kHung,    ///< the tool's cases had not ended at its limit: the lab binary ended them
    kFailed,  ///< otherwise (a front end killed or ending with another code, a case failed): `message` says how
  };
  Kind kind = Kind::kFailed;
  std::string message;
};

/// The verdict's word on the tool line: "clean", "found", "hung" or "failed".
std::string_view to_string(ToolVerdict::Kind kind);

/// The tool lines of a check's results (a JSON line each, among the plan and case lines), by tool. A tool the run
/// never finished (the run was killed or died first) has none; a line that does not parse counts as none.
std::map<SanitizerTool, ToolVerdict> parse_tool_verdicts(std::string_view results);

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
