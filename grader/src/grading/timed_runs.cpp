// The timed step of grading a lab: `labN time`, its retimes, the sanity gate on the reference, and the score.

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include <harness/exit_codes.hpp>
#include <harness/host_link.hpp>

#include "lab_context.hpp"

namespace grader::lab_run {
namespace {

namespace ec = harness::exit_code;

// The lab binary's sampling when not told (harness/referee/src/lab/commands.hpp: --max-seconds 3, --min-samples 10).
constexpr double kLabSamplingS = 3.0;
constexpr double kLabMinSamples = 10;
// A timed run whose f is unresolved is run again sampling 2x, then 4x as long: at most this many more runs.
constexpr int kResolveRetimes = 2;

// The value `<graded_by>_<who>` of `from`, a timed run's metrics or their errors (NaN when it is missing).
double metric_of(const ExerciseSpec& spec, std::string_view who, const std::map<std::string, double>& from) {
  const auto it = from.find(fmt::format("{}_{}", spec.graded_by->metric, who));
  return it == from.end() ? std::nan("") : it->second;
}

// An exercise worth no performance points is timed for the report only, the student alone (--student-only).
bool timed_alone(const ExerciseResult& x) { return x.performance_max == 0; }

// The sanity gate (kReferenceGateFraction): true when the manifest records no standing for the reference, or the
// reference reached enough of it in this run. Otherwise the run is invalid: correctness points stay as earned, the
// times stay in the results for a human to see, and no performance points are given.
bool reference_in_standing(ExerciseResult& x, const ExerciseSpec& spec) {
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

// The arguments of a `time` run of `names` under `plan` (its seed, salt seed and whether the student is alone).
// `sampling`: seconds of sampling to ask for (--max-seconds, and ten samples a 3 s: --min-samples), or 0 for the
// manifest's. `alone`: those of `names` timed for the report only in a run whose others are not (--student-only-for).
std::vector<std::string> time_argv(const LabContext& ctx, const std::string& names, const TimePlan& plan,
                                   double sampling, const std::string& alone = "") {
  std::vector<std::string> argv{ctx.binary, "time", "--impl", ctx.options.impl, "--exercise", names, "--results",
                                kResultsPath, "--seed", std::to_string(plan.seed)};
  if (plan.salt_seed) argv.insert(argv.end(), {"--salt-seed", std::to_string(*plan.salt_seed)});
  if (!alone.empty() && !plan.student_only) argv.insert(argv.end(), {"--student-only-for", alone});
  // An exercise worth no performance points is timed for the report only: the student alone, one sample, no last
  // check (lab 04's first stage, half a second a run, took 20 s of every grade at the usual ten samples, 8 s with
  // its reference and baseline at three).
  if (plan.student_only)
    argv.insert(argv.end(), {"--max-seconds", "0", "--student-only"});
  else if (sampling > 0)
    argv.insert(argv.end(), {"--max-seconds", fmt::format("{:g}", sampling), "--min-samples",
                             std::to_string(static_cast<int>(std::ceil(kLabMinSamples * sampling / kLabSamplingS)))});
  else if (ctx.manifest.sampling_s)
    argv.insert(argv.end(), {"--max-seconds", fmt::format("{:g}", *ctx.manifest.sampling_s)});
  return argv;
}

// A `time` run. Where the lab's timed runs cross the host link (lab 07's copies) and other workers share the host,
// the lab binary takes a turn on the batch's lock for each exercise's timed runs, granted by run_process, which
// stops the run's clock while it waits: no two workers time copies at once, the rest of a run (its CUDA context,
// inputs, runners' start and end, first and last checks) goes on beside the others' turns, and waiting is never
// hanging.
ProcessResult launch_time(const LabContext& ctx, std::vector<std::string> argv) {
  ProcessOptions p = ctx.process(std::move(argv), ctx.time_timeout_s);
  if (ctx.manifest.host_link && ctx.options.host_link_lock) {
    p.argv.insert(p.argv.end(), {"--host-link-turn-fd", std::to_string(harness::host_link::kTurnFd)});
    p.turn_lock = ctx.options.host_link_lock;
  }
  return run_process(p);
}

TimePlan time_plan(const LabContext& ctx, const ExerciseResult& x, std::uint64_t seed) {
  return {x.name, ctx.options.impl, seed, ctx.options.timed_salt_seed, timed_alone(x)};
}

// Reads `run`, the `time` run of `plan` (its results: this exercise's alone); true when the timed run was correct
// and its medians are usable.
bool read_time(const LabContext& ctx, ExerciseResult& x, const TimePlan& plan, const ProcessResult& run) {
  x.timed_seed = plan.seed;
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
  if (auto end = abnormal_end(run, "time", "", ctx.time_timeout_s, ctx.options.impl, x.name))
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

// A `time` run of exercise x alone (`sampling`: as time_argv()'s), not yet read.
TimedRun own_run(const LabContext& ctx, const ExerciseResult& x, double sampling) {
  const TimePlan plan = time_plan(ctx, x, ctx.options.timed_seed.value_or(fresh_seed()));
  ctx.tell(fmt::format("lab{} {}: time ({})", ctx.lab.number, x.name, ctx.options.impl));
  return {plan, launch_time(ctx, time_argv(ctx, x.name, plan, sampling))};
}

// Runs `time` for exercise x alone; true when the timed run was correct and its medians are usable.
bool time(const LabContext& ctx, ExerciseResult& x, double sampling = 0) {
  const TimedRun t = own_run(ctx, x, sampling);
  return read_time(ctx, x, t.plan, t.run);
}

// The formula's inputs from x's last timed run (`timed_ok`: it ran, was right and its reference was in standing).
Score score(const LabContext& ctx, const ExerciseResult& x, const ExerciseSpec& spec, bool timed_ok) {
  const auto median = [](const std::optional<RunnerTiming>& r) { return r ? r->median_ms : 0.0; };
  const auto noise = [](const std::optional<RunnerTiming>& r) { return r ? r->noise_pct.value_or(0) : 0.0; };
  const auto error = [](const std::optional<RunnerTiming>& r) {
    return r ? median_log_error(r->noise_pct.value_or(0), r->samples.value_or(0)) : 0.0;
  };
  ScoreInputs in{spec.correctness_points, spec.performance_points, x.tests_passed, x.tests_total, timed_ok};
  in.full_marks_at = ctx.manifest.full_marks_at;
  in.zero_at_most = spec.zero_at_most;
  in.zero_margin = spec.zero_margin;
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
    in.student_event_ms = t.student.event_median_ms.value_or(0);
    in.reference_event_ms = t.reference ? t.reference->event_median_ms.value_or(0) : 0;
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
                               spec.graded_by->full_marks_at,
                               spec.graded_by->zero_at};
    }
  }
  return score_exercise(in);
}

}  // namespace

namespace {

// The one `labN time` of the exercises `which` of `xs` (time_together()): its arguments and seed, or nullopt where
// they cannot share one (none, or a salt seed to replay: `--timed-salt-seed` is one exercise's).
struct TogetherRun {
  std::vector<std::string> argv;
  std::uint64_t seed = 0;
  std::string listed;  // "a, b", for the progress line
};

std::optional<TogetherRun> together_run(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                                        const std::vector<std::size_t>& which) {
  if (which.empty() || ctx.options.timed_salt_seed) return std::nullopt;
  TogetherRun t;
  t.seed = ctx.options.timed_seed.value_or(fresh_seed());
  std::string names, alone;
  bool all_alone = true;
  for (const std::size_t i : which) {
    names += (names.empty() ? "" : ",") + xs[i].name;
    t.listed += (t.listed.empty() ? "" : ", ") + xs[i].name;
    if (timed_alone(xs[i])) alone += (alone.empty() ? "" : ",") + xs[i].name;
    else all_alone = false;
  }
  // The run's own flags: every exercise's plan but whether the student is alone, which is the run's only if it is
  // every exercise's; otherwise those timed for the report only are named (--student-only-for).
  TimePlan run_plan = time_plan(ctx, xs[which.front()], t.seed);
  run_plan.student_only = all_alone;
  t.argv = time_argv(ctx, names, run_plan, 0, alone);
  return t;
}

// Reads the one `time` run of `which` (`results`: its time lines; `ended_well`: it ended as a `time` run may): each
// exercise whose line came through whole, as the plan asked, right and timed.
std::map<std::size_t, TimedRun> read_together(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                                              const std::vector<std::size_t>& which, std::uint64_t seed,
                                              const std::string& results, bool ended_well) {
  std::map<std::size_t, TimedRun> first;
  if (!ended_well) return first;
  // Each line by the exercise it names, then read as that exercise's plan says (a full run's, or the student's alone).
  std::map<std::string, std::string> lines;
  std::istringstream text(results);
  for (std::string line; std::getline(text, line);)
    if (const TimeFile f = parse_time_results(line); f.error.empty() && !f.exercise.empty())
      lines.emplace(f.exercise, line);
  for (const std::size_t i : which) {
    const auto found = lines.find(xs[i].name);
    if (found == lines.end()) continue;
    const std::string& line = found->second;
    const TimePlan plan = time_plan(ctx, xs[i], seed);
    const TimeFile f = parse_time_results(line, plan.student_only);
    if (!f.error.empty() || !contradiction(f, plan).empty() || f.correct != true || !f.timing) continue;
    ProcessResult alone;  // as this exercise's own run would have ended; its seconds are counted by the caller
    alone.started = true;
    alone.exit_code = ec::kOk;
    alone.results = line;
    first.emplace(i, TimedRun{plan, std::move(alone)});
  }
  return first;
}

// Whether `run` ended as a `time` run may: exit 0, or 112 where an exercise was wrong; no signal, time-out or
// survivor, and its results whole.
bool ended_as_time_may(const ProcessResult& run) {
  return run.started && !run.timed_out && run.signal == 0 && run.survivors == 0 && !run.results_truncated &&
         (run.exit_code == ec::kOk || run.exit_code == ec::kTestFailure);
}

}  // namespace

// The first timed runs of the exercises `which` of `xs`, in one `labN time` whose runners serve them all, one after
// another: each exercise timed exactly as alone (its own problem, rounds, checks and result), without three more
// runner processes and a referee of its own, each a CUDA context, which a host makes one at a time (about five a
// second, experiments/context_contention): a lab's timed runs made most of a grading's contexts. An exercise worth no
// performance points is timed there too, for the report, with the student alone as its own run would (named by
// --student-only-for; the grader lists them last, after every exercise that needs the three runners). An exercise's
// result is taken only from a run that ended as a `time` run may (exit 0, or 112 where a later exercise was wrong; no
// signal, time-out or survivor) and only if it reads whole, as the plan asked, right and timed; every other exercise
// of `which` (a wrong one, those after it, all of a crashed or hung run) is timed on its own by finish(), whose
// verdict is then the same as without this run. Not with a salt seed to replay (`--timed-salt-seed`: one exercise's).
// One exercise gets the run finish() would make for it, read there whatever it says: made here, it can go before the
// sanitizer's runs (grade_labs()).
std::map<std::size_t, TimedRun> time_together(const LabContext& ctx, std::vector<ExerciseResult>& xs,
                                              const std::vector<std::size_t>& which) {
  if (which.size() == 1) return {{which.front(), own_run(ctx, xs[which.front()], 0)}};
  const auto together = together_run(ctx, xs, which);
  if (!together) return {};
  ctx.tell(fmt::format("lab{} {}: time, one run for all ({})", ctx.lab.number, together->listed, ctx.options.impl));
  const ProcessResult run = launch_time(ctx, together->argv);
  const double share = run.wall_s / static_cast<double>(which.size());
  for (const std::size_t i : which) {
    xs[i].wall_s += share;
    xs[i].time_s += share;
  }
  return read_together(ctx, xs, which, together->seed, run.results, ended_as_time_may(run));
}

std::vector<std::size_t> timed_order(const std::vector<ExerciseResult>& xs, const std::vector<bool>& passed) {
  std::vector<std::size_t> order;
  for (const bool graded_by_time : {true, false})
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (passed[i] && (xs[i].performance_max > 0) == graded_by_time) order.push_back(i);
  return order;
}

std::optional<ChecksThenTime> checks_then_time(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                                               const std::vector<std::uint64_t>& check_seeds) {
  if (ctx.manifest.host_link && ctx.options.host_link_lock) return std::nullopt;
  // Every exercise, in the order of those that will pass: the lab binary leaves out those that fail.
  auto together = together_run(ctx, xs, timed_order(xs, std::vector<bool>(xs.size(), true)));
  if (!together) return std::nullopt;
  together->argv.insert(together->argv.end(), {"--check-seeds", join_seeds(check_seeds), "--timed-turn-fd",
                                               std::to_string(harness::host_link::kTurnFd)});
  ProcessOptions p = ctx.process(std::move(together->argv), ctx.check_timeout_s + ctx.time_timeout_s);
  p.capture_limit *= xs.size() + 1;  // each exercise's check report as its own run's, and the time lines
  return ChecksThenTime{std::move(p), together->seed};
}

std::map<std::size_t, TimedRun> read_checks_then_time(const LabContext& ctx, std::vector<ExerciseResult>& xs,
                                                      const std::vector<std::size_t>& which,
                                                      const ChecksThenTime& plan, const ProcessResult& run,
                                                      const std::string& time_lines) {
  // Its seconds from the turn on are its timed runs', shared by the exercises it could have timed.
  const double share = run.turns > 0 && !which.empty()
                           ? (run.wall_s - run.first_turn_s) / static_cast<double>(which.size())
                           : 0.0;
  for (const std::size_t i : which) {
    xs[i].wall_s += share;
    xs[i].time_s += share;
  }
  return read_together(ctx, xs, which, plan.seed, time_lines, ended_as_time_may(run));
}

// Timed run, score and concept checks of an exercise whose check and sanitizer runs ended (`passed`: every test
// passed and no sanitizer run stopped it). A timed run that leaves f unresolved (kResolvedFractionSd), or whose f the
// referee's clock moved (kHostChargeTolerance), is run again, sampling twice as long each time, at most
// kResolveRetimes times: the grade keeps the last run. `first`, when given, is its first timed run, made by
// time_together().
ExerciseResult finish(const LabContext& ctx, ExerciseResult x, const ExerciseSpec& spec, bool passed,
                      const TimedRun* first) {
  // The sanity gate guards performance points: an exercise timed alone has no reference time to check.
  const auto gated = [&](bool read) { return read && (timed_alone(x) || reference_in_standing(x, spec)); };
  const auto timed = [&](double sampling) { return gated(time(ctx, x, sampling)); };
  const double sampling = ctx.manifest.sampling_s.value_or(kLabSamplingS);
  bool timed_ok = passed && (first ? gated(read_time(ctx, x, first->plan, first->run)) : timed(0));
  x.score = score(ctx, x, spec, timed_ok);
  const auto charged = [&] { return std::abs(x.score.host_charge) > kHostChargeTolerance; };
  const auto unsettled = [&] { return x.score.perf_fraction_sd > kResolvedFractionSd || charged(); };
  for (int retime = 1; timed_ok && retime <= kResolveRetimes && unsettled(); ++retime) {
    timed_ok = timed(sampling * (1 << retime));
    x.score = score(ctx, x, spec, timed_ok);
  }
  if (timed_ok && x.timing->reference) {
    x.message = fmt::format("{}/{} tests passed; {:.2f}x the reference time (full marks at {:g}x)", x.tests_passed,
                            x.tests_total, x.timing->student.median_ms / x.timing->reference->median_ms,
                            ctx.manifest.full_marks_at);
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
    // Said where the referee's clock, not the kernels' events, still moved f after the retimes (formula.hpp,
    // kHostChargeTolerance): the grade stands, and the student sees what set it.
    if (charged()) {
      const auto overhead = [](const RunnerTiming& r) { return r.median_ms / *r.event_median_ms; };
      x.message += fmt::format("; in the last of {} timed runs the referee's clock, not the CUDA events, set the "
                               "times (the student's {:.2f}x its events', the reference's {:.2f}x), which moved the "
                               "performance fraction by {:+.2f} (docs/protocol.md, \"Resolution\")",
                               x.timed_runs, overhead(x.timing->student), overhead(*x.timing->reference),
                               x.score.host_charge);
    }
    // Correctness points stay as earned; no performance points are given by chance (formula.cpp).
    if (!x.score.ungraded.empty())
      fail(x, Status::kInvalidRun,
           fmt::format("{}/{} tests passed, but {}", x.tests_passed, x.tests_total, x.score.ungraded));
  } else if (timed_ok) {
    x.message = fmt::format("{}/{} tests passed; timed for the report only (no performance points)", x.tests_passed,
                            x.tests_total);
  }
  if (passed) measure_concepts(ctx, x, spec);
  return x;
}

}  // namespace grader::lab_run
