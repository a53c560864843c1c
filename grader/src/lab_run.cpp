#include "grader/lab_run.hpp"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <csignal>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include <harness/exit_codes.hpp>

#include "grader/placement.hpp"
#include "grader/process.hpp"
#include "grader/sanitize.hpp"

namespace grader {
namespace {

namespace ec = harness::exit_code;
using nlohmann::json;

constexpr double kInfoTimeoutS = 30;
constexpr int kFreshSeeds = 3;  // as many as the labs' public seeds 1,2,3
// The lab binary opens this path; the grader hands it fd 3, a pipe (docs/protocol.md).
constexpr const char* kResultsPath = "/dev/fd/3";

// Untimed runs (checks, sanitizer runs) that go at once, at most this many at a time: each, with its runner, holds
// a CUDA context of its own (some hundred MB of GPU memory each), and a GPU smaller than the course's may be grading
// every lab.
constexpr std::size_t kUntimedRunsAtOnce = 12;
// The lab binary's sampling when not told (harness/referee/src/lab/commands.hpp: --max-seconds 3, --min-samples 10).
constexpr double kLabSamplingS = 3.0;
constexpr double kLabMinSamples = 10;
// A timed run whose f is unresolved is run again sampling 2x, then 4x as long: at most this many more runs.
constexpr int kResolveRetimes = 2;

// All a lab binary sees of the grader's environment: what the C runtime, the CUDA driver and the course's own
// switches need, and the fake lab's (tests/fakes), which a real lab ignores. The rest (tokens, the grader's own
// paths) stays with the grader. TMPDIR is the run's own directory (run_process sets it).
const std::vector<std::string> kLabEnvironment = {
    "PATH", "HOME", "LANG", "LC_*", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_*", "LD_LIBRARY_PATH",
    "COURSE_REQUIRE_GPU", "COURSE_RUNNER_UID", "COURSE_RUNNER_GID", "COURSE_RUNNER_SANDBOX", "FAKE_LAB_*"};

// How every lab binary runs: clean environment, fresh directory under `dir_parent`, limits, results on fd 3.
ProcessOptions lab_process(std::vector<std::string> argv, double timeout_s, const std::filesystem::path& dir_parent) {
  ProcessOptions p;
  p.argv = std::move(argv);
  p.timeout_s = timeout_s;
  p.inherit_env = kLabEnvironment;
  p.private_dir_in = dir_parent;
  p.limits = ProcessLimits{};
  p.results_pipe = true;
  return p;
}

// A seed nobody can predict: a submission that recognizes the public seeds' inputs gains nothing.
std::uint64_t fresh_seed() {
  static std::random_device device;
  return device();
}

std::string stderr_hint(const ProcessResult& run) {
  const auto line = last_line(run.err);
  return line.empty() ? "" : "; last stderr: " + line;
}

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

// The verdict on a run that did not end with exit 0 or 112, the two codes after which the results file is read.
// `done` says how far the run got, e.g. "3 of 27 tests passed".
/// Records why an exercise stopped short; returns false so a step can `return fail(...)`.
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

class ExerciseGrader {
 public:
  ExerciseGrader(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options, double check_timeout_s,
                 double time_timeout_s)
      : lab_(lab), manifest_(manifest), options_(options), check_timeout_s_(check_timeout_s),
        time_timeout_s_(time_timeout_s), binary_(lab_binary(options.bin_dir, lab.number).string()),
        work_((options.work_dir.empty() ? std::filesystem::temp_directory_path() : options.work_dir) /
              ("lab" + std::to_string(lab.number))),
        given_seeds_(options.seeds.empty() ? std::vector<std::uint64_t>{} : parse_seeds(options.seeds)) {}

  /// The check runs of every exercise of `specs` (what they are for kept for finish_checks()), to be run at once, with
  /// other labs' checks too (grade_labs()): none is timed, and each is a process of its own with its own GPU context.
  std::vector<ProcessOptions> plan_checks(const std::vector<const ExerciseSpec*>& specs) {
    specs_ = specs;
    xs_.clear();
    std::vector<ProcessOptions> checks;
    std::string names;
    for (const auto* spec : specs) {
      xs_.push_back(start(*spec));
      checks.push_back(check_process(xs_.back()));
      names += (names.empty() ? "" : ", ") + spec->name;
    }
    if (!specs.empty()) tell(fmt::format("lab{} {}: check ({})", lab_.number, names, options_.impl));
    return checks;
  }

  /// After plan_checks()'s runs (`runs`, in the same order; `alone`: each ran with no other process on the GPU):
  /// reads the checks, then the sanitizer runs of every exercise whose check passed, at once (sanitize()),
  /// then each exercise's timed run and concept checks one after another, after every check and sanitizer run has
  /// ended: no timed run shares the GPU. A check that failed for a reason another process on the GPU could cause (a
  /// crash, a CUDA error such as running out of memory, unusable results) is run again alone, so one exercise's greed
  /// cannot cost another its points. A time-out is not: the GPU is shared in time slices, and the limits are minutes
  /// where checks take seconds.
  std::vector<ExerciseResult> finish_checks(const std::vector<ProcessResult>& runs, bool alone) {
    std::vector<bool> passed(xs_.size());
    for (std::size_t i = 0; i < xs_.size(); ++i) {
      ExerciseResult& x = xs_[i];
      passed[i] = checked(x, runs.at(i));
      if (passed[i] || alone ||
          (x.status != Status::kCrash && x.status != Status::kCudaError && x.status != Status::kBadOutput))
        continue;
      tell(fmt::format("lab{} {}: check again, alone ({})", lab_.number, x.name, options_.impl));
      x = start(*specs_[i]);
      passed[i] = checked(x, run_process(check_process(x)));
    }
    sanitize(xs_, passed);
    std::vector<ExerciseResult> graded;
    for (std::size_t i = 0; i < xs_.size(); ++i) graded.push_back(finish(std::move(xs_[i]), *specs_[i], passed[i]));
    xs_.clear();
    return graded;
  }

  /// Every exercise of `specs`: their checks at once (one alone runs alone), then finish_checks().
  std::vector<ExerciseResult> grade_all(const std::vector<const ExerciseSpec*>& specs) {
    const auto checks = plan_checks(specs);
    return finish_checks(run_processes(checks, kUntimedRunsAtOnce), checks.size() == 1);
  }

 private:
  ExerciseResult start(const ExerciseSpec& spec) const {
    ExerciseResult x;
    x.name = spec.name;
    x.correctness_max = spec.correctness_points;
    x.performance_max = spec.performance_points;
    return x;
  }

  // Timed run, score and concept checks of an exercise whose check and sanitizer runs ended (`passed`: every test
  // passed and no sanitizer run stopped it). A timed run that leaves f unresolved (kResolvedFractionSd) is run again,
  // sampling twice as long each time, at most kResolveRetimes times: the grade keeps the last run.
  ExerciseResult finish(ExerciseResult x, const ExerciseSpec& spec, bool passed) {
    // The sanity gate guards performance points: an exercise timed alone has no reference time to check.
    const auto timed = [&](double sampling) {
      return time(x, sampling) && (timed_alone(x) || reference_in_standing(x, spec));
    };
    const double sampling = manifest_.sampling_s.value_or(kLabSamplingS);
    bool timed_ok = passed && timed(0);
    x.score = score(x, spec, timed_ok);
    for (int retime = 1; timed_ok && retime <= kResolveRetimes && x.score.perf_fraction_sd > kResolvedFractionSd;
         ++retime) {
      timed_ok = timed(sampling * (1 << retime));
      x.score = score(x, spec, timed_ok);
    }
    if (timed_ok && x.timing->reference) {
      x.message = fmt::format("{}/{} tests passed; {:.2f}x the reference time (full marks at {:g}x)", x.tests_passed,
                              x.tests_total, x.timing->student.median_ms / x.timing->reference->median_ms,
                              manifest_.full_marks_at);
      if (spec.graded_by)
        x.message = fmt::format("{}/{} tests passed; {} {:.2f} against the reference's {:.2f} (full marks at {:g} of "
                                "it; {:.2f}x the reference time)",
                                x.tests_passed, x.tests_total, spec.graded_by->metric,
                                metric_of(spec, "student", x.timing->metrics),
                                metric_of(spec, "reference", x.timing->metrics), spec.graded_by->full_marks_at,
                                x.timing->student.median_ms / x.timing->reference->median_ms);
      // Said where this run's noise leaves the performance fraction unsure (docs/protocol.md, "Resolution").
      if (x.score.perf_fraction_sd > kResolvedFractionSd && x.score.ungraded.empty())
        x.message += fmt::format("; performance fraction {:.2f} +- {:.2f} (this run's noise)", x.score.perf_fraction,
                                 x.score.perf_fraction_sd);
      // Correctness points stay as earned; no performance points are given by chance (formula.cpp).
      if (!x.score.ungraded.empty())
        fail(x, Status::kInvalidRun,
             fmt::format("{}/{} tests passed, but {}", x.tests_passed, x.tests_total, x.score.ungraded));
    } else if (timed_ok) {
      x.message = fmt::format("{}/{} tests passed; timed for the report only (no performance points)", x.tests_passed,
                              x.tests_total);
    }
    if (passed) measure_concepts(x, spec);
    return x;
  }

  // The value `<graded_by>_<who>` of `from`, a timed run's metrics or their errors (NaN when it is missing).
  static double metric_of(const ExerciseSpec& spec, std::string_view who, const std::map<std::string, double>& from) {
    const auto it = from.find(fmt::format("{}_{}", spec.graded_by->metric, who));
    return it == from.end() ? std::nan("") : it->second;
  }

  // The formula's inputs from x's last timed run (`timed_ok`: it ran, was right and its reference was in standing).
  Score score(const ExerciseResult& x, const ExerciseSpec& spec, bool timed_ok) const {
    const auto median = [](const std::optional<RunnerTiming>& r) { return r ? r->median_ms : 0.0; };
    const auto noise = [](const std::optional<RunnerTiming>& r) { return r ? r->noise_pct.value_or(0) : 0.0; };
    const auto error = [](const std::optional<RunnerTiming>& r) {
      return r ? median_log_error(r->noise_pct.value_or(0), r->samples.value_or(0)) : 0.0;
    };
    ScoreInputs in{spec.correctness_points, spec.performance_points, x.tests_passed, x.tests_total, timed_ok};
    in.full_marks_at = manifest_.full_marks_at;
    in.baseline_margin = spec.baseline_margin;
    if (timed_ok) {
      const Timing& t = *x.timing;
      in.student_ms = t.student.median_ms;
      in.reference_ms = median(t.reference);
      in.baseline_ms = median(t.baseline);
      in.student_log_error = error(t.student);
      in.reference_log_error = error(t.reference);
      in.baseline_log_error = error(t.baseline);
      in.reference_noise_pct = noise(t.reference);
      in.baseline_noise_pct = noise(t.baseline);
      if (spec.graded_by) {
        // A missing error counts as unbounded: such a run cannot grade by its metric.
        const auto err = [&](std::string_view who) {
          const double e = metric_of(spec, who, t.metric_errors);
          return std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
        };
        in.metric = MetricInputs{spec.graded_by->metric,
                                 metric_of(spec, "student", t.metrics),
                                 metric_of(spec, "reference", t.metrics),
                                 err("student"),
                                 err("reference"),
                                 spec.graded_by->full_marks_at};
      }
    }
    return score_exercise(in);
  }

  void tell(const std::string& what) const {
    if (options_.progress) options_.progress(what);
  }

  ProcessOptions process(std::vector<std::string> argv, double timeout_s) const {
    auto p = lab_process(std::move(argv), timeout_s, work_);
    p.kill_grace_s = options_.kill_grace_s;
    return p;
  }

  ProcessResult launch(std::vector<std::string> argv, double timeout_s) const {
    return run_process(process(std::move(argv), timeout_s));
  }

  std::vector<std::uint64_t> check_seeds() const {
    if (!given_seeds_.empty()) return given_seeds_;
    std::vector<std::uint64_t> seeds;
    while (seeds.size() < kFreshSeeds) {
      const auto seed = fresh_seed();
      if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end()) seeds.push_back(seed);
    }
    return seeds;
  }

  // The `check` run of an exercise, at seeds chosen now (kept in x.seeds).
  ProcessOptions check_process(ExerciseResult& x) const {
    x.seeds = check_seeds();
    return process({binary_, "check", "--impl", options_.impl, "--exercise", x.name, "--results", kResultsPath,
                    "--seeds", join_seeds(x.seeds)},
                   check_timeout_s_);
  }

  // Reads how `check` went; true when every planned test passed.
  bool checked(ExerciseResult& x, const ProcessResult& run) const {
    const CheckPlan plan{x.name, options_.impl, x.seeds};
    x.wall_s += run.wall_s;
    x.check_s = run.wall_s;

    CheckFile f = parse_check_results(run.results, x.name);
    if (run.results_truncated) f.error = fmt::format("more than {} bytes", ProcessOptions{}.capture_limit);
    // Ended on its own with a verdict: every planned case ran.
    const bool finished = run.started && !run.timed_out && run.signal == 0 &&
                          (run.exit_code == ec::kOk || run.exit_code == ec::kTestFailure);
    const auto contradicts = f.error.empty() ? contradiction(f, plan, finished) : "";
    x.tests_total = f.total;
    // Unreadable or contradictory results earn nothing: their counts cannot be trusted.
    x.tests_passed = f.error.empty() && contradicts.empty() ? std::min(f.passed, f.total) : 0;
    const auto done = f.has_plan ? fmt::format("{} of {} tests passed", x.tests_passed, x.tests_total) : "";

    if (run.survivors > 0) return fail(x, Status::kBadOutput, untrusted(run, "check"));
    if (!contradicts.empty())
      return fail(x, Status::kBadOutput, fmt::format("check results contradict the plan: {}", contradicts));
    if (auto end = abnormal_end(run, "check", done, check_timeout_s_, options_.impl, x.name))
      return fail(x, end->first, end->second);
    if (run.results.empty())
      return fail(x, Status::kBadOutput, fmt::format("check exited {} but sent no results (nothing came through {}){}",
                                                  run.exit_code, kResultsPath, stderr_hint(run)));
    if (!f.error.empty()) return fail(x, Status::kBadOutput, fmt::format("check results unreadable: {}", f.error));
    if (!f.has_plan)
      return fail(x, Status::kBadOutput, "check wrote no plan line, so the number of tests is unknown");
    if (f.cases > f.total)
      return fail(x, Status::kBadOutput, fmt::format("check wrote {} results for a plan of {}", f.cases, f.total));
    if (run.exit_code == ec::kOk && f.cases < f.total)
      return fail(x, Status::kBadOutput,
                  fmt::format("check exited 0 after writing only {} of {} results", f.cases, f.total));
    if (x.tests_passed < x.tests_total) {
      const int failed = x.tests_total - x.tests_passed;
      x.hint = f.hint;
      const auto first = f.first_failure.empty() ? fmt::format("{} results missing", f.total - f.cases)
                                                 : "first: " + f.first_failure;
      return fail(x, Status::kWrong, fmt::format("{} of {} tests failed; {}", failed, x.tests_total, first));
    }
    if (run.exit_code == ec::kTestFailure)
      return fail(x, Status::kWrong,
                  fmt::format("check exited 112 (test failure) although every result passed{}", stderr_hint(run)));
    if (x.tests_total == 0) return fail(x, Status::kBadOutput, "check planned 0 tests");
    return true;
  }

  // `grade --sanitize`: each of the manifest's tools around a check of the small shapes, for every exercise of `xs`
  // whose check passed, after every check and before any timed run. First one run a tool covering all of them, the
  // tools at once: a host makes CUDA contexts one at a time (about 5 a second, with one GPU or two busy:
  // experiments/context_contention), and a run makes two or more, so a run per exercise and tool (55 a student of the
  // eight labs) made some 110 of the 270 contexts of a student's grading. A tool whose lab-wide run is clean is clean
  // for each exercise (the same cases, one process). Otherwise, and where one exercise passed, the tool runs for each
  // exercise on its own, all at once (at most kUntimedRunsAtOnce at a time), and those runs say which exercise a
  // finding belongs to.
  // passed[i] becomes false where a run stopped exercise i (sanitized()). The runs of an exercise are read in the
  // manifest's tool order, and the first that stops it ends its reading, as if the tools had run one after another.
  // (At once they hung on an H200 at 53c385b, when the tool watched the referee too; it watches only the runners now,
  // and a run that hangs is run again alone: crowded_out().)
  void sanitize(std::vector<ExerciseResult>& xs, std::vector<bool>& passed) {
    if (!options_.sanitizer || manifest_.sanitize.empty()) return;
    std::vector<std::size_t> chosen;  // the exercises whose check passed
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (passed[i]) chosen.push_back(i);
    if (chosen.empty()) return;
    std::string names, tools;
    for (const std::size_t i : chosen) names += (names.empty() ? "" : ", ") + xs[i].name;
    for (const SanitizerTool tool : manifest_.sanitize)
      tools += (tools.empty() ? "" : ", ") + std::string(to_string(tool));

    std::set<SanitizerTool> clean_for_all;  // tools whose lab-wide run was clean
    if (chosen.size() > 1) {
      tell(fmt::format("lab{} {}: compute-sanitizer {}, a run each for all ({})", lab_.number, names, tools,
                       options_.impl));
      std::vector<ProcessOptions> lab_wide;
      for (const SanitizerTool tool : manifest_.sanitize) lab_wide.push_back(sanitizer_process(xs, chosen, tool));
      const auto runs = run_processes(lab_wide, kUntimedRunsAtOnce);
      for (std::size_t t = 0; t < runs.size(); ++t) {
        for (const std::size_t i : chosen) xs[i].wall_s += runs[t].wall_s / static_cast<double>(chosen.size());
        if (clean(runs[t])) clean_for_all.insert(manifest_.sanitize[t]);
      }
    }

    std::vector<std::pair<std::size_t, SanitizerTool>> plan;  // (exercise, tool) of each run of one exercise
    std::vector<ProcessOptions> runs_to_start;
    for (const std::size_t i : chosen)
      for (const SanitizerTool tool : manifest_.sanitize)
        if (!clean_for_all.contains(tool)) {
          plan.emplace_back(i, tool);
          runs_to_start.push_back(sanitizer_process(xs, {i}, tool));
        }
    if (!plan.empty())
      tell(fmt::format("lab{} {}: compute-sanitizer {} at once, a run each ({})", lab_.number, names, tools,
                       options_.impl));
    auto runs = run_processes(runs_to_start, kUntimedRunsAtOnce);
    for (std::size_t k = 0; k < plan.size(); ++k) xs[plan[k].first].wall_s += runs[k].wall_s;
    std::size_t k = 0;  // the next run of `plan`, which follows the same order as the loops below
    for (const std::size_t i : chosen)
      for (const SanitizerTool tool : manifest_.sanitize) {
        if (clean_for_all.contains(tool)) {
          if (passed[i]) xs[i].sanitized.push_back(std::string(to_string(tool)) + ": clean");
          continue;
        }
        ProcessResult& run = runs[k++];
        if (!passed[i]) continue;  // an earlier tool stopped this exercise: its later runs are not read
        if (crowded_out(run)) {
          tell(fmt::format("lab{} {}: compute-sanitizer {} again, alone ({})", lab_.number, xs[i].name,
                           to_string(tool), options_.impl));
          run = run_process(runs_to_start[k - 1]);
          xs[i].wall_s += run.wall_s;
        }
        passed[i] = sanitized(xs[i], tool, run);
      }
  }

  // Whether a lab-wide sanitizer run found nothing and ended as a clean check does (exit 0, the tool attached): only
  // then does it speak for each exercise it covered; anything else (a finding, a crash, a hang, a tool that could not
  // run, survivors) is left to the runs of one exercise each.
  static bool clean(const ProcessResult& run) {
    if (!run.started || run.timed_out || run.signal != 0 || run.exit_code != 0 || run.survivors > 0) return false;
    const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
    return !report.found() && report.tool_error.empty();
  }

  // Whether a sanitizer run ended in a way that says nothing of the student's code, so that it is run again alone
  // (as a crowded-out check is, finish_checks()): it could not start (fork or exec failing under the load of many
  // runs), it was killed by a signal, the tool could not attach ("could not run", e.g. its launch time-out on a busy
  // machine), the check under the tool ended with a code other than 0 without a finding (a CUDA error such as out of
  // memory, with every tool's copy of the buffers on one GPU: a check that stopped before its kernels ran reads as
  // clean, so a crowd could hide a finding), or it hung: the tool itself hangs now and then where the same run ends in
  // seconds every other time (lab 6's stub under racecheck on an H200, results/2026-11-24-h200-2aa2391), and the
  // check it wraps has already passed in its own time limit. Not run again: a finding (the student's kernel, whoever
  // ran beside it) and processes that survived SIGKILL (the student's own doing).
  static bool crowded_out(const ProcessResult& run) {
    if (!run.started || run.timed_out) return run.survivors == 0;
    if (run.survivors > 0) return false;
    const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
    if (report.found()) return false;
    return run.signal != 0 || run.exit_code != 0 || !report.tool_error.empty();
  }

  // One sanitizer run over the exercises `which` of `xs`: `tool` around `labN check --small` at the first check seed of
  // the first of them.
  ProcessOptions sanitizer_process(const std::vector<ExerciseResult>& xs, const std::vector<std::size_t>& which,
                                   SanitizerTool tool) const {
    std::vector<std::string> names;
    for (const std::size_t i : which) names.push_back(xs[i].name);
    const auto& first = xs[which.front()];
    auto p = process(sanitizer_command(*options_.sanitizer, tool, binary_, options_.impl, names,
                                       first.seeds.empty() ? 1 : first.seeds.front()),
                     manifest_.sanitize_timeout_s);
    p.results_pipe = false;
    return p;
  }

  // What one sanitizer run of `tool` says of exercise `x`: true when it lets the exercise go on (clean, or the tool
  // could not run), with an entry in x.sanitized; false with x's status and message set when it stops it. A finding
  // is status memory-error or race: the correctness points stay as the check earned them, and no timed run gives
  // performance points.
  bool sanitized(ExerciseResult& x, SanitizerTool tool, const ProcessResult& run) const {
    const auto name = std::string(to_string(tool));
    if (run.survivors > 0) return fail(x, Status::kBadOutput, untrusted(run, "compute-sanitizer " + name));
    if (!run.started) return fail(x, Status::kCrash, fmt::format("compute-sanitizer could not start: {}", run.error));
    if (run.timed_out)
      return fail(x, Status::kTimeout,
                  fmt::format("compute-sanitizer {} hung on the small shapes, alone too: killed after {:g} s", name,
                              manifest_.sanitize_timeout_s));
    const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
    if (report.found()) {
      const auto first = report.first_finding.empty() ? fmt::format("ERROR SUMMARY: {} errors", report.errors)
                                                      : report.first_finding;
      x.sanitized.push_back(fmt::format("{}: {}", name, first));
      const bool memory = tool == SanitizerTool::kMemcheck || tool == SanitizerTool::kInitcheck;
      return fail(x, memory ? Status::kMemoryError : Status::kRace,
                  fmt::format("every test passed, but compute-sanitizer {} found {} error(s) on the small shapes: {}",
                              name, std::max(report.errors, 1), first));
    }
    x.sanitized.push_back(report.tool_error.empty() ? name + ": clean"
                                                    : fmt::format("{}: could not run: {}", name, report.tool_error));
    return true;
  }

  // `grade --concepts`: every concept check of the exercise, after a check that passed (docs/concepts.md). A check
  // that cannot be measured is recorded as skipped, with why, and counts in neither the score nor the maximum; one
  // that was measured adds its points when its value is in range. The exercise's status never changes.
  void measure_concepts(ExerciseResult& x, const ExerciseSpec& spec) {
    if (!options_.concepts || spec.concepts.empty()) return;
    std::map<std::string, NcuReport> ncu_reports;  // by kernel pattern: one ncu run measures all its metrics
    std::map<std::string, std::string> ncu_failures;
    std::optional<std::vector<SassFunction>> sass;
    std::string sass_failure;
    for (const ConceptSpec& c : spec.concepts) {
      std::optional<double> value;
      std::string why;
      switch (c.tool) {
        case ConceptTool::kNcu: value = ncu_concept(x, spec, c, ncu_reports, ncu_failures, why); break;
        case ConceptTool::kSass:
          if (!sass && sass_failure.empty()) sass = disassemble(x, sass_failure);
          if (!sass) {
            why = sass_failure;
          } else if (const auto n = sass_count(*sass, c, why)) {
            value = *n;
          }
          break;
        case ConceptTool::kTimeMetric:
          if (!x.timing) {
            why = "no timed run to read it from";
          } else if (const auto it = x.timing->metrics.find(c.metric); it != x.timing->metrics.end()) {
            value = it->second;
          } else {
            why = fmt::format("the time results have no metric '{}'", c.metric);
          }
          break;
      }
      auto result = concept_result(c, value, why);
      x.score.total += result.points;
      x.concepts.push_back(std::move(result));
    }
  }

  // The program the implementation's kernels run in: its runner (runners/labN-IMPL), or the lab binary itself for a
  // lab whose implementations are linked into it.
  std::filesystem::path kernel_program() const {
    const auto runner = options_.bin_dir / "runners" / fmt::format("lab{}-{}", lab_.number, options_.impl);
    std::error_code error;
    return std::filesystem::is_regular_file(runner, error) ? runner : std::filesystem::path(binary_);
  }

  ProcessResult run_tool(std::vector<std::string> argv,
                         std::vector<std::pair<std::string, std::string>> env = {}) const {
    auto p = lab_process(std::move(argv), kConceptTimeoutS, work_);
    p.env = std::move(env);
    p.results_pipe = false;
    p.kill_grace_s = options_.kill_grace_s;
    p.capture_limit = 16 << 20;  // ncu's CSV: a row per metric and launch, after the check's own output
    return run_process(p);
  }

  // Why a tool run gave nothing to read, or "" when it ran to its end.
  static std::string tool_failure(const ProcessResult& run, std::string_view tool) {
    if (!run.started) return fmt::format("{} could not start: {}", tool, run.error);
    if (run.timed_out) return fmt::format("{} ran past {:g} s and was stopped", tool, kConceptTimeoutS);
    if (run.survivors > 0) return fmt::format("processes started under {} survived SIGKILL", tool);
    return "";
  }

  std::optional<double> ncu_concept(ExerciseResult& x, const ExerciseSpec& spec, const ConceptSpec& c,
                                    std::map<std::string, NcuReport>& reports,
                                    std::map<std::string, std::string>& failures, std::string& why) {
    ConceptTools& tools = *options_.concepts;
    if (!tools.ncu) {
      why = "ncu (Nsight Compute) not found";
      return std::nullopt;
    }
    if (!tools.ncu_unusable.empty()) {
      why = tools.ncu_unusable;
      return std::nullopt;
    }
    if (!reports.count(c.kernel) && !failures.count(c.kernel)) {
      std::vector<std::string> metrics;  // every metric of the exercise's checks on the same kernels
      for (const ConceptSpec& other : spec.concepts) {
        if (other.tool != ConceptTool::kNcu || other.kernel != c.kernel) continue;
        for (const auto* list : {&other.numerator, &other.denominator})
          for (const auto& m : *list)
            if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
      }
      tell(fmt::format("lab{} {}: ncu counters of /{}/ ({})", lab_.number, x.name, c.kernel, options_.impl));
      // TMPDIR is the shared /tmp, not the run's private folder, which a runner started by root cannot enter (it
      // runs as `nobody`) while ncu's library injected into it works in TMPDIR. On an H100 (commit 94a7821, graded as
      // root) every counter check failed with "Failed to prepare kernel for profiling", while ncu started by hand in
      // the same run (TMPDIR unset: /tmp) measured lab 6's kernels through the same runners. Not yet re-run on a GPU.
      const auto run = run_tool(ncu_command(*tools.ncu, metrics, c.kernel, binary_, options_.impl, x.name),
                                {{"TMPDIR", "/tmp"}});
      x.wall_s += run.wall_s;
      auto report = parse_ncu_csv(run.out + "\n" + run.err);
      if (report.no_permission) {
        tools.ncu_unusable = "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)";
        if (options_.warn)
          options_.warn(fmt::format("--concepts: {}; the counter checks are skipped, which costs no points "
                                    "(docs/concepts.md says how to allow it)",
                                    tools.ncu_unusable));
        why = tools.ncu_unusable;
        return std::nullopt;
      }
      if (auto failure = tool_failure(run, "ncu"); !failure.empty()) {
        failures[c.kernel] = std::move(failure);
      } else {
        reports[c.kernel] = std::move(report);
      }
    }
    if (const auto failed = failures.find(c.kernel); failed != failures.end()) {
      why = failed->second;
      return std::nullopt;
    }
    return ncu_value(reports.at(c.kernel), c, kernel_program().filename().string(), why);
  }

  // `cuobjdump -sass` of the implementation's program; nullopt with `why` when there is none to read.
  std::optional<std::vector<SassFunction>> disassemble(ExerciseResult& x, std::string& why) {
    const auto& tools = *options_.concepts;
    if (!tools.cuobjdump) {
      why = "cuobjdump not found";
      return std::nullopt;
    }
    tell(fmt::format("lab{} {}: cuobjdump -sass ({})", lab_.number, x.name, options_.impl));
    const auto run = run_tool({tools.cuobjdump->string(), "-sass", kernel_program().string()});
    x.wall_s += run.wall_s;
    if (why = tool_failure(run, "cuobjdump"); !why.empty()) return std::nullopt;
    if (run.exit_code != 0) {
      why = fmt::format("cuobjdump exited {}{}", run.exit_code, stderr_hint(run));
      return std::nullopt;
    }
    return parse_sass(run.out);
  }

  // Runs `time`; true when the timed run was correct and its medians are usable.
  // `sampling`: seconds of sampling to ask for (--max-seconds, and ten samples a 3 s: --min-samples), or 0 for the
  // manifest's.
  bool time(ExerciseResult& x, double sampling = 0) {
    const TimePlan plan{x.name, options_.impl, options_.timed_seed.value_or(fresh_seed()), options_.timed_salt_seed,
                        timed_alone(x)};
    x.timed_seed = plan.seed;
    tell(fmt::format("lab{} {}: time ({})", lab_.number, x.name, options_.impl));
    std::vector<std::string> argv{binary_, "time", "--impl", options_.impl, "--exercise", x.name, "--results",
                                  kResultsPath, "--seed", std::to_string(plan.seed)};
    if (plan.salt_seed) argv.insert(argv.end(), {"--salt-seed", std::to_string(*plan.salt_seed)});
    // An exercise worth no performance points is timed for the report only: the student alone, one sample, no last
    // check (lab 04's first stage, half a second a run, took 20 s of every grade at the usual ten samples, 8 s with
    // its reference and baseline at three).
    if (plan.student_only)
      argv.insert(argv.end(), {"--max-seconds", "0", "--student-only"});
    else if (sampling > 0)
      argv.insert(argv.end(), {"--max-seconds", fmt::format("{:g}", sampling), "--min-samples",
                               std::to_string(static_cast<int>(std::ceil(kLabMinSamples * sampling / kLabSamplingS)))});
    else if (manifest_.sampling_s)
      argv.insert(argv.end(), {"--max-seconds", fmt::format("{:g}", *manifest_.sampling_s)});
    std::optional<HostLinkTurn> turn;
    if (manifest_.host_link && options_.host_link_lock) turn.emplace(*options_.host_link_lock);
    const auto run = launch(argv, time_timeout_s_);
    turn.reset();
    x.wall_s += run.wall_s;
    x.time_s += run.wall_s;
    ++x.timed_runs;

    TimeFile f = parse_time_results(run.results, plan.student_only);
    if (run.results_truncated) f.error = fmt::format("more than {} bytes", ProcessOptions{}.capture_limit);
    const auto contradicts = f.error.empty() && !run.results.empty() ? contradiction(f, plan) : "";
    if (f.error.empty() && contradicts.empty()) {
      x.timing = f.timing;
      x.timed_shape = f.shape;
      x.timed_salt_seed = f.salt_seed;
    }

    if (run.survivors > 0) return fail(x, Status::kBadOutput, untrusted(run, "time"));
    if (auto end = abnormal_end(run, "time", "", time_timeout_s_, options_.impl, x.name))
      return fail(x, end->first, end->second);
    if (run.results.empty())
      return fail(x, Status::kBadOutput, fmt::format("time exited {} but sent no results (nothing came through {}){}",
                                                  run.exit_code, kResultsPath, stderr_hint(run)));
    if (!f.error.empty()) return fail(x, Status::kBadOutput, fmt::format("time results unreadable: {}", f.error));
    if (!contradicts.empty())
      return fail(x, Status::kBadOutput, fmt::format("time results contradict the plan: {}", contradicts));
    if (!f.correct) return fail(x, Status::kBadOutput, "time results lack a true/false 'correct' field");
    if (!*f.correct || run.exit_code == ec::kTestFailure) {
      const auto why = !f.message.empty() ? f.message : last_line(run.err);
      return fail(x, Status::kWrong, fmt::format("every test passed, but the timed run was wrong: {}",
                                              why.empty() ? "(no message)" : why));
    }
    if (!f.timing) return fail(x, Status::kBadOutput, fmt::format("time results incomplete: {}", f.timing_problem));
    return true;
  }

  // An exercise worth no performance points is timed for the report only, the student alone (--student-only).
  static bool timed_alone(const ExerciseResult& x) { return x.performance_max == 0; }

  // The sanity gate (kReferenceGateFraction): true when the manifest records no standing for the reference, or the
  // reference reached enough of it in this run. Otherwise the run is invalid: correctness points stay as earned, the
  // times stay in the results for a human to see, and no performance points are given.
  static bool reference_in_standing(ExerciseResult& x, const ExerciseSpec& spec) {
    if (!spec.reference_percent_of_ceiling) return true;
    const double usual = *spec.reference_percent_of_ceiling;
    // A lab that records a standing always reports both rates: a run without them cannot be checked, so not graded.
    const auto measured = reference_percent_of_ceiling(*x.timing);
    if (!measured)
      return fail(x, Status::kInvalidRun,
                  fmt::format("the run reports no rate for the reference or its ceiling, so the reference's standing "
                              "(usually {:g}% of its ceiling) cannot be checked: this run is not graded",
                              usual));
    if (*measured < kReferenceGateFraction * usual)
      return fail(x, Status::kInvalidRun,
                  fmt::format("the reference ran at {:.1f}% of its ceiling where it usually reaches {:g}%: this run is "
                              "not graded (a busy or throttled GPU?)",
                              *measured, usual));
    return true;
  }

  static std::string untrusted(const ProcessResult& run, std::string_view what) {
    return fmt::format("{} process(es) started by {} survived SIGKILL, so its results cannot be trusted",
                       run.survivors, what);
  }

  const LabEntry& lab_;
  const Manifest& manifest_;
  const GradeOptions& options_;
  double check_timeout_s_, time_timeout_s_;
  std::string binary_;
  std::filesystem::path work_;
  std::vector<std::uint64_t> given_seeds_;
  std::vector<const ExerciseSpec*> specs_;  // plan_checks() to finish_checks(): the exercises and their results
  std::vector<ExerciseResult> xs_;
};

}  // namespace

std::string_view to_string(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kWrong: return "wrong";
    case Status::kTimeout: return "timeout";
    case Status::kCrash: return "crash";
    case Status::kCudaError: return "cuda-error";
    case Status::kBadOutput: return "bad-output";
    case Status::kMissing: return "missing";
    case Status::kNoBinary: return "no-binary";
    case Status::kInvalidRun: return "invalid-run";
    case Status::kMemoryError: return "memory-error";
    case Status::kRace: return "race";
  }
  return "?";
}

std::optional<double> reference_percent_of_ceiling(const Timing& timing) {
  if (!timing.ceiling || !timing.reference || !timing.reference->rate || !timing.ceiling->rate ||
      !(*timing.ceiling->rate > 0))
    return std::nullopt;
  return 100 * *timing.reference->rate / *timing.ceiling->rate;
}

double LabResult::score() const {
  double sum = 0;
  for (const auto& x : exercises) sum += x.score.total;
  return sum;
}

double LabResult::max_score() const {
  double sum = 0;
  for (const auto& x : exercises) sum += x.max_score();
  return sum;
}

std::string not_built_message(int lab_number) {
  return fmt::format("lab{0} is not built: run `make lab{0}` in the build directory", lab_number);
}

InfoOutcome query_info(const std::filesystem::path& binary) {
  using Kind = InfoOutcome::Kind;
  std::error_code error;
  if (!std::filesystem::is_regular_file(binary, error)) return {Kind::kNoBinary, nullptr, "not built"};
  auto p = lab_process({binary.string(), "info"}, kInfoTimeoutS, std::filesystem::temp_directory_path());
  p.results_pipe = false;
  const auto run = run_process(p);
  const auto name = binary.filename().string();
  if (!run.started) return {Kind::kFailed, nullptr, fmt::format("{} info could not start: {}", name, run.error)};
  if (run.exit_code == ec::kNoDevice) {
    const auto line = last_line(run.err);
    return {Kind::kNoGpu, nullptr, line.empty() ? "exit 111, no message" : line};
  }
  if (run.timed_out) return {Kind::kFailed, nullptr, fmt::format("{} info hung: killed after 30 s", name)};
  if (run.signal != 0)
    return {Kind::kFailed, nullptr, fmt::format("{} info crashed: killed by {}", name, signal_name(run.signal))};
  if (run.exit_code != 0)
    return {Kind::kFailed, nullptr,
            fmt::format("{} info exited with code {}{}", name, run.exit_code, stderr_hint(run))};
  auto info = json::parse(run.out, nullptr, false);
  if (info.is_discarded()) info = json::parse(last_line(run.out, run.out.size()), nullptr, false);
  if (info.is_discarded() || !info.is_object())
    return {Kind::kFailed, nullptr, fmt::format("{} info printed no JSON object: {}", name, clip(run.out, 80))};
  return {Kind::kOk, std::move(info), ""};
}

namespace {

// A lab's result before any exercise runs: its header, and for a missing binary every exercise as no-binary.
LabResult lab_header(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options,
                     std::vector<const ExerciseSpec*>& specs) {
  LabResult r;
  r.number = lab.number;
  r.id = lab.id;
  r.title = manifest.title;
  r.weight = manifest.weight;
  r.check_timeout_s = options.check_timeout_s.value_or(manifest.check_timeout_s);
  r.time_timeout_s = options.time_timeout_s.value_or(manifest.time_timeout_s);
  std::error_code error;
  r.built = std::filesystem::is_regular_file(lab_binary(options.bin_dir, lab.number), error);
  if (!r.built) r.message = not_built_message(lab.number);

  if (!options.seeds.empty()) parse_seeds(options.seeds);  // a bad list is the caller's error, even unbuilt
  for (const auto& spec : manifest.exercises)
    if (options.exercise.empty() || spec.name == options.exercise) specs.push_back(&spec);
  if (r.built) return r;
  for (const auto* each : specs) {
    const auto& spec = *each;
    ExerciseResult x;
    x.name = spec.name;
    x.status = Status::kNoBinary;
    x.message = r.message;
    x.correctness_max = spec.correctness_points;
    x.performance_max = spec.performance_points;
    r.exercises.push_back(std::move(x));
  }
  return r;
}

}  // namespace

LabResult grade_lab(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options) {
  std::vector<const ExerciseSpec*> specs;
  LabResult r = lab_header(lab, manifest, options, specs);
  if (!r.built) return r;
  ExerciseGrader grader(lab, manifest, options, r.check_timeout_s, r.time_timeout_s);
  r.exercises = grader.grade_all(specs);
  return r;
}

std::vector<LabResult> grade_labs(const std::vector<LabToGrade>& labs, const std::function<void(LabResult&)>& done) {
  // Every lab's header first (a bad seed list throws here, before anything runs), then every check of every built
  // lab at once, then each lab's sanitizer, timed and concept runs, lab after lab.
  std::vector<LabResult> results;
  std::vector<std::vector<const ExerciseSpec*>> specs(labs.size());
  std::vector<std::unique_ptr<ExerciseGrader>> graders(labs.size());
  std::vector<ProcessOptions> checks;
  std::vector<std::size_t> first_check(labs.size(), 0);
  const auto began = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const LabToGrade& l = labs[i];
    results.push_back(lab_header(*l.lab, *l.manifest, l.options, specs[i]));
    first_check[i] = checks.size();
    if (!results.back().built) continue;
    graders[i] = std::make_unique<ExerciseGrader>(*l.lab, *l.manifest, l.options, results.back().check_timeout_s,
                                                  results.back().time_timeout_s);
    for (auto& p : graders[i]->plan_checks(specs[i])) checks.push_back(std::move(p));
  }
  const std::vector<ProcessResult> runs = run_processes(checks, kUntimedRunsAtOnce);
  auto last = began;
  for (std::size_t i = 0; i < labs.size(); ++i) {
    LabResult& r = results[i];
    if (graders[i]) {
      const auto from = runs.begin() + static_cast<std::ptrdiff_t>(first_check[i]);
      r.exercises = graders[i]->finish_checks({from, from + static_cast<std::ptrdiff_t>(specs[i].size())},
                                              checks.size() == 1);
    }
    const auto now = std::chrono::steady_clock::now();
    r.wall_s = std::chrono::duration<double>(now - last).count();
    last = now;
    if (done) done(r);
  }
  return results;
}

}  // namespace grader
