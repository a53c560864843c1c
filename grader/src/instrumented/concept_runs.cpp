// The concept-check step of grading a lab (`grade --concepts`): ncu counters, cuobjdump's SASS and the timed run's
// metrics, read with grader/concepts.hpp's parsers.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "grading/lab_context.hpp"

namespace grader::lab_run {
namespace {

// The program the implementation's kernels run in: its runner (runners/labN-IMPL), or the lab binary itself for a
// lab whose implementations are linked into it.
std::filesystem::path kernel_program(const LabContext& ctx) {
  const auto runner = ctx.options.bin_dir / "runners" / fmt::format("lab{}-{}", ctx.lab.number, ctx.options.impl);
  std::error_code error;
  return std::filesystem::is_regular_file(runner, error) ? runner : std::filesystem::path(ctx.binary);
}

ProcessResult run_tool(const LabContext& ctx, std::vector<std::string> argv,
                       std::vector<std::pair<std::string, std::string>> env = {}) {
  auto p = lab_process(std::move(argv), kConceptTimeoutS, ctx.work, ctx.manifest.work_queues);
  p.env.insert(p.env.end(), env.begin(), env.end());
  p.results_pipe = false;
  p.kill_grace_s = ctx.options.kill_grace_s;
  p.capture_limit = 16 << 20;  // ncu's CSV: a row per metric and launch, after the check's own output
  return run_process(p);
}

// Why a tool run gave nothing to read, or "" when it ran to its end.
std::string tool_failure(const ProcessResult& run, std::string_view tool) {
  if (!run.started) return fmt::format("{} could not start: {}", tool, run.error);
  if (run.timed_out) return fmt::format("{} ran past {:g} s and was stopped", tool, kConceptTimeoutS);
  if (run.survivors > 0) return fmt::format("processes started under {} survived SIGKILL", tool);
  return "";
}

std::optional<double> ncu_concept(const LabContext& ctx, ExerciseResult& x, const ExerciseSpec& spec,
                                  const ConceptSpec& c, std::map<std::string, NcuReport>& reports,
                                  std::map<std::string, std::string>& failures, std::string& why) {
  ConceptTools& tools = *ctx.options.concepts;
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
    ctx.tell(fmt::format("lab{} {}: ncu counters of /{}/ ({})", ctx.lab.number, x.name, c.kernel, ctx.options.impl));
    // TMPDIR is the shared /tmp, not the run's private folder, which a runner started by root cannot enter (it
    // runs as `nobody`) while ncu's library injected into it works in TMPDIR. On an H100 (commit 94a7821, graded as
    // root) every counter check failed with "Failed to prepare kernel for profiling", while ncu started by hand in
    // the same run (TMPDIR unset: /tmp) measured lab 6's kernels through the same runners. Not yet re-run on a GPU.
    const auto run = run_tool(ctx, ncu_command(*tools.ncu, metrics, c.kernel, ctx.binary, ctx.options.impl, x.name),
                              {{"TMPDIR", "/tmp"}});
    x.wall_s += run.wall_s;
    auto report = parse_ncu_csv(run.out + "\n" + run.err);
    if (report.no_permission) {
      tools.ncu_unusable = "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)";
      if (ctx.options.warn)
        ctx.options.warn(fmt::format("--concepts: {}; the counter checks are skipped, which costs no points "
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
  return ncu_value(reports.at(c.kernel), c, kernel_program(ctx).filename().string(), why);
}

// `cuobjdump -sass` of the implementation's program; nullopt with `why` when there is none to read.
std::optional<std::vector<SassFunction>> disassemble(const LabContext& ctx, ExerciseResult& x, std::string& why) {
  const auto& tools = *ctx.options.concepts;
  if (!tools.cuobjdump) {
    why = "cuobjdump not found";
    return std::nullopt;
  }
  ctx.tell(fmt::format("lab{} {}: cuobjdump -sass ({})", ctx.lab.number, x.name, ctx.options.impl));
  const auto run = run_tool(ctx, {tools.cuobjdump->string(), "-sass", kernel_program(ctx).string()});
  x.wall_s += run.wall_s;
  if (why = tool_failure(run, "cuobjdump"); !why.empty()) return std::nullopt;
  if (run.exit_code != 0) {
    why = fmt::format("cuobjdump exited {}{}", run.exit_code, stderr_hint(run));
    return std::nullopt;
  }
  return parse_sass(run.out);
}

}  // namespace

// `grade --concepts`: every concept check of the exercise, after a check that passed (docs/concepts.md). A check
// that cannot be measured is recorded as skipped, with why, and counts in neither the score nor the maximum; one
// that was measured adds its points when its value is in range. The exercise's status never changes.
void measure_concepts(const LabContext& ctx, ExerciseResult& x, const ExerciseSpec& spec) {
  if (!ctx.options.concepts || spec.concepts.empty()) return;
  std::map<std::string, NcuReport> ncu_reports;  // by kernel pattern: one ncu run measures all its metrics
  std::map<std::string, std::string> ncu_failures;
  std::optional<std::vector<SassFunction>> sass;
  std::string sass_failure;
  for (const ConceptSpec& c : spec.concepts) {
    std::optional<double> value;
    std::string why;
    switch (c.tool) {
      case ConceptTool::kNcu: value = ncu_concept(ctx, x, spec, c, ncu_reports, ncu_failures, why); break;
      case ConceptTool::kSass:
        if (!sass && sass_failure.empty()) sass = disassemble(ctx, x, sass_failure);
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

}  // namespace grader::lab_run
