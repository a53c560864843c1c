// The sanitizer step of grading a lab (`grade --sanitize`): compute-sanitizer around the checks that passed.

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "grader/sanitize.hpp"
#include "grading/lab_context.hpp"

namespace grader::lab_run {
namespace {

// Whether a lab-wide sanitizer run found nothing and ended as a clean check does (exit 0, the tool attached): only
// then does it speak for each exercise it covered; anything else (a finding, a crash, a hang, a tool that could not
// run, survivors) is left to the runs of one exercise each.
bool clean(const ProcessResult& run) {
  if (!run.started || run.timed_out || run.signal != 0 || run.exit_code != 0 || run.survivors > 0) return false;
  const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
  return !report.found() && report.tool_error.empty();
}

// Whether a sanitizer run ended in a way that says nothing of the student's code, so that it is run again alone
// (as a crowded-out check is, read_checks()): it could not start (fork or exec failing under the load of many
// runs), it was killed by a signal, the tool could not attach ("could not run", e.g. its launch time-out on a busy
// machine), the check under the tool ended with a code other than 0 without a finding (a CUDA error such as out of
// memory, with every tool's copy of the buffers on one GPU: a check that stopped before its kernels ran reads as
// clean, so a crowd could hide a finding), or it hung: the tool itself hangs now and then where the same run ends in
// seconds every other time (lab 6's stub under racecheck on an H200 hung in one run of several), and the
// check it wraps has already passed in its own time limit. Not run again: a finding (the student's kernel, whoever
// ran beside it) and processes that survived SIGKILL (the student's own doing).
bool crowded_out(const ProcessResult& run) {
  if (!run.started || run.timed_out) return run.survivors == 0;
  if (run.survivors > 0) return false;
  const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
  if (report.found()) return false;
  return run.signal != 0 || run.exit_code != 0 || !report.tool_error.empty();
}

// "a, b": the names of the exercises `which` of `xs`, and of the manifest's tools, for the progress lines.
std::string names_of(const std::vector<ExerciseResult>& xs, const std::vector<std::size_t>& which) {
  std::string names;
  for (const std::size_t i : which) names += (names.empty() ? "" : ", ") + xs[i].name;
  return names;
}

std::string tool_names(const LabContext& ctx) {
  std::string tools;
  for (const SanitizerTool tool : ctx.manifest.sanitize)
    tools += (tools.empty() ? "" : ", ") + std::string(to_string(tool));
  return tools;
}

// Seconds of sanitizer runs spent on `x`: its grading's and its sanitizer step's.
void charge(ExerciseResult& x, double seconds) {
  x.wall_s += seconds;
  x.sanitize_s += seconds;
}

// One sanitizer run over the exercises `which` of `xs`: `tool` around `labN check --small` at the first check seed of
// the first of them.
ProcessOptions sanitizer_process(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                                 const std::vector<std::size_t>& which, SanitizerTool tool) {
  std::vector<std::string> names;
  for (const std::size_t i : which) names.push_back(xs[i].name);
  const auto& first = xs[which.front()];
  auto p = ctx.process(sanitizer_command(*ctx.options.sanitizer, tool, ctx.binary, ctx.options.impl, names,
                                         first.seeds.empty() ? 1 : first.seeds.front()),
                       ctx.manifest.sanitize_timeout_s);
  p.results_pipe = false;
  return p;
}

// What one sanitizer run of `tool` says of exercise `x`: true when it lets the exercise go on (clean, or the tool
// could not run), with an entry in x.sanitized; false with x's status and message set when it stops it. A finding
// is status memory-error or race: the correctness points stay as the check earned them, and no timed run gives
// performance points.
// `hung_over_lab`: the tool's lab-wide run hung too, so this run's hang is its second.
bool sanitized(const LabContext& ctx, ExerciseResult& x, SanitizerTool tool, const ProcessResult& run,
               bool hung_over_lab) {
  const auto name = std::string(to_string(tool));
  if (run.survivors > 0) return fail(x, Status::kBadOutput, untrusted(run, "compute-sanitizer " + name));
  if (!run.started) return fail(x, Status::kCrash, fmt::format("compute-sanitizer could not start: {}", run.error));
  if (run.timed_out)
    return fail(x, Status::kTimeout,
                fmt::format("compute-sanitizer {} hung on the small shapes, {}: killed after {:g} s", name,
                            hung_over_lab ? "over the lab's exercises and on its own" : "alone too",
                            ctx.manifest.sanitize_timeout_s));
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

}  // namespace

// `grade --sanitize`: each of the manifest's tools around a check of the small shapes, for every exercise of `xs`
// whose check passed, after every check and before any timed run. First one run a tool covering all of them, the
// tools at once: a host makes CUDA contexts one at a time (about 5 a second, with one GPU or two busy:
// experiments/context_contention), and a run makes two or more, so a run per exercise and tool (55 a student of the
// eight labs) made some 110 of the roughly 270 contexts of a student's grading (counted from the manifests and the
// processes each run starts, not measured). A tool whose lab-wide run is clean is clean for each exercise (the same
// cases, one process). Otherwise, and where one exercise passed, the tool runs for each
// exercise on its own, all at once (at most kUntimedRunsAtOnce at a time), and those runs say which exercise a
// finding belongs to.
// passed[i] becomes false where a run stopped exercise i (sanitized()). The runs of an exercise are read in the
// manifest's tool order, and the first that stops it ends its reading, as if the tools had run one after another.
// (At once they hung on an H200 at 53c385b, when the tool watched the referee too; it watches only the runners now,
// and a run that hangs is run again alone: crowded_out().) An exercise's run that hangs after its tool's lab-wide run
// hung is not run a third time: two hangs in a row are final, as they were before the lab-wide runs, so a submission
// that keeps the GPU busy costs a tool two time limits, not three.
// plan_sanitizer() makes the lab-wide runs and finish_sanitizer() reads them and makes the rest, so that a grade of
// several labs starts every lab's lab-wide runs at once (grade_labs()).
SanitizerPlan plan_sanitizer(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                             const std::vector<bool>& passed) {
  SanitizerPlan plan;
  if (!ctx.options.sanitizer || ctx.manifest.sanitize.empty()) return plan;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (passed[i]) plan.chosen.push_back(i);
  if (plan.chosen.size() < 2) return plan;
  ctx.tell(fmt::format("lab{} {}: compute-sanitizer {}, a run each for all ({})", ctx.lab.number,
                       names_of(xs, plan.chosen), tool_names(ctx), ctx.options.impl));
  for (const SanitizerTool tool : ctx.manifest.sanitize)
    plan.lab_wide.push_back(sanitizer_process(ctx, xs, plan.chosen, tool));
  return plan;
}

void finish_sanitizer(const LabContext& ctx, std::vector<ExerciseResult>& xs, std::vector<bool>& passed,
                      const SanitizerPlan& plan, const std::vector<ProcessResult>& lab_wide) {
  const auto& chosen = plan.chosen;
  if (chosen.empty()) return;
  const std::string names = names_of(xs, chosen), tools = tool_names(ctx);

  std::set<SanitizerTool> clean_for_all;  // tools whose lab-wide run was clean
  std::set<SanitizerTool> hung_for_all;   // tools whose lab-wide run hung
  for (std::size_t t = 0; t < lab_wide.size(); ++t) {
    for (const std::size_t i : chosen) charge(xs[i], lab_wide[t].wall_s / static_cast<double>(chosen.size()));
    if (clean(lab_wide[t])) clean_for_all.insert(ctx.manifest.sanitize[t]);
    if (lab_wide[t].timed_out) hung_for_all.insert(ctx.manifest.sanitize[t]);
  }

  std::vector<std::pair<std::size_t, SanitizerTool>> own;  // (exercise, tool) of each run of one exercise
  std::vector<ProcessOptions> runs_to_start;
  for (const std::size_t i : chosen)
    for (const SanitizerTool tool : ctx.manifest.sanitize)
      if (!clean_for_all.contains(tool)) {
        own.emplace_back(i, tool);
        runs_to_start.push_back(sanitizer_process(ctx, xs, {i}, tool));
      }
  if (!own.empty())
    ctx.tell(fmt::format("lab{} {}: compute-sanitizer {} at once, a run each ({})", ctx.lab.number, names, tools,
                         ctx.options.impl));
  auto runs = run_processes(runs_to_start, kUntimedRunsAtOnce);
  for (std::size_t k = 0; k < own.size(); ++k) charge(xs[own[k].first], runs[k].wall_s);
  std::size_t k = 0;  // the next run of `own`, which follows the same order as the loops below
  for (const std::size_t i : chosen)
    for (const SanitizerTool tool : ctx.manifest.sanitize) {
      if (clean_for_all.contains(tool)) {
        if (passed[i]) xs[i].sanitized.push_back(std::string(to_string(tool)) + ": clean");
        continue;
      }
      ProcessResult& run = runs[k++];
      if (!passed[i]) continue;  // an earlier tool stopped this exercise: its later runs are not read
      const bool hung_twice = run.timed_out && hung_for_all.contains(tool);
      if (crowded_out(run) && !hung_twice) {
        ctx.tell(fmt::format("lab{} {}: compute-sanitizer {} again, alone ({})", ctx.lab.number, xs[i].name,
                             to_string(tool), ctx.options.impl));
        run = run_process(runs_to_start[k - 1]);
        charge(xs[i], run.wall_s);
      }
      passed[i] = sanitized(ctx, xs[i], tool, run, hung_twice);
    }
}

}  // namespace grader::lab_run
