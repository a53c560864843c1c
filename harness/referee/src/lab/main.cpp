// main() of every lab binary: parses the command line and maps every way of failing onto a documented exit code.
#include "commands.hpp"

#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/exit_codes.hpp>
#include <harness/launcher.hpp>

#include <CLI/CLI.hpp>

#include <sys/prctl.h>

#include <csignal>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  using namespace harness;
  // The referee holds the inputs, the references and the results pipe, and its runners run student code as the same
  // user: a process that is not dumpable cannot be traced, nor its memory or file descriptors opened through /proc, by
  // another process of that user (docs/threat-model.md).
  ::prctl(PR_SET_DUMPABLE, 0);
  // A runner that is gone (it could not start, or crashed) makes a write to its command pipe fail with EPIPE, which
  // the referee reports as that runner's failure, instead of ending the referee with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  // The referee's scratch on the GPU (each case's pristine inputs, references, counters) from a pool that keeps it:
  // no call to the host's driver lock for each case's allocations (device.hpp).
  pool_device_memory();
  CLI::App app{"One lab of the CUDA performance course: correctness checks and timings of its exercises.\n"
               "The grader (./grade) drives this binary; see docs/protocol.md."};
  app.require_subcommand(1);
  app.add_subcommand("info", "print the GPU as JSON (exit 111 if there is none)");
  app.add_subcommand("list", "print the exercises and implementations as JSON");

  lab_cli::CheckRequest check;
  auto* check_cmd = app.add_subcommand("check", "run the correctness cases through Catch2 (extra options go to Catch2)");
  check_cmd->add_option("--impl", check.impl, "implementation to check")->capture_default_str();
  // Several at once (--exercise a,b): the grader's sanitizer runs cover a lab's exercises in one process, since a host
  // makes CUDA contexts one at a time (experiments/context_contention).
  check_cmd->add_option("--exercise", check.exercises, "only these exercises, e.g. a,b (default: all it implements)")
      ->delimiter(',');
  check_cmd->add_option("--seeds", check.seeds, "seeds, e.g. --seeds 1,2,3")->delimiter(',')->capture_default_str();
  check_cmd->add_option("--results", check.results, "write one JSON line per case to this file");
  check_cmd->add_flag("--expect-reject", check.expect_reject,
                      "known-wrong fixture: succeed only if every exercise has a failing case");
  check_cmd->add_flag("--small", check.small,
                      "only a few small test shapes (for `grade --sanitize`: compute-sanitizer slows kernels 10-100x)");
  // A lab's tools in one referee, each around a runner of its own (the referee's kernels are the course's): a CUDA
  // process a tool fewer than one referee a tool.
  check_cmd->add_option("--tools", check.tools,
                        "run the cases once under each of these compute-sanitizer tools, e.g. memcheck,racecheck, "
                        "the runners through its front end; a verdict line a tool in --results")
      ->delimiter(',');
  check_cmd->add_option("--sanitizer", check.sanitizer, "compute-sanitizer's path, for --tools");
  // A tool's own limit: one that hangs is ended with its runner and the next tool runs, so that a submission that
  // hangs a tool costs that tool's limit, not the whole run's.
  check_cmd->add_option("--tool-limit", check.tool_limit_s,
                        "end each tool's cases, its runner and front end after this many seconds (verdict hung)")
      ->check(CLI::NonNegativeNumber);
  check_cmd->allow_extras();

  lab_cli::TimeRequest time;
  auto* time_cmd = app.add_subcommand("time", "time an implementation against reference, baseline and ceiling");
  time_cmd->add_option("--impl", time.impl, "implementation in the student slot")->capture_default_str();
  time_cmd->add_option("--exercise", time.exercises, "exercises to time, e.g. a,b: one runner each, serving all")
      ->required()
      ->delimiter(',');
  time_cmd->add_option("--results", time.results, "write the JSON result to this file (default: stdout)");
  time_cmd->add_option("--max-seconds", time.max_seconds, "stop sampling after this long")->capture_default_str();
  time_cmd->add_option("--min-samples", time.min_samples, "sample each runner at least this often, time allowing")
      ->capture_default_str();
  time_cmd->add_option("--shape", time.shape, "time at this shape instead (N or RxC)");
  time_cmd->add_option("--seed", time.seed, "seed of the timed inputs")->capture_default_str();
  time_cmd->add_option("--salt-seed", time.salt_seed,
                       "seed of the timed rounds' salts: their fresh inputs, the positions checked on the host "
                       "(default: drawn at random; the results give it as salt_seed)");
  time_cmd->add_flag("--student-only", time.student_only,
                     "time the implementation alone, for the report (an exercise worth no performance points)");
  time_cmd->add_option("--student-only-for", time.student_only_for,
                       "these exercises of the run alone, as --student-only (one sample, no last check), the others "
                       "against the reference and baseline")
      ->delimiter(',');
  time_cmd->add_option("--host-link-turn-fd", time.host_link_turn_fd,
                       "ask for a turn through this descriptor for each exercise's timed runs: grade batch "
                       "gives it where copies cross between host and GPU, so no two workers time them at once")
      ->check(CLI::NonNegativeNumber);
  // A lab's checks and first timed runs in one referee (docs/protocol.md): a CUDA context a lab fewer, which a host
  // makes one at a time for all its GPUs.
  time_cmd->add_option("--check-seeds", time.check_seeds,
                       "first check the exercises at these seeds (as check --seeds, its lines first in --results), "
                       "then time those whose every case passed")
      ->delimiter(',');
  time_cmd->add_option("--timed-turn-fd", time.timed_turn_fd,
                       "with --check-seeds: ask for a turn through this descriptor between the checks and the timed "
                       "runs (grade grants it once its other checks have ended)")
      ->check(CLI::NonNegativeNumber);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? exit_code::kOk : exit_code::kUsage;
  }

  try {
    if (app.got_subcommand("info")) return lab_cli::info();
    if (app.got_subcommand("list")) return lab_cli::list();
    if (app.got_subcommand("check")) {
      check.catch_args = check_cmd->remaining();
      return lab_cli::check(check, argv[0]);
    }
    if (!time.check_seeds.empty()) return lab_cli::check_then_time(time, argv[0]);
    if (time.timed_turn_fd >= 0) {
      std::cerr << "--timed-turn-fd needs --check-seeds: it is the turn between the checks and the timed runs\n";
      return exit_code::kUsage;
    }
    return lab_cli::time(time);
  } catch (const MissingLauncher& e) {
    std::cerr << e.what() << "\n";
    return exit_code::kBadSpec;
  } catch (const CudaError& e) {
    std::cerr << e.what() << "\n";
    return exit_code::kCudaError;
  } catch (const std::invalid_argument& e) {
    std::cerr << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return exit_code::kInternal;
  }
}
