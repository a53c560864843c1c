#include "lab_context.hpp"

#include <csignal>
#include <random>

#include <fmt/format.h>

#include <harness/exit_codes.hpp>

namespace grader::lab_run {
namespace {

namespace ec = harness::exit_code;

// All a lab binary sees of the grader's environment: what the C runtime, the CUDA driver and the course's own
// switches need, and the fake lab's (tests/fakes), which a real lab ignores. The rest (tokens, the grader's own
// paths) stays with the grader. TMPDIR is the run's own directory (run_process sets it).
const std::vector<std::string> kLabEnvironment = {
    "PATH", "HOME", "LANG", "LC_*", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_*", "LD_LIBRARY_PATH",
    "COURSE_REQUIRE_GPU", "COURSE_RUNNER_UID", "COURSE_RUNNER_GID", "COURSE_RUNNER_SANDBOX", "FAKE_LAB_*"};

std::string signal_meaning(int sig) {
  if (sig == SIGXFSZ) return fmt::format(" (a file grew past the {} GiB limit)", ProcessLimits{}.file_bytes >> 30);
  return "";
}

std::string exit_code_meaning(int code) {
  switch (code) {
    case ec::kUsage: return " (usage: the lab rejected the grader's command line)";
    case ec::kInternal: return " (internal error in the lab)";
    case 127: return " (command not found)";
    default: return "";
  }
}

}  // namespace

ProcessOptions lab_process(std::vector<std::string> argv, double timeout_s, const std::filesystem::path& dir_parent,
                           int work_queues) {
  ProcessOptions p;
  p.argv = std::move(argv);
  p.env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(work_queues));  // Manifest::work_queues
  p.timeout_s = timeout_s;
  p.inherit_env = kLabEnvironment;
  p.private_dir_in = dir_parent;
  p.limits = ProcessLimits{};
  p.results_pipe = true;
  return p;
}

std::uint64_t fresh_seed() {
  static std::random_device device;
  return device();
}

std::string stderr_hint(const ProcessResult& run) {
  const auto line = last_line(run.err);
  return line.empty() ? "" : "; last stderr: " + line;
}

bool fail(ExerciseResult& x, Status status, std::string message) {
  x.status = status;
  x.message = std::move(message);
  return false;
}

std::optional<std::pair<Status, std::string>> abnormal_end(const ProcessResult& run, std::string_view what,
                                                           std::string_view done, double timeout_s,
                                                           const std::string& impl, const std::string& exercise) {
  const auto progress = done.empty() ? std::string() : fmt::format(" ({})", done);
  if (!run.started) return {{Status::kCrash, fmt::format("{} could not start: {}", what, run.error)}};
  if (run.timed_out)
    return {{Status::kTimeout,
             fmt::format("{} hung: killed after {:g} s{}{}", what, timeout_s, progress, stderr_hint(run))}};
  if (run.signal != 0)
    return {{Status::kCrash,
             fmt::format("{} crashed: killed by {}{}{}{}", what, signal_name(run.signal), signal_meaning(run.signal),
                         progress, stderr_hint(run))}};
  switch (run.exit_code) {
    case ec::kOk:
    case ec::kTestFailure: return std::nullopt;
    case ec::kCudaError: {
      const auto line = last_line(run.err);
      return {{Status::kCudaError, fmt::format("{} stopped by a CUDA error{}: {}", what, progress,
                                               line.empty() ? "(no message on stderr)" : line)}};
    }
    case ec::kNoDevice:
      return {{Status::kCudaError, fmt::format("{} found no CUDA GPU (exit 111){}", what, stderr_hint(run))}};
    case ec::kBadSpec:
      return {{Status::kMissing, fmt::format("the {} implementation has no launcher for {} (exit 113){}", impl,
                                             exercise, stderr_hint(run))}};
    default:
      return {{Status::kCrash, fmt::format("{} exited with unexpected code {}{}{}", what, run.exit_code,
                                           exit_code_meaning(run.exit_code), stderr_hint(run))}};
  }
}

std::string untrusted(const ProcessResult& run, std::string_view what) {
  return fmt::format("{} process(es) started by {} survived SIGKILL, so its results cannot be trusted",
                     run.survivors, what);
}

LabContext::LabContext(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options,
                       double check_timeout_s, double time_timeout_s)
    : lab(lab), manifest(manifest), options(options), check_timeout_s(check_timeout_s),
      time_timeout_s(time_timeout_s), binary(lab_binary(options.bin_dir, lab.number).string()),
      work((options.work_dir.empty() ? std::filesystem::temp_directory_path() : options.work_dir) /
           ("lab" + std::to_string(lab.number))) {}

void LabContext::tell(const std::string& what) const {
  if (options.progress) options.progress(what);
}

ProcessOptions LabContext::process(std::vector<std::string> argv, double timeout_s) const {
  auto p = lab_process(std::move(argv), timeout_s, work, manifest.work_queues);
  p.kill_grace_s = options.kill_grace_s;
  return p;
}

ProcessResult LabContext::launch(std::vector<std::string> argv, double timeout_s) const {
  return run_process(process(std::move(argv), timeout_s));
}

}  // namespace grader::lab_run
