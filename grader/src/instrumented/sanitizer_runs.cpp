// The sanitizer step of grading a lab (`grade --sanitize`): compute-sanitizer around the checks that passed.

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "grader/sanitize.hpp"
#include "grading/lab_context.hpp"

namespace grader::lab_run {
namespace {

// One tool's part of a sanitizer run: the run (one referee, the tools one after another) and the tool's verdict line,
// if the run wrote one. The verdict comes from the referee, which no runner can reach; the run's text (the tools'
// reports, beside whatever the runners print) only words a finding.
struct ToolRun {
  const ProcessResult& run;
  std::optional<ToolVerdict> verdict;
};

ToolRun tool_run(const ProcessResult& run, SanitizerTool tool) {
  const auto verdicts = parse_tool_verdicts(run.results);
  const auto it = verdicts.find(tool);
  return {run, it == verdicts.end() ? std::nullopt : std::optional<ToolVerdict>(it->second)};
}

// A finding is the tool's verdict (its front end's exit code), never the text: a line of the tool's that is no
// finding ("Failed to access the temporary directory.", from a tool that could not work) reads like one.
bool found(const ToolRun& t) { return t.verdict && t.verdict->kind == ToolVerdict::Kind::kFound; }

// Whether the tool hung: the lab binary ended it at its limit (its verdict), or the grader killed a run of it alone
// at the run's limit, before any verdict.
bool hung(const ToolRun& t) {
  return t.verdict ? t.verdict->kind == ToolVerdict::Kind::kHung : t.run.timed_out;
}

// Whether a tool's part of a lab-wide run found nothing and ended as a clean check does (its verdict clean, no
// survivors, no tool in the run that said it could not do its work): only then does it speak for each exercise it
// covered; anything else (a finding, a crash, a hang, a tool that could not run, survivors) is left to the runs of
// one exercise each. Findings are the verdict's alone: the run's text holds every tool's reports, another tool's
// finding among them.
bool clean(const ToolRun& t) {
  if (!t.verdict || t.verdict->kind != ToolVerdict::Kind::kClean || t.run.survivors > 0) return false;
  return parse_sanitizer_output(t.run.out + "\n" + t.run.err).tool_error.empty();
}

// Whether a sanitizer run ended in a way that says nothing of the student's code, so that it is run again alone
// (as a crowded-out check is, read_checks()): it could not start (fork or exec failing under the load of many
// runs), it was killed by a signal, the tool could not attach ("could not run", e.g. its launch time-out on a busy
// machine), the check under the tool failed without a finding (a CUDA error such as out of memory, with every
// tool's copy of the buffers on one GPU: a check that stopped before its kernels ran reads as clean, so a crowd
// could hide a finding), or it hung: the tool itself hangs now and then where the same run ends in seconds every
// other time (lab 6's stub under racecheck on an H200 hung in one run of several), and the check it wraps has
// already passed in its own time limit. Not run again: a finding (the student's kernel, whoever ran beside it) and
// processes that survived SIGKILL (the student's own doing).
bool crowded_out(const ToolRun& t) {
  const ProcessResult& run = t.run;
  if (!run.started || run.timed_out || hung(t)) return run.survivors == 0;
  if (run.survivors > 0) return false;
  if (found(t)) return false;
  const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
  return run.signal != 0 || run.exit_code != 0 || !t.verdict || t.verdict->kind != ToolVerdict::Kind::kClean ||
         !report.tool_error.empty();
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

// One sanitizer run over the exercises `which` of `xs`: `labN check --small` at the first check seed of the first of
// them, once under each of `tools`, each tool ended at its own limit by the lab binary; the run's limit is theirs one
// after another, and a little for the lab binary's own start.
ProcessOptions sanitizer_process(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                                 const std::vector<std::size_t>& which, const std::vector<SanitizerTool>& tools) {
  std::vector<std::string> names;
  for (const std::size_t i : which) names.push_back(xs[i].name);
  const auto& first = xs[which.front()];
  return ctx.process(sanitizer_command(*ctx.options.sanitizer, tools, ctx.binary, ctx.options.impl, names,
                                       first.seeds.empty() ? 1 : first.seeds.front(), kResultsPath,
                                       ctx.manifest.sanitize_timeout_s),
                     sanitizer_run_limit_s(ctx.manifest.sanitize_timeout_s, tools.size()));
}

// What one sanitizer run of `tool` says of exercise `x`: true when it lets the exercise go on (clean, or the tool
// could not run), with an entry in x.sanitized; false with x's status and message set when it stops it. A finding
// is status memory-error or race: the correctness points stay as the check earned them, and no timed run gives
// performance points.
// `hung_over_lab`: the tool's lab-wide run hung too, so this run's hang is its second.
bool sanitized(const LabContext& ctx, ExerciseResult& x, SanitizerTool tool, const ToolRun& t, bool hung_over_lab) {
  const ProcessResult& run = t.run;
  const auto name = std::string(to_string(tool));
  if (run.survivors > 0) return fail(x, Status::kBadOutput, untrusted(run, "compute-sanitizer " + name));
  if (!run.started) return fail(x, Status::kCrash, fmt::format("compute-sanitizer could not start: {}", run.error));
  if (run.timed_out || hung(t))
    return fail(x, Status::kTimeout,
                fmt::format("compute-sanitizer {} hung on the small shapes, {}: killed after {:g} s", name,
                            hung_over_lab ? "over the lab's exercises and on its own" : "alone too",
                            ctx.manifest.sanitize_timeout_s));
  const auto report = parse_sanitizer_output(run.out + "\n" + run.err);
  if (found(t)) {
    const auto first = !report.first_finding.empty() ? report.first_finding
                       : report.errors > 0           ? fmt::format("ERROR SUMMARY: {} errors", report.errors)
                                                     : std::string("the tool's report did not come through");
    x.sanitized.push_back(fmt::format("{}: {}", name, first));
    const bool memory = tool == SanitizerTool::kMemcheck || tool == SanitizerTool::kInitcheck;
    return fail(x, memory ? Status::kMemoryError : Status::kRace,
                fmt::format("every test passed, but compute-sanitizer {} found {} error(s) on the small shapes: {}",
                            name, std::max(report.errors, 1), first));
  }
  if (t.verdict && t.verdict->kind == ToolVerdict::Kind::kClean && report.tool_error.empty()) {
    x.sanitized.push_back(name + ": clean");
    return true;
  }
  // Neither clean nor a finding, twice: the tool could not do its work here (the check it wraps has passed on its
  // own), which the results say, as what the tool said or else how the run ended.
  std::string why = fmt::format("no verdict (exit {})", run.exit_code);
  if (!report.tool_error.empty()) why = report.tool_error;
  else if (!report.first_finding.empty()) why = report.first_finding;
  else if (t.verdict && !t.verdict->message.empty()) why = t.verdict->message;
  x.sanitized.push_back(fmt::format("{}: could not run: {}", name, why));
  return true;
}

}  // namespace

// `grade --sanitize`: a check of the small shapes under each of the manifest's tools, for every exercise of `xs`
// whose check passed, after every check and before any timed run. First one run covering all of them with every
// tool, the tools one after another in one referee, each around a runner of its own: a host makes CUDA processes one
// at a time (about 4 a second, with one GPU or four busy: experiments/context_contention), and a referee a tool made a
// CUDA process a tool more. A tool clean over all of them is clean for each exercise (the same cases, one process).
// Otherwise, and where one exercise passed, the tool runs for each exercise on its own, all at once (at most
// kUntimedRunsAtOnce at a time), and those runs say which exercise a finding belongs to.
// passed[i] becomes false where a run stopped exercise i (sanitized()). The runs of an exercise are read in the
// manifest's tool order, and the first that stops it ends its reading, as if the tools had run one after another.
// (At once they hung on an H200 at 53c385b, when the tool watched the referee too; it watches only the runners now,
// and a run that hangs is run again alone: crowded_out().) An exercise's run that hangs after its tool hung over the
// lab is not run a third time: two hangs in a row are final, so a submission that keeps the GPU busy costs a tool two
// time limits, not three.
// plan_sanitizer() makes the lab-wide run and finish_sanitizer() reads it and makes the rest, so that a grade of
// several labs starts every lab's lab-wide run at once (grade_labs()).
SanitizerPlan plan_sanitizer(const LabContext& ctx, const std::vector<ExerciseResult>& xs,
                             const std::vector<bool>& passed) {
  SanitizerPlan plan;
  if (!ctx.options.sanitizer || ctx.manifest.sanitize.empty()) return plan;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (passed[i]) plan.chosen.push_back(i);
  if (plan.chosen.size() < 2) return plan;
  ctx.tell(fmt::format("lab{} {}: compute-sanitizer {}, one run for all ({})", ctx.lab.number,
                       names_of(xs, plan.chosen), tool_names(ctx), ctx.options.impl));
  plan.lab_wide.push_back(sanitizer_process(ctx, xs, plan.chosen, ctx.manifest.sanitize));
  return plan;
}

void finish_sanitizer(const LabContext& ctx, std::vector<ExerciseResult>& xs, std::vector<bool>& passed,
                      const SanitizerPlan& plan, const std::vector<ProcessResult>& lab_wide) {
  const auto& chosen = plan.chosen;
  if (chosen.empty()) return;
  const std::string names = names_of(xs, chosen), tools = tool_names(ctx);

  std::set<SanitizerTool> clean_for_all;  // tools clean over all of `chosen`
  std::set<SanitizerTool> hung_for_all;   // the tool that hung over all of them
  for (const ProcessResult& run : lab_wide) {
    for (const std::size_t i : chosen) charge(xs[i], run.wall_s / static_cast<double>(chosen.size()));
    bool hang_placed = false;
    for (const SanitizerTool tool : ctx.manifest.sanitize) {
      const ToolRun t = tool_run(run, tool);
      if (clean(t)) clean_for_all.insert(tool);
      if (t.verdict && hung(t)) hung_for_all.insert(tool);  // a verdict of hung: the tool ended at its own limit
      // Tool after tool: in a run the grader killed, the first tool without a verdict hung; those after it never ran.
      if (run.timed_out && !t.verdict && !hang_placed) {
        hung_for_all.insert(tool);
        hang_placed = true;
      }
    }
  }

  std::vector<std::pair<std::size_t, SanitizerTool>> own;  // (exercise, tool) of each run of one exercise
  std::vector<ProcessOptions> runs_to_start;
  for (const std::size_t i : chosen)
    for (const SanitizerTool tool : ctx.manifest.sanitize)
      if (!clean_for_all.contains(tool)) {
        own.emplace_back(i, tool);
        runs_to_start.push_back(sanitizer_process(ctx, xs, {i}, {tool}));
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
      const bool hung_twice = hung(tool_run(run, tool)) && hung_for_all.contains(tool);
      if (crowded_out(tool_run(run, tool)) && !hung_twice) {
        ctx.tell(fmt::format("lab{} {}: compute-sanitizer {} again, alone ({})", ctx.lab.number, xs[i].name,
                             to_string(tool), ctx.options.impl));
        run = run_process(runs_to_start[k - 1]);
        charge(xs[i], run.wall_s);
      }
      passed[i] = sanitized(ctx, xs[i], tool, tool_run(run, tool), hung_twice);
    }
}

}  // namespace grader::lab_run
