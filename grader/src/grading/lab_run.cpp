#include "grader/lab_run.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <deque>
#include <map>
#include <optional>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

#include <harness/exit_codes.hpp>

#include "grader/host_lock.hpp"
#include "grader/process.hpp"
#include "lab_context.hpp"

namespace grader {
namespace {

namespace ec = harness::exit_code;
using nlohmann::json;
// The steps and what they share (lab_context.hpp): this file runs the checks and orders the steps.
using lab_run::abnormal_end;
using lab_run::fail;
using lab_run::finish;
using lab_run::finish_sanitizer;
using lab_run::fresh_seed;
using lab_run::kResultsPath;
using lab_run::kUntimedRunsAtOnce;
using lab_run::lab_process;
using lab_run::LabContext;
using lab_run::SanitizerPlan;
using lab_run::stderr_hint;
using lab_run::untrusted;

constexpr double kInfoTimeoutS = 30;
constexpr int kFreshSeeds = 3;  // as many as the labs' public seeds 1,2,3

class ExerciseGrader {
 public:
  ExerciseGrader(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options, double check_timeout_s,
                 double time_timeout_s)
      : ctx_(lab, manifest, options, check_timeout_s, time_timeout_s),
        given_seeds_(options.seeds.empty() ? std::vector<std::uint64_t>{} : parse_seeds(options.seeds)) {}

  /// The lab's check run of every exercise of `specs` (what they are for kept for read_checks()), to be run at once
  /// with other labs' check runs (grade_labs()), none timed: one run for all (`labN check --exercise a,b,c`, every
  /// exercise at the same fresh seeds), because a host makes CUDA contexts one at a time (about five a second,
  /// experiments/context_contention) and a check per exercise (27 a student of the eight labs) made two or more
  /// each, a referee and a runner; on a host of several GPUs every worker waits for them. read_checks() takes from
  /// it only what each exercise's own run would have said. Its limit is the lab's check limit, each exercise's own: a
  /// lab's checks take seconds where the limits are minutes, and a run that reaches it costs its unfinished exercises
  /// a run each, not points. A lab whose manifest says `check_apart` gets a run per exercise instead, all at once:
  /// the first timed turn waits for every lab's checks, and its one run would end seconds after the others'.
  ///
  /// `with_timing` (grade_labs()): where the lab allows (lab_run::checks_then_time()), the run goes on to the first
  /// timed runs of the exercises whose check passed, in the same referee (`labN time --check-seeds`): a CUDA process
  /// a lab fewer, where a host makes them one at a time for all its GPUs. Its timed part waits for a turn that the
  /// caller grants once every check run has ended (their shared holds: host_lock.hpp), so no timed run shares the
  /// GPU; read_checks() takes the first timed runs from it, and timed() is then true.
  std::vector<ProcessOptions> plan_checks(const std::vector<const ExerciseSpec*>& specs, bool with_timing = false) {
    specs_ = specs;
    xs_.clear();
    checks_then_time_.reset();
    std::string names, listed;
    for (const auto* spec : specs) {
      xs_.push_back(start(*spec));
      names += (names.empty() ? "" : ",") + spec->name;
      listed += (listed.empty() ? "" : ", ") + spec->name;
    }
    if (specs.empty()) return {};
    const auto seeds = check_seeds();
    for (auto& x : xs_) x.seeds = seeds;
    const bool apart = check_runs(specs) > 1;
    if (with_timing && !apart) checks_then_time_ = lab_run::checks_then_time(ctx_, xs_, seeds);
    const char* how = apart ? ", a run each" : specs.size() > 1 ? ", one run for all" : "";
    ctx_.tell(fmt::format("lab{} {}: check{}{} ({})", ctx_.lab.number, listed, checks_then_time_ ? ", then time" : "",
                          how, ctx_.options.impl));
    if (checks_then_time_) return {checks_then_time_->process};
    if (!apart) return {check_process(names, seeds)};
    std::vector<ProcessOptions> each;
    for (const auto* spec : specs) each.push_back(check_process(spec->name, seeds));
    return each;
  }

  /// How many runs plan_checks() makes of `specs`: one, or one an exercise where the lab checks them apart.
  std::size_t check_runs(const std::vector<const ExerciseSpec*>& specs) const {
    return ctx_.manifest.check_apart ? specs.size() : std::min<std::size_t>(specs.size(), 1);
  }

  /// After plan_checks()'s runs (`runs`, in its order; `alone`: they ran with no other process on the GPU): reads the
  /// checks (an exercise the lab's run did not check whole is checked on its own, those at once). A check that failed
  /// in a crowd for a reason the crowd could cause (crowded_out()) is run again alone, so one exercise's greed cannot
  /// cost another its points.
  void read_checks(const std::vector<ProcessResult>& runs, bool alone) {
    passed_.assign(xs_.size(), false);
    if (xs_.empty() || runs.empty()) return;
    std::vector<std::size_t> each;        // not checked whole by the lab's run: a run each, at once
    std::vector<std::size_t> alone_again;  // failed as a crowded GPU could make them: once more, alone
    // A run that went on to time: its check lines are read as the lab's check run's, by exercise whatever their
    // number (its exit code speaks for its timed part too), and its time lines once the checks are known.
    const ProcessResult& run = runs.front();
    ProcessResult checks = run;
    std::string time_lines;
    if (checks_then_time_) {
      std::tie(checks.results, time_lines) = split_checks_from_times(run.results);
      // Its seconds up to the turn asked for are its checks'; the wait for the turn is no one's.
      if (run.turns > 0) checks.wall_s = run.first_turn_s - run.turn_wait_s;
    }
    // A run each (check_apart, or one exercise) is each exercise's own; one run for all is split by exercise.
    const auto parts = runs.size() == xs_.size() && !checks_then_time_
                           ? std::vector<std::optional<ProcessResult>>(runs.begin(), runs.end())
                           : split(checks);
    std::vector<std::size_t> timed;  // passed by this run's own check: its timed runs count
    for (std::size_t i = 0; i < xs_.size(); ++i) {
      if (!parts[i]) {
        each.push_back(i);
        continue;
      }
      passed_[i] = checked(xs_[i], *parts[i]);
      if (passed_[i]) timed.push_back(i);
      if (!passed_[i] && !alone && crowded_out(xs_[i])) alone_again.push_back(i);
    }
    if (checks_then_time_) {
      first_runs_ = lab_run::read_checks_then_time(ctx_, xs_, timed, *checks_then_time_, run, time_lines);
      checks_then_time_.reset();
    }
    if (!each.empty()) {
      std::string names;
      for (const std::size_t i : each) names += (names.empty() ? "" : ", ") + xs_[i].name;
      ctx_.tell(fmt::format("lab{} {}: check, a run each ({})", ctx_.lab.number, names, ctx_.options.impl));
      std::vector<ProcessOptions> checks;
      for (const std::size_t i : each) checks.push_back(recheck(xs_[i], *specs_[i]));
      const auto each_runs = run_processes(checks, kUntimedRunsAtOnce);
      for (std::size_t k = 0; k < each.size(); ++k) {
        ExerciseResult& x = xs_[each[k]];
        passed_[each[k]] = checked(x, each_runs[k]);
        if (!passed_[each[k]] && each.size() > 1 && crowded_out(x)) alone_again.push_back(each[k]);
      }
    }
    for (const std::size_t i : alone_again) {
      ctx_.tell(fmt::format("lab{} {}: check again, alone ({})", ctx_.lab.number, xs_[i].name, ctx_.options.impl));
      passed_[i] = checked(xs_[i], run_process(recheck(xs_[i], *specs_[i])));
    }
  }

  /// After read_checks(): the sanitizer's lab-wide runs of the exercises whose check passed (plan_sanitizer()), to be
  /// run at once with other labs' (grade_labs()).
  SanitizerPlan plan_sanitizer() const { return lab_run::plan_sanitizer(ctx_, xs_, passed_); }

  /// After read_checks(), while another worker of the host holds the sanitizer's turn (grade_labs()): the first timed
  /// runs of the exercises whose check passed, made now rather than after the sanitizer runs. finish_grading() reads
  /// them once the sanitizer has spoken: an exercise it stops earns nothing from its timed run, as one never timed.
  void time_before_sanitizer() { first_runs_ = time_together(ctx_, xs_, timed_order()); }

  /// After plan_checks(): whether its run goes on to time.
  bool times_after_checks() const { return checks_then_time_.has_value(); }

  /// Whether the lab's first timed runs were made (before the sanitizer's, or by its check run).
  bool timed() const { return first_runs_.has_value(); }

  /// After those runs (`lab_wide`, in plan order): the rest of the sanitizer step, then each exercise's timed run and
  /// concept checks one after another, after every check and sanitizer run of this worker has ended: no timed run
  /// shares the GPU.
  std::vector<ExerciseResult> finish_grading(const SanitizerPlan& sanitizer,
                                             const std::vector<ProcessResult>& lab_wide) {
    finish_sanitizer(ctx_, xs_, passed_, sanitizer, lab_wide);
    if (!first_runs_) first_runs_ = time_together(ctx_, xs_, timed_order());
    std::vector<ExerciseResult> graded;
    for (std::size_t i = 0; i < xs_.size(); ++i) {
      const auto first = first_runs_->find(i);
      graded.push_back(finish(ctx_, std::move(xs_[i]), *specs_[i], passed_[i],
                              first == first_runs_->end() ? nullptr : &first->second));
    }
    xs_.clear();
    first_runs_.reset();
    return graded;
  }

  /// Every exercise of `specs`: their check run (or runs, at once), alone on the GPU, their sanitizer runs, then
  /// finish_grading().
  std::vector<ExerciseResult> grade_all(const std::vector<const ExerciseSpec*>& specs) {
    const auto checks = plan_checks(specs);
    if (checks.empty()) return {};
    read_checks(run_processes(checks, kUntimedRunsAtOnce), checks.size() == 1);
    const SanitizerPlan sanitizer = plan_sanitizer();
    return finish_grading(sanitizer, run_processes(sanitizer.lab_wide, kUntimedRunsAtOnce));
  }

 private:
  ExerciseResult start(const ExerciseSpec& spec) const {
    ExerciseResult x;
    x.name = spec.name;
    x.correctness_max = spec.correctness_points;
    x.performance_max = spec.performance_points;
    return x;
  }

  // The exercises whose first timed run may be the lab's one: those whose check passed (lab_run::timed_order()).
  std::vector<std::size_t> timed_order() const { return lab_run::timed_order(xs_, passed_); }

  std::vector<std::uint64_t> check_seeds() const {
    if (!given_seeds_.empty()) return given_seeds_;
    std::vector<std::uint64_t> seeds;
    while (seeds.size() < kFreshSeeds) {
      const auto seed = fresh_seed();
      if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end()) seeds.push_back(seed);
    }
    return seeds;
  }

  // A `check` run of `exercises` (comma-separated) at `seeds`. Of a run of several, as much of its output is read as
  // of their own runs together, each exercise's report being made to fit one run's limit (harness ReportBudget): lab
  // 03's 864 lines of about 100 bytes were cut at one limit, and each of its exercises was checked again.
  ProcessOptions check_process(const std::string& exercises, const std::vector<std::uint64_t>& seeds) const {
    auto p = ctx_.process({ctx_.binary, "check", "--impl", ctx_.options.impl, "--exercise", exercises, "--results",
                           kResultsPath, "--seeds", join_seeds(seeds)},
                          ctx_.check_timeout_s);
    p.capture_limit *= static_cast<std::size_t>(std::count(exercises.begin(), exercises.end(), ',') + 1);
    return p;
  }

  // `x` made ready for a check of its own, at seeds chosen now: what an earlier run said is dropped, its seconds kept.
  ProcessOptions recheck(ExerciseResult& x, const ExerciseSpec& spec) const {
    const double wall_s = x.wall_s;
    x = start(spec);
    x.wall_s = wall_s;
    x.seeds = check_seeds();
    return check_process(x.name, x.seeds);
  }

  // A failure another process on the GPU could cause: a crash, a CUDA error such as running out of memory, unusable
  // results. A time-out is not: the GPU is shared in time slices, and the limits are minutes where checks take seconds.
  static bool crowded_out(const ExerciseResult& x) {
    return x.status == Status::kCrash || x.status == Status::kCudaError || x.status == Status::kBadOutput;
  }

  // The lab's one check run of several exercises, as each exercise's own run would have ended, for those it checked
  // whole: its plan line and every case it planned came through, in a run that left no process behind and whose
  // results were not cut (split_check_results()). Such a run exits 0 if every case passed and 112 otherwise, and its
  // seconds are the lab run's, shared. An exercise the run did not check whole (one that crashed or hung it, those
  // after, all of a run whose results cannot be split) is nullopt: it is checked on its own, and that run decides.
  std::vector<std::optional<ProcessResult>> split(const ProcessResult& run) {
    std::vector<std::optional<ProcessResult>> parts(xs_.size());
    const double share = run.wall_s / static_cast<double>(xs_.size());
    const auto by_exercise = run.started && run.survivors == 0 && !run.results_truncated
                                 ? split_check_results(run.results)
                                 : std::nullopt;
    for (std::size_t i = 0; i < xs_.size(); ++i) {
      const std::string* text = nullptr;
      if (by_exercise)
        if (const auto found = by_exercise->find(xs_[i].name); found != by_exercise->end()) text = &found->second;
      const CheckFile f = text ? parse_check_results(*text, xs_[i].name) : CheckFile{};
      if (!text || !f.error.empty() || f.plans != 1 || f.total <= 0 || f.cases != f.total) {
        xs_[i].wall_s += share;  // kept by recheck()
        continue;
      }
      ProcessResult part;
      part.started = true;
      part.exit_code = f.passed == f.cases ? ec::kOk : ec::kTestFailure;
      part.results = *text;
      part.err = run.err;
      part.wall_s = share;
      parts[i] = std::move(part);
    }
    return parts;
  }

  // Reads how `check` went; true when every planned test passed.
  bool checked(ExerciseResult& x, const ProcessResult& run) const {
    const CheckPlan plan{x.name, ctx_.options.impl, x.seeds};
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
    if (auto end = abnormal_end(run, "check", done, ctx_.check_timeout_s, ctx_.options.impl, x.name))
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

  LabContext ctx_;
  std::vector<std::uint64_t> given_seeds_;
  std::vector<const ExerciseSpec*> specs_;  // plan_checks() to finish_grading(): the exercises and their results
  std::vector<ExerciseResult> xs_;
  std::vector<bool> passed_;  // read_checks() on: whether each exercise may go on to its next step
  // The first timed runs, by exercise, once made: by the check run, time_before_sanitizer() or finish_grading().
  std::optional<std::map<std::size_t, lab_run::TimedRun>> first_runs_;
  // plan_checks() to read_checks(): the check run that goes on to time, where it does.
  std::optional<lab_run::ChecksThenTime> checks_then_time_;
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

double monotonic_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

std::vector<LabResult> grade_labs(const std::vector<LabToGrade>& labs, const std::function<void(LabResult&)>& done,
                                  GradingSteps* steps) {
  GradingSteps unused;
  GradingSteps& step = steps ? *steps : unused;
  // Every lab's header first (a bad seed list throws here, before anything runs), then every check of every built
  // lab at once (each check run that may going on to time, one lab at a time once every check has ended), then every
  // lab's lab-wide sanitizer runs at once, then the rest of each lab's sanitizer runs and its timed and concept runs,
  // lab after lab.
  std::vector<LabResult> results;
  std::vector<std::vector<const ExerciseSpec*>> specs(labs.size());
  std::vector<std::unique_ptr<ExerciseGrader>> graders(labs.size());
  std::vector<ProcessOptions> checks;
  std::vector<std::optional<std::size_t>> lab_check(labs.size());  // each lab's first run in `checks`
  std::vector<std::size_t> lab_runs(labs.size());                  // and how many it has (check_runs())
  const auto began = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const LabToGrade& l = labs[i];
    results.push_back(lab_header(*l.lab, *l.manifest, l.options, specs[i]));
    if (!results.back().built || specs[i].empty()) continue;
    graders[i] = std::make_unique<ExerciseGrader>(*l.lab, *l.manifest, l.options, results.back().check_timeout_s,
                                                  results.back().time_timeout_s);
    lab_check[i] = checks.size();
    lab_runs[i] = graders[i]->check_runs(specs[i]);
    checks.resize(checks.size() + lab_runs[i]);
  }
  // A shared hold for each check run, let go as it ends or its timed part asks for the turn: a lab's check run that
  // goes on to time (plan_checks()) has its turn once no other check runs, and one lab at a time. Where the holds
  // cannot be had (no lock file), every lab's check run is a check alone and its timed runs come after.
  const SharedHolds holds(labs.empty() ? std::filesystem::path() : labs.front().options.work_dir, checks.size());
  const bool gated = !checks.empty() && holds.complete();
  for (std::size_t i = 0; i < labs.size(); ++i) {
    if (!lab_check[i]) continue;
    auto planned = graders[i]->plan_checks(specs[i], gated);
    for (std::size_t k = 0; k < lab_runs[i]; ++k) {
      ProcessOptions& check = checks[*lab_check[i] + k];
      check = std::move(planned.at(k));
      if (!gated) continue;
      check.turn_shared_fd = holds.fd(*lab_check[i] + k);
      if (graders[i]->times_after_checks()) check.turn_lock = holds.file();
    }
  }
  step.checks.from = monotonic_seconds();
  // All at once where gated: a run not yet started would keep its hold, and the started ones' turns, waiting.
  const std::vector<ProcessResult> runs = run_processes(checks, gated ? 0 : kUntimedRunsAtOnce);
  // Every lab's lab-wide sanitizer runs at once, as the checks (kUntimedRunsAtOnce bounds them still): lab after lab,
  // each lab's one to three runs made their contexts one at a time between two labs' timed runs.
  std::vector<SanitizerPlan> sanitizer(labs.size());
  std::vector<ProcessOptions> lab_wide;
  std::vector<std::size_t> first_of(labs.size());  // each lab's first run in `lab_wide`
  for (std::size_t i = 0; i < labs.size(); ++i) {
    if (!graders[i] || !lab_check[i]) continue;
    const auto first = runs.begin() + static_cast<std::ptrdiff_t>(*lab_check[i]);
    graders[i]->read_checks({first, first + static_cast<std::ptrdiff_t>(lab_runs[i])}, checks.size() == 1);
    sanitizer[i] = graders[i]->plan_sanitizer();
    first_of[i] = lab_wide.size();
    lab_wide.insert(lab_wide.end(), sanitizer[i].lab_wide.begin(), sanitizer[i].lab_wide.end());
  }
  // The sanitizer's runs in a turn of the host's, where a batch gives one: a host runs sanitized processes nearly one
  // at a time whatever the GPU (a lab's run took about 6 s with one worker grading, 10 s with two and 17 s with four),
  // so workers that reach them together all wait for all; taking turns, the first is done at once and the workers
  // fall out of step, and their later turns seldom meet.
  std::optional<std::filesystem::path> sanitizer_lock;  // the first lab's with sanitizer runs (a batch gives all one)
  for (std::size_t i = 0; i < labs.size() && !sanitizer_lock; ++i)
    if (!sanitizer[i].lab_wide.empty()) sanitizer_lock = labs[i].options.sanitizer_lock;
  step.checks.to = monotonic_seconds();  // with the checks run again alone, where any were
  // The timed steps, lab after lab. Where the host link's turns are taken (a batch: GradeOptions::host_link_lock), a
  // lab whose timed runs cross it goes first, claimed for its whole run (a HostLock on the turns' lock file with
  // ".claim" added, never waited for: held by another, or not to be had, it is not held); a worker that finds the claim
  // held by another times its other labs first, trying again before each, and goes on unclaimed once nothing else is
  // left (its runs still take their turns). Workers grading alike students from one start would otherwise reach the
  // same lab at once and wait for each other's turns exercise by exercise: with four workers, each waits for the
  // other three's copies, about as long as its own lab 07 takes to time. Results stay in lab order.
  const auto crosses_host_link = [&](std::size_t i) {
    return graders[i] && lab_check[i] && labs[i].manifest->host_link && labs[i].options.host_link_lock;
  };
  const auto host_link_claim = [&](std::size_t i) { return labs[i].options.host_link_lock->string() + ".claim"; };
  std::deque<std::size_t> pending;
  for (const bool host_link : {true, false})
    for (std::size_t i = 0; i < labs.size(); ++i)
      if (crosses_host_link(i) == host_link) pending.push_back(i);
  std::vector<ProcessResult> sanitized;
  {
    // While another worker holds the turn, this one times instead of waiting: the first timed runs of its labs not
    // yet timed (a check run times every lab but one over the host link), in the order above, a lab over the host
    // link only with its claim (never waited for), asking for the turn again, never waiting, after each; it waits
    // only when none is left. Its GPU is its own all the while (the other worker's sanitized runs are on theirs),
    // and the timed runs come anyway: on four H100s a student waited 5.7 s for the turn with the GPU idle. The host's
    // two turns so go to two workers at once, one each, where workers in step would take both one after the other,
    // and each wait for the other's lab 07 exercise by exercise. An exercise the sanitizer stops after its timed run
    // earns nothing from it (finish()).
    const auto untimed = [&](std::size_t i) { return graders[i] && lab_check[i] && !graders[i]->timed(); };
    std::optional<HostLock> turn;
    if (sanitizer_lock && !lab_wide.empty())
      for (auto next = pending.begin();; ++next) {
        turn.emplace(sanitizer_lock, HostLock::Wait::kNo);
        if (turn->held()) break;
        next = std::find_if(next, pending.end(), untimed);
        if (next == pending.end()) break;
        std::optional<HostLock> claim;
        if (crosses_host_link(*next)) {
          claim.emplace(host_link_claim(*next), HostLock::Wait::kNo);
          if (!claim->held()) continue;
        }
        const double from = monotonic_seconds();
        graders[*next]->time_before_sanitizer();
        step.labs.push_back({results[*next].number, {from, monotonic_seconds()}});
      }
    const auto asked = std::chrono::steady_clock::now();
    if (!turn || !turn->held()) turn.emplace(sanitizer_lock, HostLock::Wait::kUntilFree);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    for (std::size_t i = 0; i < labs.size(); ++i)
      if (sanitizer_lock && !sanitizer[i].lab_wide.empty()) results[i].sanitizer_wait_s = waited;
    if (!lab_wide.empty()) step.sanitizer.from = monotonic_seconds();
    sanitized = run_processes(lab_wide, kUntimedRunsAtOnce);
    if (!lab_wide.empty()) step.sanitizer.to = monotonic_seconds();
  }
  auto last = began;
  while (!pending.empty()) {
    auto next = pending.begin();
    std::optional<HostLock> claim;
    if (crosses_host_link(*next)) {
      claim.emplace(host_link_claim(*next), HostLock::Wait::kNo);
      const auto other =
          std::find_if(pending.begin(), pending.end(), [&](std::size_t i) { return !crosses_host_link(i); });
      if (!claim->held() && other != pending.end()) next = other;
    }
    const std::size_t i = *next;
    pending.erase(next);
    if (!crosses_host_link(i)) claim.reset();
    LabResult& r = results[i];
    const double from = monotonic_seconds();
    if (graders[i] && lab_check[i]) {
      const auto first = sanitized.begin() + static_cast<std::ptrdiff_t>(first_of[i]);
      r.exercises = graders[i]->finish_grading(
          sanitizer[i], {first, first + static_cast<std::ptrdiff_t>(sanitizer[i].lab_wide.size())});
    }
    const auto now = std::chrono::steady_clock::now();
    r.wall_s = std::chrono::duration<double>(now - last).count();
    last = now;
    step.labs.push_back({r.number, {from, monotonic_seconds()}});
    if (done) done(r);
  }
  return results;
}

}  // namespace grader
