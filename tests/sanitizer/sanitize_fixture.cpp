// sanitize_fixture LAB_BINARY IMPL EXERCISE TOOL: the GPU test of one known-wrong fixture that only compute-sanitizer
// can catch (solutions/NN_name/wrong/*.cu whose first line says "decided on the GPU: compute-sanitizer TOOL"). It runs
// exactly what `grade --sanitize` runs (grader/sanitize.hpp: the same command, the same reading of the tool's verdict
// and report) and passes when the tool's verdict is a finding and its report says which, and no runner's exit printed
// a CUDA error. Exit 0 found, 1 not found (or the tool failed, or a runner's exit did), 111 skipped: no GPU or no
// compute-sanitizer (with COURSE_REQUIRE_GPU=1 a missing tool fails instead, as a missing GPU does in the lab).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <harness/exit_codes.hpp>

#include "grader/process.hpp"
#include "grader/sanitize.hpp"
#include "sanitizer_and_gpu.hpp"

int main(int argc, char** argv) {
  using namespace grader;
  if (argc != 5) {
    std::cerr << "usage: sanitize_fixture LAB_BINARY IMPL EXERCISE TOOL\n";
    return 2;
  }
  const std::string lab = argv[1], impl = argv[2], exercise = argv[3];
  const auto tool = parse_sanitizer_tool(argv[4]);
  if (!tool) {
    std::cerr << "unknown tool " << argv[4] << "\n";
    return 2;
  }
  const auto found = sanitizer_and_gpu(lab);
  if (const int* code = std::get_if<int>(&found)) return *code;
  const auto sanitizer = std::get<std::filesystem::path>(found);

  ProcessOptions run;
  run.argv = sanitizer_command(sanitizer, {*tool}, lab, impl, {exercise}, 1, "/dev/fd/3", kSanitizeTimeoutS);
  run.results_pipe = true;
  // In a fresh folder of its own, its TMPDIR too, as grade runs it (mode 700: closed to the runners' user when this
  // is root, so the tool's front end must have a folder of its own).
  run.private_dir_in = std::filesystem::temp_directory_path() / "sanitize-fixture";
  run.timeout_s = sanitizer_run_limit_s(kSanitizeTimeoutS, 1);
  const auto result = run_process(run);
  std::cout << result.out << result.err;
  if (result.timed_out) {
    std::cerr << "compute-sanitizer hung: killed after " << run.timeout_s << " s\n";
    return 1;
  }
  const auto report = parse_sanitizer_output(result.out + "\n" + result.err);
  const auto verdicts = parse_tool_verdicts(result.results);
  const auto verdict = verdicts.find(*tool);
  if (verdict == verdicts.end() || verdict->second.kind != ToolVerdict::Kind::kFound || !report.found()) {
    std::cerr << "compute-sanitizer " << argv[4] << " found nothing in " << impl << ": verdict "
              << (verdict == verdicts.end() ? std::string_view("none") : to_string(verdict->second.kind))
              << (verdict == verdicts.end() ? "" : " " + verdict->second.message) << ", report "
              << (report.found() ? "a finding" : "none")
              << (report.tool_error.empty() ? "" : " (the tool failed: " + report.tool_error + ")") << "\n";
    return 1;
  }
  // The runner under the tool ends as any runner should: its stream and events released before the CUDA runtime
  // unloads (runner main()), not by a static destructor after it, where each destroy fails and prints so.
  if ((result.out + result.err).find("cudaErrorCudartUnloading") != std::string::npos) {
    std::cerr << "a CUDA object outlived the runtime at a runner's exit (cudaErrorCudartUnloading above)\n";
    return 1;
  }
  std::cout << "found, as it should be: " << report.first_finding << " (" << report.errors << " errors)\n";
  return 0;
}
