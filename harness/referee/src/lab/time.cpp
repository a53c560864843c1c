// `labN time`: student, reference and baseline, each in its own runner process (runner.hpp), timed interleaved with the
// ceiling and the peers (course code, run here) at the exercise's timed shape; several exercises one after another,
// by the same runners, each timed exactly as it would be alone.
//
// What a submission cannot get away with here:
// - caching, skipping work, returning early, or leaving work on a stream of its own: every round of timed runs gets
//   new inputs made on the GPU, every timed run starts from poisoned outputs, and its output is compared on the GPU
//   with the reference's output of the same round (the runner answers only once the device is idle);
// - forging its event times: each sample counts as at least the referee's own clock around the command, less the
//   overhead the reference's runner pays for the same command (its 90th percentile);
// - touching the inputs: they are compared with a pristine copy after every timed run;
// - being faster than the hardware allows: a rate above kImpossible times the ceiling's is refused, never graded;
// - slowing the others down: every runner is stopped outside its turn (runner.hpp), and before every timed sample the
//   GPU must be idle (IdleGpu): work a runner left queued is waited out, and still running after kIdleLimitS it is
//   refused.
#include "commands.hpp"

#include <fcntl.h>
#include <sys/prctl.h>

#include <harness/cuda_check.hpp>
#include <harness/exit_codes.hpp>
#include <harness/host_link.hpp>
#include <harness/measures.hpp>
#include <harness/problem.hpp>
#include <harness/process_tree.hpp>
#include <harness/result_keys.hpp>
#include <harness/runner.hpp>
#include <harness/timing.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>

namespace harness::lab_cli {
namespace {

constexpr double kImpossible = 1.25;  // the references reach at most ~1.03x their ceiling (results/h200.json)
// How long the GPU may stay busy before a timed sample: far longer than any fair contender's leftover (none: a runner
// answers once its device is idle, and is stopped), far shorter than a time limit.
constexpr double kIdleLimitS = 2.0;

// Where each exercise's result goes: one JSON object a line, flushed, to the results file (the grader's pipe: a run
// over several exercises writes one line each, in order), or, without one, printed for a person.
class ResultsOut {
 public:
  // `after_checks`: the lines go after a check's (`time --check-seeds`), not in their place.
  ResultsOut(const std::string& path, bool after_checks) {
    if (!path.empty()) file_.open(path, after_checks ? std::ios::app : std::ios::trunc);
  }
  bool usable() const { return !file_.is_open() || file_.good(); }
  int write(const nlohmann::json& j, int rc) {
    if (!file_.is_open()) {
      std::cout << j.dump(1) << "\n";
      return rc;
    }
    file_ << j.dump() << "\n" << std::flush;
    return file_ ? rc : exit_code::kUsage;
  }

 private:
  std::ofstream file_;
};

using Runners = std::map<std::string, std::unique_ptr<Runner>>;

// The host work of a check run's first timed exercise (generate(): its inputs and CPU reference), done before the
// timed turn is asked for, while the worker's other labs still check: inside the turn, one lab at a time, each
// generate() left the GPU idle for up to a second. Made in host-only mode (set_host_only), so that nothing of it
// touches the GPU, which may be timing another lab by then; the device part comes in the turn (Problem::to_device()).
// The first exercise alone: made ahead, a generate() is not gone but moved beside the worker's checks, and all of a
// lab's moved four times as much host work there, the checks growing by about what the turns saved, while another
// worker's lab 07, timed meanwhile, saw more of the host's memory written (docs/batch.md). The second exercise's is
// made the same way in the turn, while the runners' CUDA contexts come up (time_with()): the first's generate() had
// hidden their start, and made ahead, it no longer does.
struct Ahead {
  const ExerciseSpec* spec = nullptr;
  std::unique_ptr<Problem> problem;  // generated, host-only; taken by the exercise's time_one()
  double seconds = 0;                // what its generate() took
  const char* phase = "";            // the phases_s key of those seconds: where they were spent
};

// Made ahead only where the host can spare the memory: the problem's host data at most this share of the memory
// available then, since each lab of a worker keeps its own until its turn (and each lab after it finds less).
constexpr std::size_t kAheadMemoryShare = 16;

// /proc/meminfo's MemAvailable in bytes, or 0 where it cannot be read (then nothing is made ahead).
std::size_t available_memory() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    std::size_t kib = 0;
    if (key == "MemAvailable:" && in >> kib) return kib * 1024;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

// `spec`'s problem made and generated ahead, at its timed shape with the run's seed, as its time_one() would, its
// seconds to be reported as `phase`; nothing where it cannot be: buffers in host memory (page-locked when made, which
// needs the GPU), more memory than the host spares, a generate() that throws (it throws again in its time_one(),
// where it is reported as it always was).
Ahead make_ahead(const TimeRequest& timed, const ExerciseSpec* spec, const char* phase) {
  Ahead ahead;
  if (!spec || !timed.shape.empty()) return ahead;
  struct HostOnly {
    HostOnly() { set_host_only(true); }
    ~HostOnly() { set_host_only(false); }
  };
  const auto began = std::chrono::steady_clock::now();
  try {
    const HostOnly host_only;
    auto problem = spec->make(spec->timed_shape);
    if (!problem->can_move_to_device() || problem->host_bytes() > available_memory() / kAheadMemoryShare) return ahead;
    problem->generate(timed.seed);
    ahead.problem = std::move(problem);
  } catch (const std::exception&) {
    return ahead;
  }
  ahead.spec = spec;
  ahead.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ahead.phase = phase;
  return ahead;
}

// `ahead`: a problem generated before this exercise's time_one() (make_ahead()), its own or another's; or null.
int time_one(const ExerciseSpec* spec, const TimeRequest& request, const std::vector<std::string>& roles,
             Runners& runners, ResultsOut& results, Ahead* ahead) {
  const Shape shape = request.shape.empty() ? spec->timed_shape : Shape::parse(request.shape);
  // Where a time run spends its seconds (the JSON's "phases_s"): what fast grading has to cut.
  const auto began = std::chrono::steady_clock::now();
  auto last = began;
  nlohmann::json phases = nlohmann::json::object();
  const auto phase_done = [&](const char* name) {
    const auto now = std::chrono::steady_clock::now();
    phases[name] = std::chrono::duration<double>(now - last).count();
    last = now;
  };
  CUDA_CHECK(cudaFree(nullptr));  // the CUDA context, made here and timed on its own (made already after the first)
  phase_done("context");
  const DeviceInfo device = device_info();
  Stream stream;
  const bool made_ahead = ahead && ahead->spec == spec && ahead->problem && request.shape.empty();
  auto problem = made_ahead ? std::move(ahead->problem) : spec->make(shape);
  phase_done("setup");
  // The lab's generate(): its host work (inputs, CPU reference) and, within it, the inputs' trip to the GPU; or, made
  // ahead, the trip alone (the host work's seconds apart: generate_ahead, before the turn, the check run's, not this
  // run's; generate_beside_runners, in the turn while the runners started, before the first exercise's phases).
  const double device_before = input_device_seconds();
  if (made_ahead) {
    problem->to_device();
    phases[ahead->phase] = ahead->seconds;
  } else {
    problem->generate(request.seed);
  }
  phases["generate_device"] = input_device_seconds() - device_before;
  phase_done("generate");
  const Work work = problem->work();
  const bool memory = spec->bound == Bound::memory;

  // The seed of every salt of the rounds below, drawn now that the runners are up (none can know it), or the one
  // given to replay them; in every result, a wrong one too, so that the grader can check what it asked for.
  std::uint64_t salt_seed = 0;
  if (request.salt_seed) {
    salt_seed = *request.salt_seed;
  } else {
    std::random_device device;
    salt_seed = (std::uint64_t{device()} << 32) ^ device();
  }
  nlohmann::json out = {{keys::kExercise, spec->name},
                        {keys::kImpl, request.impl},
                        {keys::kShape, shape.str()},
                        {keys::kSeed, request.seed},
                        {keys::kSaltSeed, salt_seed},
                        {keys::kWork, {{keys::kBytes, work.bytes}, {keys::kFlops, work.flops}}},
                        {keys::kUnit, memory ? "GB/s" : "GFLOP/s"},
                        {keys::kCorrect, true},
                        {keys::kMessage, ""},
                        {keys::kRunners, nlohmann::json::object()}};
  const auto wrong = [&](const std::string& message) {
    out[keys::kCorrect] = false;
    out[keys::kMessage] = message;
    return results.write(out, exit_code::kTestFailure);
  };

  for (const auto& role : roles) {
    try {
      runners[role]->open(spec->name, *problem);
    } catch (const RunnerFailure& e) {  // the student's runner died before its first run (a static initializer?)
      if (role != "student") throw std::logic_error("the " + role + "'s runner failed: " + e.what());
      return wrong(std::string("the submission's runner failed before its first run: ") + e.what());
    }
  }
  phase_done("runners");
  /// One run of `role` on freshly poisoned outputs, checked (on the GPU where the problem allows); the runner's times,
  /// or a failure message. Problems checked only on the host (lab 07's host arrays) are checked in full before and
  /// after the timing, and each timed run at random positions (verify_sample).
  const auto checked_run = [&](const std::string& role, std::string& failure, bool check = true) -> Sample {
    problem->poison(stream.get());
    stream.synchronize();
    try {
      const Sample s = runners.at(role)->run();
      if (check) {
        const Verdict v = problem->checks_on_device() ? problem->verify_on_device() : problem->verify(true);
        if (!v.ok) failure = v.message;
      }
      return s;
    } catch (const RunnerFailure& e) {
      failure = e.what();
      return {};
    }
  };

  // The course's own implementations must be right at the timed shape, or no grade based on them means anything.
  for (const auto& role : roles) {
    if (role == "student") continue;
    std::string failure;
    checked_run(role, failure);
    if (!failure.empty())
      throw std::logic_error("the " + role + " is wrong at shape " + shape.str() + ": " + failure);
  }
  if (std::string failure; checked_run("student", failure), !failure.empty())
    return wrong("wrong at the timed shape " + shape.str() + ": " + failure);
  phase_done("first_checks");
  // The host link's turn (`--host-link-turn-fd`), for the timed runs: every run of a contender here crosses between
  // host and GPU where the lab's copies do, and another worker's copies in the meantime would slow it. What is not
  // timed (context, inputs, runners, the first checks and the last, whose full checks of host arrays take up to a
  // second an exercise in lab 07) comes before the wait or after the turn: each worker holds the host's one turn only
  // as long as its samples take. The grader's clock of this run stands still while it waits.
  std::optional<host_link::Turn> turn;
  if (request.host_link_turn_fd >= 0) {
    turn.emplace(request.host_link_turn_fd);
    phase_done("host_link_wait");
  }

  // Timing. Where the problem allows (refreshable()), every round gets new inputs, made on the GPU from a salt this
  // process draws, and each runner's output is kept and compared, after the round, with the reference's output of
  // the same round: no answer can be cached, skipped or detected. Otherwise every timed output is checked against the
  // CPU reference: in full on the GPU, or, for outputs in host memory, at random positions drawn after the run. A wrong
  // timed output stops the timing and fails the exercise.
  // Without the reference's runner there is nothing to compare fresh inputs' outputs with: the CPU reference checks
  // every timed output instead (a time for the report only, so caching could win nothing).
  const bool fresh = problem->refreshable() && !request.student_only;
  std::mt19937_64 salts(salt_seed);
  const std::map<std::string, std::size_t> slot = {{"student", 0}, {"reference", 1}, {"baseline", 2}};
  L2Flusher flusher(device.l2_bytes);
  std::map<std::string, std::size_t> timed_runs;  // by runner: its runs since the first checks, for the messages
  struct TimedWrong : std::runtime_error {
    TimedWrong(std::string who, const std::string& what) : std::runtime_error(what), role(std::move(who)) {}
    std::string role;
  };
  const auto timed_wrong = [&](const std::string& role, const std::string& failure) {
    return TimedWrong(role, role + "'s output of timed run " + std::to_string(timed_runs[role]) +
                                " is wrong: " + failure);
  };
  std::set<std::string> ran;  // the runners that ran in this round: a capped baseline sits rounds out
  // The baseline anchors where points start, and a grade moves little with it (df = (1 - f) dln(t_b) / ln(t_b /
  // full)), while its runs are the slowest: three samples (a median), then it sits out (with five, warp_atomic's
  // timing phase, around a 471 ms baseline, took 2.81 s of its 4.9 s time run on an H200). Each runner ran once at
  // this shape in the first checks above: no warm-up run.
  constexpr std::size_t kBaselineSamples = 3;
  std::vector<Contender> contenders;
  for (const auto& role : roles)
    contenders.push_back({role, [&, role] {
                            ran.insert(role);
                            ++timed_runs[role];
                            flusher.flush(stream.get());
                            std::string failure;
                            const Sample s = checked_run(role, failure, !fresh && problem->checks_on_device());
                            if (fresh && failure.empty()) {
                              if (const Verdict v = problem->verify_unchanged(); !v.ok) failure = v.message;
                              problem->save_outputs(slot.at(role));
                            }
                            // Checked on the host (lab 07's pipelines): random positions drawn after the run, so a
                            // run that skips part of the work while its inputs stay the same cannot pass.
                            if (!problem->checks_on_device() && failure.empty())
                              if (const Verdict v = problem->verify_sample(salts()); !v.ok) failure = v.message;
                            if (!failure.empty()) throw timed_wrong(role, failure);
                            return s;
                          },
                          role == "baseline" ? kBaselineSamples : 0, true});
  const Measures& measures = measures_of(spec->name);
  auto ceiling = measures.ceiling ? measures.ceiling(shape) : copy_ceiling(work.bytes);
  contenders.push_back({"ceiling", stream_sample([&](cudaStream_t s) { ceiling->run(s); }, stream.get(), flusher)});
  // Peers are reported, never graded: three samples (a median), like the baseline, and their noise (lab 07's copies
  // alone) no longer holds up the rounds of the runners that are graded.
  for (const Peer& peer : measures.peers)
    contenders.push_back({peer.name,
                          stream_sample([&](cudaStream_t s) { peer.run(*problem, s); }, stream.get(), flusher),
                          kBaselineSamples});
  // Every sample starts on an idle GPU (IdleGpu): what the contender before it left running is waited out, outside
  // every timed interval, and a runner whose work is still running kIdleLimitS after its turn is refused. The waits
  // are reported, by the contender that ran before them.
  IdleGpu idle(stream.get());
  std::string previous = "student";  // the contender that ran last: the student's first check, just above
  nlohmann::json idle_waits = nlohmann::json::object();
  for (Contender& c : contenders)
    c.sample = [&, name = c.name, sample = std::move(c.sample)] {
      const double waited = idle.wait(kIdleLimitS);
      if (waited != 0.0) {
        auto& w = idle_waits[previous];
        if (!w.is_object()) w = {{"count", 0}, {"ms", 0.0}};
        w["count"] = w["count"].get<int>() + 1;
        w["ms"] = w["ms"].get<double>() + (waited < 0 ? 1000.0 * kIdleLimitS : waited);
      }
      if (waited < 0 && previous == "student")
        throw timed_wrong("student", "the GPU was still busy " + std::to_string(static_cast<int>(kIdleLimitS)) +
                                         " s after its runner had answered and been stopped: work left running "
                                         "outside its turn slows whoever is timed next (refused)");
      previous = name;
      return sample();
    };
  const auto new_inputs = [&] {
    problem->refresh_inputs(salts());
    ran.clear();
  };
  const auto compare_round = [&] {
    if (!ran.contains("reference")) return;  // a warm-up round: the runners sat it out
    for (const std::string role : {"baseline", "student"})
      if (ran.contains(role))
        if (const Verdict v = problem->compare_saved(slot.at(role), slot.at("reference")); !v.ok)
          throw timed_wrong(role, v.message);
  };
  TimingOptions options;
  options.max_seconds = request.max_seconds;
  options.min_samples = std::max<std::size_t>(request.min_samples, options.floor_samples);
  // Timed alone, an exercise earns no points by its time (grader: timed_alone): one sample is its report. It ran once
  // at this shape already (the first checks); lab 04's atomic stage costs 472 ms a run on an H200.
  if (request.student_only) options.floor_samples = 1;
  std::vector<ContenderRecord> records;
  try {
    records = fresh ? time_interleaved(contenders, options, new_inputs, compare_round)
                    : time_interleaved(contenders, options);
  } catch (const TimedWrong& e) {
    if (e.role != "student") throw std::logic_error(e.what());  // the course's own implementations disagree
    return wrong(e.what());
  }
  out[keys::kFreshInputsEveryRound] = fresh;
  out[keys::kStudentOnly] = request.student_only;
  out["idle_waits"] = idle_waits;
  turn.reset();
  phase_done("timing");

  // The runners' samples bounded by the host clock, with the overhead of the course's two runners (their
  // 90th-percentile gap between the referee's clock and their events, 0.2-0.4 ms on an H200): a fair runner's samples
  // almost never exceed it, so they are graded by their events; a forged event time gains at most that. (The median
  // gap raised half of every runner's samples by its jitter: the reference graded itself at 1.11x on 0.36 ms kernels;
  // the reference's gap alone graded a fair student at 1.15x: runner_overhead().) Alone, the student is its own gauge
  // (its time earns nothing).
  const std::vector<std::string> gauges = request.student_only ? std::vector<std::string>{"student"}
                                                                : std::vector<std::string>{"reference", "baseline"};
  out[keys::kRunnerOverheadMs] = bound_by_host_clock(records, roles, gauges);

  const double amount = memory ? work.bytes : work.flops;
  for (const ContenderRecord& record : records) {
    const Summary& s = record.summary;
    const bool is_ceiling = record.name == "ceiling";
    const double per_run = is_ceiling ? ceiling->amount() : amount;
    nlohmann::json r = {{keys::kMedianMs, s.median},   {keys::kMinMs, s.min},
                        {keys::kMaxMs, s.max},         {keys::kNoisePct, s.noise_pct},
                        {keys::kSamples, s.samples},   {keys::kRate, per_run / (s.median * 1e6)}};
    if (is_ceiling) r[keys::kWhat] = ceiling->what();
    if (const auto runner = runners.find(record.name); runner != runners.end())
      r[keys::kProgram] = runner->second->program();
    if (record.host_bound_overhead_ms) {
      r[keys::kEventMedianMs] = median(record.event_ms());
      r[keys::kHostGapMs] = median(record.gap_ms());
    }
    out[keys::kRunners][record.name] = r;
  }
  const double student_rate = out[keys::kRunners]["student"][keys::kRate].get<double>();
  const double ceiling_rate = out[keys::kRunners]["ceiling"][keys::kRate].get<double>();
  out[keys::kPercentOfCeiling] = 100.0 * student_rate / ceiling_rate;
  if (measures.metrics && !request.student_only) {  // metrics compare the contenders
    Medians medians, log_errors;
    for (const ContenderRecord& record : records) {
      medians[record.name] = record.summary.median;
      log_errors[record.name] =
          median_log_error(record.summary.noise_pct, static_cast<double>(record.summary.samples));
    }
    out[keys::kMetrics] = measures.metrics(medians);
    out[keys::kMetricErrors] = metric_errors(measures.metrics, medians, log_errors);
  }
  if (student_rate > kImpossible * ceiling_rate)
    return wrong("timed at " + std::to_string(static_cast<int>(100.0 * student_rate / ceiling_rate)) +
                 "% of the ceiling, which no kernel can reach: the time is not graded");

  // Fresh inputs, poisoned outputs, one more run: a kernel that skips work once it has seen its buffers fails here.
  // Where inputs can be refreshed on the GPU, the student's output is compared with the reference's on the same new
  // inputs (a second CPU reference at 2^28 elements cost seconds per exercise); otherwise with a new CPU reference.
  const auto last_failure = [&]() -> std::string {
    std::string failure;
    // Timed alone, the time is the report's, not the grade's: a result cached for the timed runs wins nothing, and
    // the first checks have already compared this runner's output at the timed shape with the CPU reference.
    if (request.student_only) return failure;
    if (!fresh) {
      problem->generate(request.seed ^ 0x9E3779B97F4A7C15ull);
      checked_run("student", failure);
      return failure;
    }
    problem->refresh_inputs(salts());
    checked_run("reference", failure, false);
    if (!failure.empty()) throw std::logic_error("the reference failed on new inputs: " + failure);
    problem->save_outputs(slot.at("reference"));
    checked_run("student", failure, false);
    if (!failure.empty()) return failure;
    if (const Verdict v = problem->verify_unchanged(); !v.ok) return v.message;
    problem->save_outputs(slot.at("student"));
    if (const Verdict v = problem->compare_saved(slot.at("student"), slot.at("reference")); !v.ok) return v.message;
    return "";
  }();
  if (!last_failure.empty())
    return wrong("right during the timed runs but wrong on new inputs after them (a cached or stale result?): " +
                 last_failure);
  if (!request.student_only) phase_done("last_check");
  out[keys::kPhasesS] = phases;
  return results.write(out, exit_code::kOk);
}

}  // namespace

namespace {

int time_with(const TimeRequest& request, Ahead* ahead) {
  if (request.exercises.size() > 1 && !request.shape.empty()) {
    std::cerr << "--shape times one exercise: name one with --exercise\n";
    return exit_code::kUsage;
  }
  const auto found = find_exercises(request.exercises);
  if (!found) return exit_code::kBadSpec;
  const std::vector<const ExerciseSpec*>& specs = *found;
  for (const auto& name : request.student_only_for)
    if (std::find(request.exercises.begin(), request.exercises.end(), name) == request.exercises.end()) {
      std::cerr << "--student-only-for names " << name << ", which --exercise does not\n";
      return exit_code::kUsage;
    }
  // Each exercise's request: the run's, or, for one of --student-only-for, the student alone for the report (one
  // sample: TimingOptions::floor_samples), as its own --student-only run would time it.
  const auto request_for = [&](const ExerciseSpec* spec) {
    TimeRequest r = request;
    const auto& alone = request.student_only_for;
    if (std::find(alone.begin(), alone.end(), spec->name) != alone.end()) {
      r.student_only = true;
      r.max_seconds = 0;
    }
    return r;
  };
  const std::vector<std::string> student_only_roles{"student"}, all_roles{"student", "reference", "baseline"};
  const auto roles_for = [&](const TimeRequest& r) { return r.student_only ? student_only_roles : all_roles; };
  // The runners the run needs: the reference's and the baseline's unless every exercise times the student alone.
  const bool alone_all =
      std::all_of(specs.begin(), specs.end(), [&](const ExerciseSpec* s) { return request_for(s).student_only; });
  const std::vector<std::string>& roles = alone_all ? student_only_roles : all_roles;
  const std::map<std::string, std::string> impl_of = {
      {"student", request.impl}, {"reference", "reference"}, {"baseline", "baseline"}};
  for (const auto* spec : specs)
    for (const auto& role : roles_for(request_for(spec))) {
      const auto exercises = runner_exercises(impl_of.at(role));
      if (std::find(exercises.begin(), exercises.end(), spec->name) == exercises.end())
        throw MissingLauncher("implementation '" + impl_of.at(role) + "' has no launcher for exercise '" +
                              spec->name + "'");
    }
  if (!request.shape.empty()) Shape::parse(request.shape);  // a bad shape is a usage error, with or without a GPU
  if (int rc = require_device()) return rc;
  // The turns' socket is this process's alone: nothing it starts inherits it (a runner's fd 4 is its own anyway).
  if (request.host_link_turn_fd >= 0) ::fcntl(request.host_link_turn_fd, F_SETFD, FD_CLOEXEC);
  // Every runner is started first, and all before any is opened: their CUDA contexts come up (runner/main.cpp) in
  // parallel with each other and with this process's own setup and generate(), instead of after them. They serve
  // every exercise of the run, opened on each one's problem in turn: a host makes CUDA contexts one at a time (about
  // five a second, experiments/context_contention), and a referee and its three runners for each exercise were most
  // of a grading's contexts. The reference and the baseline share one runner where the lab has it (make_runners()):
  // the workers of a host of several GPUs wait for each other's contexts.
  std::map<std::string, std::string> impl_of_role;
  for (const auto& role : roles) impl_of_role[role] = impl_of.at(role);
  Runners runners = make_runners(impl_of_role);
  struct EndTogether {  // however time() returns: the runners end at once, then their destructors reap them
    Runners& runners;
    ~EndTogether() { end_together(runners); }
  } end_runners{runners};
  ResultsOut results(request.results, !request.check_seeds.empty());
  if (!results.usable()) {
    std::cerr << "cannot write " << request.results << "\n";
    return exit_code::kUsage;
  }
  // While the runners start, the second exercise's host work, where the first's was made before the turn (and so no
  // longer hides their start): the GPU waits for the runners either way.
  Ahead next;
  if (ahead && ahead->spec == specs.front() && specs.size() > 1)  // a spec only where its problem was made
    next = make_ahead(request, specs[1], "generate_beside_runners");
  for (const auto* spec : specs) {
    const TimeRequest r = request_for(spec);
    Ahead* made = ahead && ahead->spec == spec ? ahead : next.spec == spec ? &next : nullptr;
    if (const int rc = time_one(spec, r, roles_for(r), runners, results, made); rc != exit_code::kOk) return rc;
  }
  return exit_code::kOk;
}

}  // namespace

int time(const TimeRequest& request) { return time_with(request, nullptr); }

int check_then_time(const TimeRequest& request, const char* argv0) {
  if (!request.shape.empty() || request.host_link_turn_fd >= 0) {
    std::cerr << "--check-seeds checks and times at the graded shapes, without host link turns\n";
    return exit_code::kUsage;
  }
  // Nothing this process starts (the checks' and the timed runs' runners) holds the turn's socket.
  if (request.timed_turn_fd >= 0) ::fcntl(request.timed_turn_fd, F_SETFD, FD_CLOEXEC);
  // What a check's runner orphans (a process it started where the sandbox could not forbid it) comes to this process,
  // not to the grader, whose clean-up comes only at this run's end: it is ended before any timed run (below).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  CheckRequest checks;
  checks.impl = request.impl;
  checks.exercises = request.exercises;
  checks.seeds = request.check_seeds;
  checks.results = request.results;
  std::set<std::string> failed;
  const int checked = check(checks, argv0, &failed);
  if (checked != exit_code::kOk && checked != exit_code::kTestFailure) return checked;
  // The checks' runners are gone (check() ended them with its run), and so is whatever they left: the timed runs start
  // fresh runners, so no code of the submission that ran in a check is still there when the turn comes.
  process_tree::end_children(std::chrono::seconds(10));
  TimeRequest timed = request;
  const auto passed = [&](const std::vector<std::string>& names) {
    std::vector<std::string> kept;
    for (const auto& name : names)
      if (!failed.contains(name)) kept.push_back(name);
    return kept;
  };
  timed.exercises = passed(request.exercises);
  timed.student_only_for = passed(request.student_only_for);
  if (timed.exercises.empty()) return checked;
  // Before asking: the turn comes once every lab's checks have ended, so this lab's first generate() goes on beside
  // the others' checks rather than inside its turn, and never beside a timed run (the last lab to end its checks
  // makes the first turn wait for it, as long as its generate() would have taken in its turn).
  Ahead ahead = make_ahead(timed, lab().find(timed.exercises.front()), "generate_ahead");
  const host_link::Turn turn(request.timed_turn_fd);
  const int rc = time_with(timed, &ahead);
  ahead.problem.reset();  // not taken where the run ended before it: freed in the turn, beside no timed run
  return rc != exit_code::kOk ? rc : checked;
}

}  // namespace harness::lab_cli
