// `labN check`: every (shape, seed) case of the selected exercises as one Catch2 test case with a generator, so the
// console shows Catch2's usual report with CAPTURE'd shape and seed, and each case is also appended, flushed, to a
// JSON-lines file the grader reads (it survives the process dying half-way).
#include "commands.hpp"

#include <harness/cuda_check.hpp>
#include <harness/exit_codes.hpp>
#include <harness/mismatch_hint.hpp>
#include <harness/problem.hpp>
#include <harness/protocol.hpp>
#include <harness/report_budget.hpp>
#include <harness/result_keys.hpp>
#include <harness/runner.hpp>

#include <catch2/catch_message.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <set>

namespace harness::lab_cli {
namespace {

struct Case {
  const ExerciseSpec* spec;
  Shape shape;
  std::uint64_t seed;
  int tool = -1;  // the index in CheckRun::tools of the tool its runner runs under; -1: none
};

// What one tool's runners came to: every front end's end and the cases that failed under it.
struct ToolTally {
  int front_ends = 0;
  bool found = false;       // a front end said it found something
  bool hung = false;        // the tool's limit ran out: a front end was ended at it, or a case never started
  std::string other_end;    // how the first front end that ended otherwise than clean, found or hung ended
  std::size_t failed = 0;   // cases that failed under the tool
  void note(int status, bool past_deadline) {
    ++front_ends;
    const auto end = protocol::front_end_verdict(status, past_deadline);
    if (end.verdict == keys::kFound) found = true;
    else if (end.verdict == keys::kHung) hung = true;
    else if (end.verdict == keys::kFailed && other_end.empty()) other_end = end.how;
  }
};

struct Outcome {
  bool ok = false;
  std::string message;
  MismatchHint hint;      // what the pattern of wrong elements suggests (mismatch_hint.hpp)
  std::string hint_line;  // "hint: ... (see labs/NN_name/README.md#hints)", empty without a specific hint
};

// Every output of `problem` that has a reference for each element, copied to the host after a run (float and int32
// outputs; sampled ones are left out: the classifier needs every element's reference).
struct HostOutputs {
  std::vector<std::pair<const Output<float>*, std::vector<float>>> floats;
  std::vector<std::pair<const Output<std::int32_t>*, std::vector<std::int32_t>>> ints;
};

template <class T>
void download_output(const Buffer* b, std::vector<std::pair<const Output<T>*, std::vector<T>>>& into) {
  const auto* out = dynamic_cast<const Output<T>*>(b);
  if (!out || out->sampled_check()) return;
  std::vector<T> host(out->size());
  // Default: the output is device memory or shared host memory (harness::Memory).
  CUDA_CHECK(cudaMemcpy(host.data(), out->data(), host.size() * sizeof(T), cudaMemcpyDefault));
  into.emplace_back(out, std::move(host));
}

HostOutputs download_outputs(const Problem& problem) {
  CUDA_CHECK(cudaDeviceSynchronize());
  HostOutputs h;
  for (const Buffer* b : problem.buffers()) {
    download_output(b, h.floats);
    download_output(b, h.ints);
  }
  return h;
}

// The first specific hint over the outputs: a difference between the two runs first (a race explains any pattern),
// then the pattern of the first run's wrong elements.
template <class T>
MismatchHint classify_outputs(const std::vector<std::pair<const Output<T>*, std::vector<T>>>& first,
                              const std::vector<std::pair<const Output<T>*, std::vector<T>>>& second,
                              const Shape& shape) {
  for (std::size_t k = 0; k < first.size() && k < second.size(); ++k) {
    const auto& [out, a] = first[k];
    const auto hint = classify_reruns(a.data(), second[k].second.data(), out->reference().data(), a.size(),
                                      out->tolerance());
    if (hint.specific()) return hint;
  }
  for (const auto& [out, a] : first) {
    const auto hint = classify_mismatch(a.data(), out->reference().data(), a.size(), out->tolerance(), shape.dims);
    if (hint.specific()) return hint;
  }
  return {};
}

/// The state of one `check` run, shared with the test case below (Catch2 test cases take no arguments).
struct CheckRun {
  std::string impl;
  // `--tools`: every case once under each tool, tool after tool, the runners through compute-sanitizer's front end
  // (`sanitizer`); after each tool's cases, a line with its verdict.
  std::string sanitizer;
  std::vector<std::string> tools;
  std::vector<ToolTally> tallies;  // by tool; before `runner`, whose front ends report to them as they end
  int pass_tool = -1;              // the tool of the cases run last
  // `--tool-limit`: each tool's cases and its front ends' reports end this long after its first case starts.
  double tool_limit_s = 0;
  std::chrono::steady_clock::time_point tool_deadline = std::chrono::steady_clock::time_point::max();
  std::unique_ptr<Runner> runner;  // made again after a runner dies, so one crash costs one case
  std::unique_ptr<Runner> reference;  // for outputs whose CPU reference is sampled (below)
  std::vector<Case> cases;
  std::ofstream results;
  std::map<std::string, std::size_t> failures;  // by exercise
  std::map<std::string, std::vector<ShapeOutcome>> outcomes;  // by exercise, for classify_shapes
  std::set<std::pair<std::string, MismatchKind>> hints_shown;  // each kind of hint printed once per exercise
  bool expect_reject = false;

  // The next case's Problem, made and generated on a second thread while this case runs: its CPU reference and host
  // inputs are CPU work that used to leave the GPU and the runner idle (lab 07's check spent most of its 25 s there).
  // Not under a CUDA tool (ncu, compute-sanitizer), which serializes kernels across processes: one case at a time.
  std::future<std::unique_ptr<Problem>> next;
  std::size_t next_index = 0;
  bool prefetch = !protocol::cuda_tool_attached();
  // Each exercise's messages' share of the results file, set once the cases are known: the grader reads up to 64 KiB
  // an exercise (a run of several, as much as their own runs would have), so each exercise's part of the report is
  // what its own run would have written.
  std::map<std::string, ReportBudget> budgets;

  static std::unique_ptr<Problem> prepare(const Case& c) {
    auto problem = c.spec->make(c.shape);
    problem->generate(c.seed);
    return problem;
  }
  // Case `index`'s Problem, generated; starts on the one after it. What generate() threw comes out here, in the case
  // it belongs to.
  std::unique_ptr<Problem> take(std::size_t index) {
    std::future<std::unique_ptr<Problem>> made = std::move(next);
    const bool prefetched = made.valid() && next_index == index;
    if (made.valid() && !prefetched) made.wait();  // a case Catch2 skipped: let its thread finish, drop its Problem
    if (prefetch && index + 1 < cases.size()) {
      next_index = index + 1;
      next = std::async(std::launch::async, prepare, cases[index + 1]);
    }
    return prefetched ? made.get() : prepare(cases[index]);
  }

  // The runner for case `c`, under its tool.
  std::unique_ptr<Runner> make_case_runner(const Case& c) {
    if (c.tool < 0) return make_runner(impl);
    return make_runner(impl, {protocol::sanitizer_front_end(sanitizer, tools[c.tool]),
                              [this, t = c.tool](int status, bool past) { tallies[t].note(status, past); },
                              tool_deadline});
  }

  // The first case of tool `tool`'s cases: its limit starts.
  void start_tool(int tool) {
    pass_tool = tool;
    tool_deadline = std::chrono::steady_clock::time_point::max();
    if (tool >= 0 && tool_limit_s > 0)
      tool_deadline = std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(tool_limit_s));
  }

  // Ends the last tool's runner (its front end reports as it ends) and writes the tool's verdict: found where a
  // front end said it found something, hung where the tool's limit ran out, clean where every front end exited 0 and
  // every case passed, else failed.
  void finish_tool() {
    if (pass_tool < 0) return;
    runner.reset();
    const ToolTally& t = tallies[pass_tool];
    std::string_view verdict = keys::kClean;
    std::string detail;
    if (t.found) {
      verdict = keys::kFound;
    } else if (t.hung) {
      verdict = keys::kHung;
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", tool_limit_s);
      detail = std::string("its cases had not ended after ") + limit + " s, its limit";
    } else if (t.front_ends == 0 || !t.other_end.empty() || t.failed > 0) {
      verdict = keys::kFailed;
      detail = t.front_ends == 0      ? "no runner started"
               : !t.other_end.empty() ? t.other_end
                                      : std::to_string(t.failed) + " case(s) failed under the tool";
    }
    if (results.is_open())
      results << nlohmann::json{{keys::kTool, {{keys::kName, tools[pass_tool]}, {keys::kVerdict, verdict},
                                               {keys::kMessage, detail}}}}.dump()
              << std::endl;
    pass_tool = -1;
  }

  void record(const Case& c, Outcome& o) {
    if (!o.ok && c.tool >= 0) ++tallies[c.tool].failed;
    if (!o.ok) ++failures[c.spec->name];
    auto& seen = outcomes[c.spec->name];
    seen.push_back({c.shape.dims, o.ok});
    if (!o.ok && !o.hint.specific()) o.hint = classify_shapes(seen);
    o.hint_line = o.ok ? "" : hint_line(o.hint, lab().id);
    if (!results.is_open()) return;
    auto line = nlohmann::json{{keys::kExercise, c.spec->name}, {keys::kShape, c.shape.str()}, {keys::kSeed, c.seed},
                               {keys::kOk, o.ok}, {keys::kMessage, budgets[c.spec->name].take(o.message)}};
    if (!o.hint_line.empty()) line[keys::kHint] = budgets[c.spec->name].take(o.hint_line);
    // Flushed: the grader must see every finished case even if the next one kills us.
    results << line.dump() << std::endl;
  }

  // After a failed run: the outputs as they are, then a second run on the same inputs, so that the hint can tell a
  // race (the two differ where they are wrong) from a deterministic bug and classify the pattern of the first.
  MismatchHint rerun_for_hint(const Case& c, Problem& problem, Stream& stream) {
    const HostOutputs first = download_outputs(problem);
    if (first.floats.empty() && first.ints.empty()) return {};
    problem.poison(stream.get());
    stream.synchronize();
    runner->open(c.spec->name, problem);
    runner->run();
    runner->close();
    const HostOutputs second = download_outputs(problem);
    if (auto h = classify_outputs(first.floats, second.floats, c.shape); h.specific()) return h;
    return classify_outputs(first.ints, second.ints, c.shape);
  }

  Outcome execute(std::size_t index) {
    const Case& c = cases[index];
    Outcome o;
    if (c.tool != pass_tool) {
      finish_tool();
      start_tool(c.tool);
    }
    // Past the tool's limit no case of it starts (a front end ended at the limit leaves the rest unrun).
    if (c.tool >= 0 && (tallies[c.tool].hung || std::chrono::steady_clock::now() >= tool_deadline)) {
      tallies[c.tool].hung = true;
      o.message = "not run: compute-sanitizer " + tools[c.tool] + "'s limit had run out";
      record(c, o);
      return o;
    }
    try {
      if (!runner) runner = make_case_runner(c);  // started first: its context comes up while the inputs are made
      auto problem = take(index);
      Stream stream;
      problem->poison(stream.get());
      stream.synchronize();
      // Where the CPU reference covers only sampled positions (large shapes of costly references), every element is
      // also compared with the reference implementation's output on the same inputs, on the GPU: a wrong element
      // between the samples cannot pass.
      const bool full = problem->sampled_check() && problem->checks_on_device();
      if (full) {
        if (!reference) reference = make_runner("reference");
        reference->open(c.spec->name, *problem);
        reference->run();
        reference->close();
        problem->save_outputs(1);
        problem->poison(stream.get());
        stream.synchronize();
      }
      runner->open(c.spec->name, *problem);
      runner->run();
      runner->close();
      Verdict v = problem->verify(true);
      if (full) {
        problem->save_outputs(0);
        if (const Verdict all = problem->compare_saved(0, 1); !all.ok)
          v = {false, v.message + (v.message.empty() ? "" : "\n") + all.message};
      }
      o.ok = v.ok;
      o.message = v.message;
      if (!v.ok) {
        try {
          o.hint = rerun_for_hint(c, *problem, stream);
        } catch (const RunnerFailure& e) {  // the verdict stands; the hint is lost with the second run
          if (e.fatal()) runner.reset();
        }
      }
    } catch (const RunnerFailure& e) {
      o.ok = false;
      o.message = e.what();
      if (e.fatal()) runner.reset();
    } catch (const CudaError& e) {
      o.ok = false;
      o.message = e.what();
      if (e.sticky()) {
        // The context is lost: no later case can run. Record this one, then end the process with a code that says
        // so; the grader counts the cases that never ran as failed.
        record(c, o);
        std::cerr << "CUDA error left the device unusable; remaining cases not run:\n" << e.what() << "\n";
        std::fflush(nullptr);
        std::_Exit(expect_reject ? exit_code::kOk : exit_code::kCudaError);
      }
    } catch (const std::exception& e) {
      o.ok = false;
      o.message = std::string("exception: ") + e.what();
    }
    record(c, o);
    return o;
  }
};

CheckRun* active = nullptr;

// `check --small`: up to kSmallShapes of the test shapes of at most kSmallElements elements (the product of the
// extents), spread over the exercise's list, which runs from the edge sizes up, so that partial warps, blocks and
// tiles stay in. Under compute-sanitizer a kernel runs 10-100x slower and every runner start costs seconds.
std::vector<Shape> small_shapes(const std::vector<Shape>& shapes) {
  constexpr std::int64_t kSmallElements = 1 << 16;
  constexpr std::size_t kSmallShapes = 8;
  const auto elements = [](const Shape& s) {
    std::int64_t n = 1;
    for (auto d : s.dims) n *= d;
    return n;
  };
  std::vector<Shape> fit;
  for (const auto& s : shapes)
    if (elements(s) <= kSmallElements) fit.push_back(s);
  if (fit.empty() && !shapes.empty())
    fit.push_back(*std::min_element(shapes.begin(), shapes.end(),
                                    [&](const Shape& a, const Shape& b) { return elements(a) < elements(b); }));
  if (fit.size() <= kSmallShapes) return fit;
  std::vector<Shape> picked;
  for (std::size_t k = 0; k < kSmallShapes; ++k) picked.push_back(fit[k * (fit.size() - 1) / (kSmallShapes - 1)]);
  return picked;
}

}  // namespace

int check(const CheckRequest& request, const char* argv0, std::set<std::string>* failed) {
  const auto names = runner_names();
  const bool mutant = request.impl.rfind(kMutantPrefix, 0) == 0;  // make_runner() knows them; `list` does not
  if (!mutant && std::find(names.begin(), names.end(), request.impl) == names.end()) {
    std::cerr << "unknown implementation '" << request.impl << "' (see `list`)\n";
    return exit_code::kBadSpec;
  }
  const auto launchers = runner_exercises(request.impl);
  const auto has = [&](const std::string& exercise) {
    return std::find(launchers.begin(), launchers.end(), exercise) != launchers.end();
  };
  const auto found = find_exercises(request.exercises);
  if (!found) return exit_code::kBadSpec;
  std::vector<const ExerciseSpec*> specs = *found;
  for (const auto* spec : specs)
    if (!has(spec->name)) {
      std::cerr << "implementation '" << request.impl << "' has no launcher for exercise '" << spec->name << "'\n";
      return exit_code::kBadSpec;
    }
  if (request.exercises.empty()) {
    for (const auto& e : lab().exercises)
      if (has(e.name)) specs.push_back(&e);
    if (specs.empty()) {
      std::cerr << "implementation '" << request.impl << "' has no launcher for any exercise\n";
      return exit_code::kBadSpec;
    }
  }
  if (request.seeds.empty()) {
    std::cerr << "--seeds needs at least one seed\n";
    return exit_code::kUsage;
  }
  for (const auto& tool : request.tools)
    if (protocol::sanitizer_front_end(request.sanitizer, tool).empty()) {
      std::cerr << "unknown tool '" << tool << "' (memcheck, racecheck, synccheck or initcheck)\n";
      return exit_code::kUsage;
    }
  if (!request.tools.empty() && request.sanitizer.empty()) {
    std::cerr << "--tools needs --sanitizer: the path of compute-sanitizer\n";
    return exit_code::kUsage;
  }
  if (request.tool_limit_s > 0 && request.tools.empty()) {
    std::cerr << "--tool-limit needs --tools: it is each tool's limit\n";
    return exit_code::kUsage;
  }
  if (int rc = require_device()) return rc;

  CheckRun run;
  run.impl = request.impl;
  run.expect_reject = request.expect_reject;
  run.sanitizer = request.sanitizer;
  run.tools = request.tools;
  run.tool_limit_s = request.tool_limit_s;
  run.tallies.resize(run.tools.size());
  if (!request.results.empty()) {
    run.results.open(request.results, std::ios::trunc);
    if (!run.results) {
      std::cerr << "cannot write " << request.results << "\n";
      return exit_code::kUsage;
    }
  }
  // Every case once, or once under each tool, tool after tool (a runner, through the tool's front end, a tool).
  const int passes = run.tools.empty() ? 1 : static_cast<int>(run.tools.size());
  for (int pass = 0; pass < passes; ++pass)
    for (const auto* spec : specs)
      for (const auto& shape : request.small ? small_shapes(spec->test_shapes) : spec->test_shapes)
        for (auto seed : request.seeds) run.cases.push_back({spec, shape, seed, run.tools.empty() ? -1 : pass});
  for (const auto* spec : specs) {
    const auto cases = static_cast<std::size_t>(
        std::count_if(run.cases.begin(), run.cases.end(), [&](const Case& c) { return c.spec == spec; }));
    run.budgets[spec->name] = ReportBudget(cases);
    if (run.results.is_open())
      run.results << nlohmann::json{{keys::kPlan, {{keys::kExercise, spec->name}, {keys::kImpl, request.impl},
                                              {keys::kCases, cases}}}}.dump()
                  << std::endl;
  }

  active = &run;
  Catch::Session session;
  std::vector<const char*> args{argv0};
  for (const auto& a : request.catch_args) args.push_back(a.c_str());
  if (session.applyCommandLine(static_cast<int>(args.size()), args.data()) != 0) return exit_code::kUsage;
  session.run();
  run.finish_tool();
  active = nullptr;
  if (failed)
    for (const auto& [name, n] : run.failures) failed->insert(name);

  if (!request.expect_reject) {
    std::size_t failed = 0;
    for (const auto& [name, n] : run.failures) failed += n;
    return failed ? exit_code::kTestFailure : exit_code::kOk;
  }
  bool all_rejected = true;
  for (const auto* spec : specs)
    if (!run.failures.contains(spec->name)) {
      std::cerr << "known-wrong implementation '" << request.impl << "' passed every case of '" << spec->name
                << "': the tests cannot tell it from a right one\n";
      all_rejected = false;
    }
  if (all_rejected) std::cout << "rejected, as it should be: '" << request.impl << "' fails every exercise it has\n";
  return all_rejected ? exit_code::kOk : exit_code::kTestFailure;
}

}  // namespace harness::lab_cli

TEST_CASE("the implementation matches the CPU reference at every shape and seed", "[correctness]") {
  using harness::lab_cli::active;
  REQUIRE(active != nullptr);
  const auto index = GENERATE(Catch::Generators::range(std::size_t{0}, active->cases.size()));
  const auto& c = active->cases[index];
  const std::string exercise = c.spec->name, shape = c.shape.str();
  const auto seed = c.seed;
  CAPTURE(exercise, shape, seed);
  if (c.tool >= 0) UNSCOPED_INFO("under compute-sanitizer " << active->tools[c.tool]);
  const auto outcome = active->execute(index);
  // The hint goes with the failure's message, once per kind and exercise: the same hint on every case is noise.
  const bool new_hint = !outcome.hint_line.empty() && active->hints_shown.insert({exercise, outcome.hint.kind}).second;
  INFO(outcome.message + (new_hint ? "\n" + outcome.hint_line : std::string()));
  if (active->expect_reject) {
    SUCCEED("known-wrong fixture: failures are expected");
  } else {
    CHECK(outcome.ok);
  }
}
