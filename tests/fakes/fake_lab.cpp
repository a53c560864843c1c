// fake_lab: a lab binary without a GPU, speaking docs/protocol.md, so CI can test the grader end to end.
//
// Built as `fakebin/lab1`; its manifest is tests/fakes/labs/01_fake/manifest.json. Two exercises: `copy` (GB/s) and
// `gemm` (GFLOP/s); implementations baseline, reference and student. It writes its results to the `--results` path it
// is given (the grader gives /dev/fd/3), runs the `--seeds` it is given (default 1,2) and echoes `time --seed` as
// "seed". It misbehaves on demand:
//
//   FAKE_LAB_MODE       comma-separated `mode` or `mode:exercise` items (default good). Modes: good, wrong,
//                       hang_check, hang_time, segfault, abort, garbage, exit_early, cuda_error, no_gpu, missing,
//                       slow_student, wrong_after_timing, and attacks on the grader:
//                         setsid_forger   check fails one case honestly, and leaves a setsid'd grandchild that
//                                         writes its pid to FAKE_LAB_MARKER.pid, sleeps 1.5 s, then creates
//                                         FAKE_LAB_MARKER and writes passing results to the results path
//                         forge_file      check fails one case honestly, then writes passing results where the
//                                         grader once read them: FAKE_LAB_FORGE_DIR/EX.check.jsonl and ./
//                         ignore_seeds    check runs seeds 1,2 whatever --seeds says
//                         plan_mismatch   check plans and passes one case
//                         time_wrong_seed, time_wrong_exercise, time_wrong_salt_seed   time reports another seed,
//                                         exercise or salt seed (`--salt-seed`; without one it reports one it drew)
//                         spy             writes what it sees (environment, cwd, limits, open fds) to
//                                         FAKE_LAB_SPY_FILE as JSON, then behaves
//                         huge_file       check first writes a byte at 1 GiB into ./huge (sparse: no disk used)
//                         fork_chain      check becomes a chain of setsid'd processes, each forking the next and
//                                         exiting at once, for 10 s; each writes its pid to FAKE_LAB_PID_FILE
//                         crowded         check enters FAKE_LAB_CROWD_DIR (a file named by its pid) and waits up to
//                                         1.5 s for another check to enter; if one does (checks run at once), it
//                                         ends like a GPU out of memory (exit 110), else it behaves
//                       Misbehaviour hits only impl `student`, or `baseline` (the stub, which the self-check grades
//                       in the student slot; the reference stays right, as in a real lab), except
//                       no_gpu, which hits everything, and slow_reference, a GPU that is busy while the reference
//                       runs: whatever impl is timed, the `reference` runner takes FAKE_LAB_REFERENCE_SLOWDOWN times
//                       its usual time (default 5).
//   FAKE_LAB_EXERCISE   limits items without `:exercise` to that exercise.
//   FAKE_LAB_STUDENT_MS comma-separated student medians (ms); with FAKE_LAB_COUNTER_FILE set, the n-th `time` run of
//                       the student takes the n-th value (cycling), so repeats can differ on purpose.
//
//   FAKE_LAB_STUDENT_EVENT_MS  the student's own CUDA event medians, indexed as FAKE_LAB_STUDENT_MS (default: the
//                       graded median); below it, the referee's clock set the student's time.
//   FAKE_LAB_REFERENCE_CLOCK_OVER_EVENTS  the reference's graded median over its events' (default 1): above 1, the
//                       referee's clock set the reference's time (a disturbed course runner).
//   FAKE_LAB_NOISE_PCT  every runner's noise a sample (default 0.3); each reports 12 samples, or --min-samples
//                       when more are asked for. Metrics: overlap_student and overlap_reference as lab 07's, with
//                       metric_errors from that noise.
//
//   `check --tools T,T --sanitizer PATH [--tool-limit S]` (the grader's sanitizer runs): as labN check, runs PATH as
//                       each tool's front end, tool after tool, with labN's command line
//                       (protocol::sanitizer_front_end, the runner), and `--exercise EX` after the runner's path for
//                       the stand-ins' sake; its output passes through, and its exit code is the tool's verdict line
//                       (0 clean, 86 found, else failed); one still running S seconds after it started is ended with
//                       what it started (verdict hung).
//
//   FAKE_LAB_CALL_LOG   every check and time run appends "<this binary's path> <command> <exercise> <impl>" to it
//                       (and " max-seconds=V" and " min-samples=N" when given; a check under tools is "sanitize",
//                       with " seeds=S small tools=T,T"):
//                       the batch tests count grading runs per student (each student's lab binary is its own copy).
//                       `time --check-seeds S [--timed-turn-fd FD]` (as labN time: a check, then the timed runs of the
//                       exercises whose every case passed, after a turn asked through FD) logs a check line, then a
//                       time line of those exercises.
//   Without FAKE_LAB_MODE, a line "FAKE_LAB_MODE=..." in runners/lab1-student beside this binary sets the mode:
//   `grade batch` builds each student's file into that runner, so each fake student says how it misbehaves.
//
//   FAKE_LAB_TIME_SPAN_LOG  every time run lasts 200 ms more and then appends "<start ns> <end ns> gpu=<GPU>
//                       cpus=<the CPUs it may run on>" (CLOCK_MONOTONIC, one clock for the host): tests see which
//                       timed runs overlapped and where each ran. With `--host-link-turn-fd FD` (as labN time) the
//                       span is the run's turn on the host link, asked of the grader as the lab binary asks it.
//
//   FAKE_LAB_PID_FILE   where a hanging fake (and each process of fork_chain) writes its pid: tests check that it
//                       was killed.
//
// Timings (ms): copy reference 1.0, baseline 10.0, ceiling 0.9; gemm reference 2.0, baseline 40.0, ceiling 1.6
// (the reference at 90% and 80% of its ceiling, as the manifest records).
// A good student runs at 1.02x the reference (full marks); slow_student runs at the baseline's time.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <harness/host_link.hpp>
#include <harness/median.hpp>
#include <harness/process_tree.hpp>
#include <harness/protocol.hpp>
#include <harness/result_keys.hpp>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
namespace keys = harness::keys;

struct Exercise {
  const char* name;
  const char* title;
  std::vector<std::string> shapes;
  const char* unit;
  double work;  // bytes (GB/s) or flops (GFLOP/s) at the timed shape
  double reference_ms, baseline_ms, ceiling_ms;
  const char* ceiling_what;
};

const std::vector<Exercise> kExercises = {
    {"copy", "Copy a vector", {"1", "1000", "1048576"}, "GB/s", 2.0 * 4 * 268435456, 1.0, 10.0, 0.9,
     "device-to-device copy"},
    {"gemm", "Multiply matrices", {"1x1x1", "33x33x33"}, "GFLOP/s", 2.0 * 4096.0 * 4096 * 4096, 2.0, 40.0, 1.6,
     "cuBLAS SGEMM"},
};
const std::vector<std::string> kImpls = {"baseline", "reference", "student", "stub"};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::filesystem::path self_path() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path("lab1") : self;
}

// FAKE_LAB_MODE, else the mode the student's runner file names.
std::string mode_setting() {
  if (const std::string mode = env("FAKE_LAB_MODE"); !mode.empty()) return mode;
  std::ifstream runner(self_path().parent_path() / "runners" / "lab1-student");
  for (std::string line; std::getline(runner, line);)
    if (line.rfind("FAKE_LAB_MODE=", 0) == 0) return line.substr(14);
  return "";
}

// The mode that applies to `exercise`: the first matching FAKE_LAB_MODE item.
// The implementation in the student slot: `student`, `stub` when the self-check grades the shipped stub there, or the
// `baseline` graded by name.
bool graded_slot(const std::string& impl) { return impl == "student" || impl == "baseline" || impl == "stub"; }

std::string mode_for(const std::string& exercise) {
  const std::string scope = env("FAKE_LAB_EXERCISE");
  for (const auto& item : split(mode_setting(), ',')) {
    const auto colon = item.find(':');
    const std::string mode = item.substr(0, colon);
    const std::string target = colon == std::string::npos ? scope : item.substr(colon + 1);
    if (target.empty() || target == exercise) return mode;
  }
  return "good";
}

bool no_gpu() {
  for (const auto& item : split(mode_setting(), ','))
    if (item.substr(0, item.find(':')) == "no_gpu") return true;
  return false;
}

[[noreturn]] void hang() {
  if (const std::string file = env("FAKE_LAB_PID_FILE"); !file.empty()) std::ofstream(file) << getpid();
  for (;;) pause();
}

[[noreturn]] void die_by(int sig) {
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crash on purpose should not leave core files behind
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  std::_Exit(99);
}

void write_line(std::ofstream& out, const json& j) { out << j.dump() << "\n" << std::flush; }

// A results stream in which every case passed.
void write_passing(const std::string& path, const Exercise& ex, const std::string& impl,
                   const std::vector<std::string>& seeds) {
  std::ofstream out(path, std::ios::trunc);
  const json plan = {{keys::kExercise, ex.name}, {keys::kImpl, impl}, {keys::kCases, ex.shapes.size() * seeds.size()}};
  write_line(out, {{keys::kPlan, plan}});
  for (const auto& shape : ex.shapes)
    for (const auto& seed : seeds)
      write_line(out, {{keys::kExercise, ex.name}, {keys::kShape, shape}, {keys::kSeed, std::stoull(seed)},
                       {keys::kOk, true}});
}

// A grandchild in a session of its own, outside the lab's process group, that rewrites the results once the lab has
// exited (it waits for that: it is left at its exercise's turn, and others may follow) and the grader has (without
// its defences) moved on.
void leave_forger(const std::string& results, const Exercise& ex, const std::string& impl,
                  const std::vector<std::string>& seeds) {
  int ready[2];  // the lab exits once the forger has written its pid, so that the test can look for it
  if (pipe(ready) != 0) return;
  if (fork() != 0) {
    close(ready[1]);
    char byte;
    [[maybe_unused]] const auto n = read(ready[0], &byte, 1);  // end of file: the forger is ready
    close(ready[0]);
    return;
  }
  close(ready[0]);
  const pid_t lab = getppid();
  setsid();
  const std::string marker = env("FAKE_LAB_MARKER");
  if (!marker.empty()) std::ofstream(marker + ".pid") << getpid();
  close(ready[1]);
  while (getppid() == lab) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  // The marker first: with the results on a pipe whose reader is gone, the write below ends in SIGPIPE.
  if (!marker.empty()) std::ofstream(marker) << "forged\n";
  write_passing(results, ex, impl, seeds);
  std::_Exit(0);
}

// Each process forks the next and exits at once, in a new session: killing by pid always lags one behind.
// The lab itself exits 0.2 s later, once the chain has left its process group.
[[noreturn]] void fork_chain() {
  const std::string file = env("FAKE_LAB_PID_FILE");
  const int pid_fd = file.empty() ? -1 : open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fork() != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::_Exit(0);
  }
  for (const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < stop;) {
    setsid();
    char text[16];  // fixed width, so the last pid written is the whole file
    const int n = std::snprintf(text, sizeof text, "%-15d", static_cast<int>(getpid()));
    if (pid_fd >= 0 && pwrite(pid_fd, text, static_cast<std::size_t>(n), 0) < 0) std::_Exit(1);
    if (fork() != 0) std::_Exit(0);
  }
  std::_Exit(0);
}

// What the lab sees of the grader: its environment, directory, limits and open file descriptors.
void spy() {
  json seen = {{"env", json::object()}, {"fds", json::object()}};
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    seen["env"][entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  seen["cwd"] = std::filesystem::current_path().string();
  for (auto [name, resource] : {std::pair{"core", RLIMIT_CORE}, {"fsize", RLIMIT_FSIZE}, {"nofile", RLIMIT_NOFILE}}) {
    rlimit limit{};
    getrlimit(resource, &limit);
    seen["limits"][name] = limit.rlim_cur == RLIM_INFINITY ? json(nullptr) : json(limit.rlim_cur);
  }
  std::error_code error;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", error))
    seen["fds"][fd.path().filename().string()] = std::filesystem::read_symlink(fd.path(), error).string();
  std::ofstream(env("FAKE_LAB_SPY_FILE")) << seen.dump() << "\n";
}

// One byte at 1 GiB: a sparse file that uses no disk, but is over a 1 GiB size limit.
void write_huge_file() {
  const int fd = open("huge", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || pwrite(fd, "x", 1, off_t{1} << 30) != 1) std::cerr << "huge_file: could not write\n";
  if (fd >= 0) close(fd);
  std::filesystem::remove("huge");
}

// `crowded`: true when another check is in FAKE_LAB_CROWD_DIR at the same time as this one.
bool crowded() {
  namespace fs = std::filesystem;
  const fs::path dir = env("FAKE_LAB_CROWD_DIR");
  const fs::path mine = dir / std::to_string(::getpid());
  std::ofstream(mine).put('\n');
  bool company = false;
  for (int round = 0; round < 150 && !company; ++round) {
    company = std::distance(fs::directory_iterator(dir), fs::directory_iterator()) > 1;
    if (!company) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Stay a little longer, so a check that entered just now sees this one too.
  std::this_thread::sleep_for(std::chrono::milliseconds(company ? 200 : 0));
  fs::remove(mine);
  return company;
}

// `check` of one exercise or several (`--exercise a,b`): as labN check, every plan line first, then each exercise's
// cases in turn, each exercise misbehaving as its mode says when its turn comes.
// `failed`, where given, gets the exercises with a case that did not pass.
int run_check(const std::vector<const Exercise*>& exs, const std::string& impl, const std::string& results,
              const std::string& seeds_text, std::vector<std::string>* failed_names = nullptr) {
  std::vector<std::string> modes;
  for (const Exercise* ex : exs) modes.push_back(graded_slot(impl) ? mode_for(ex->name) : "good");
  for (std::size_t i = 0; i < exs.size(); ++i) {  // what the real lab finds, and the attacks, before any case
    if (modes[i] == "exit_early") return 0;
    if (modes[i] == "missing") {
      std::cerr << "implementation '" << impl << "' has no launcher for exercise '" << exs[i]->name << "'\n";
      return 113;
    }
    if (modes[i] == "fork_chain") fork_chain();
    if (modes[i] == "huge_file") write_huge_file();
    if (modes[i] == "spy") spy();
  }
  std::ofstream out(results, std::ios::trunc);
  std::vector<std::vector<std::string>> seeds(exs.size());
  std::vector<int> cases(exs.size());
  for (std::size_t i = 0; i < exs.size(); ++i) {
    if (modes[i] == "garbage") {
      out << "Segmentation fault? no: just garbage\n{\"plan\": {\"cases\": \n";
      return 0;
    }
    seeds[i] = split(seeds_text.empty() || modes[i] == "ignore_seeds" ? "1,2" : seeds_text, ',');
    cases[i] = modes[i] == "plan_mismatch" ? 1 : static_cast<int>(exs[i]->shapes.size() * seeds[i].size());
    write_line(out, {{keys::kPlan, {{keys::kExercise, exs[i]->name}, {keys::kImpl, impl}, {keys::kCases, cases[i]}}}});
  }
  std::cout << "Randomness seeded to: 1\n";
  int failed = 0;
  bool forged = false;
  for (std::size_t i = 0; i < exs.size(); ++i) {
    const Exercise& ex = *exs[i];
    const std::string& mode = modes[i];
    if (mode == "crowded" && crowded()) {
      std::cerr << "CUDA error: out of memory (cudaErrorMemoryAllocation) at " << ex.name << ".cu:17\n";
      return 110;
    }
    const bool honest_then_forged = mode == "setsid_forger" || mode == "forge_file";
    forged = forged || honest_then_forged;
    int index = 0;
    for (const auto& shape : ex.shapes) {
      for (const auto& seed : seeds[i]) {
        if (index == cases[i]) break;
        if (mode == "hang_check" && index == 1) hang();
        if (mode == "segfault" && index == cases[i] / 2) die_by(SIGSEGV);
        if (mode == "abort" && index == 1) {
          std::cerr << "terminate called after throwing an instance of 'std::bad_alloc'\n";
          die_by(SIGABRT);
        }
        if (mode == "cuda_error" && index == 2) {
          std::cerr << "CUDA error: an illegal memory access was encountered (cudaErrorIllegalAddress) at "
                    << ex.name << ".cu:42\n";
          return 110;
        }
        const bool ok = !((mode == "wrong" || honest_then_forged) && index == 1);
        failed += ok ? 0 : 1;
        if (!ok && failed_names) failed_names->push_back(ex.name);
        write_line(out, {{keys::kExercise, ex.name},
                         {keys::kShape, shape},
                         {keys::kSeed, std::stoull(seed)},
                         {keys::kOk, ok},
                         {keys::kMessage,
                          ok ? "" : "3 of 1000 elements differ; first at [999]: got nan, expected 0.25"}});
        ++index;
      }
    }
    if (mode == "setsid_forger") leave_forger(results, ex, impl, seeds[i]);
    if (mode == "forge_file") {
      if (const std::string dir = env("FAKE_LAB_FORGE_DIR"); !dir.empty())
        write_passing(dir + "/" + ex.name + ".check.jsonl", ex, impl, seeds[i]);
      write_passing(std::string(ex.name) + ".check.jsonl", ex, impl, seeds[i]);
    }
  }
  std::cout << (failed == 0 ? "All tests passed\n" : "test cases failed\n");
  return failed == 0 && !forged ? 0 : 112;
}

// `check --tools`: PATH as each tool's front end around the runner (not run: the stand-ins only report), tool after
// tool, and each tool's verdict line after its run, as labN check writes them. Exit 0, or 112 when a tool's run
// ended otherwise than clean or found (labN check's cases failed under it, or were not run past its limit).
int run_tools(const std::vector<const Exercise*>& exs, const std::string& impl, const std::string& results,
              const std::string& sanitizer, const std::string& tools, double tool_limit_s) {
  std::ofstream out(results, std::ios::trunc);
  std::string names;
  for (const Exercise* ex : exs) names += (names.empty() ? "" : ",") + std::string(ex->name);
  const std::string runner = (self_path().parent_path() / "runners" / ("lab1-" + impl)).string();
  int code = 0;
  for (const auto& tool : split(tools, ',')) {
    std::vector<std::string> args = harness::protocol::sanitizer_front_end(sanitizer, tool);
    if (args.empty()) return 2;
    args.insert(args.end(), {runner, "--exercise", names});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    const auto deadline = tool_limit_s > 0 ? std::chrono::steady_clock::now() +
                                                 std::chrono::milliseconds(static_cast<long>(tool_limit_s * 1000))
                                           : std::chrono::steady_clock::time_point::max();
    std::optional<int> status = pid > 0 ? harness::process_tree::wait_until(pid, deadline) : std::nullopt;
    const bool past_deadline = pid > 0 && !status && std::chrono::steady_clock::now() >= deadline;
    if (pid > 0 && !status) {
      harness::process_tree::kill_tree(pid);
      int killed = 0;
      while (::waitpid(pid, &killed, 0) < 0 && errno == EINTR) {
      }
      status = killed;
    }
    const auto end = pid > 0 ? harness::protocol::front_end_verdict(*status, past_deadline)
                             : harness::protocol::FrontEndVerdict{keys::kFailed, "compute-sanitizer could not start"};
    if (end.verdict == keys::kFailed || end.verdict == keys::kHung) code = 112;
    write_line(out, {{keys::kTool, {{keys::kName, tool}, {keys::kVerdict, end.verdict}, {keys::kMessage, end.how}}}});
  }
  return code;
}

// The student's graded median and its own CUDA events' median for this run: FAKE_LAB_STUDENT_MS and
// FAKE_LAB_STUDENT_EVENT_MS (default: the graded median), indexed by a counter file when one is given.
std::pair<double, double> student_ms(const Exercise& ex, const std::string& mode) {
  if (mode == "slow_student") return {ex.baseline_ms, ex.baseline_ms};
  const auto values = split(env("FAKE_LAB_STUDENT_MS"), ',');
  const auto events = split(env("FAKE_LAB_STUDENT_EVENT_MS"), ',');
  std::size_t n = 0;
  if (const std::string counter = env("FAKE_LAB_COUNTER_FILE"); !counter.empty()) {
    std::ifstream(counter) >> n;
    std::ofstream(counter, std::ios::trunc) << n + 1;
  }
  const double ms = values.empty() ? 1.02 * ex.reference_ms : std::stod(values[n % values.size()]);
  return {ms, events.empty() ? ms : std::stod(events[n % events.size()])};
}

// `time --min-samples`: how many samples each runner reports (at least 12, the fake's usual count).
int min_samples = 12;

// FAKE_LAB_NOISE_PCT, every runner's noise a sample (default 0.3).
double noise_pct() {
  const std::string noise = env("FAKE_LAB_NOISE_PCT");
  return noise.empty() ? 0.3 : std::stod(noise);
}

json runner(double ms, double work) {
  return {{keys::kMedianMs, ms},  {keys::kMinMs, ms * 0.99}, {keys::kMaxMs, ms * 1.02},
          {keys::kNoisePct, noise_pct()}, {keys::kSamples, min_samples}, {keys::kRate, work / (ms * 1e-3) / 1e9}};
}

// A runner of its own process (student, reference, baseline): its CUDA events' median beside the graded one, which
// the referee's clock bounds (`event_ms` below `ms`: the clock, not the events, set the time).
json runner(double ms, double event_ms, double work) {
  json r = runner(ms, work);
  r[keys::kEventMedianMs] = event_ms;
  r[keys::kHostGapMs] = 0.02 + (ms - event_ms);
  return r;
}

// `time --salt-seed`, as given (empty: the fake draws one, as a lab binary does, and reports it).
std::string salt_seed;

// One exercise's result, a line on `out` (several exercises in one run: a line each, as labN time writes them).
int run_time(const Exercise& ex, const std::string& impl, std::ostream& out, const std::string& seed,
             bool student_only) {
  const std::string mode = graded_slot(impl) ? mode_for(ex.name) : "good";
  if (mode == "hang_time") hang();
  if (mode == "missing") return 113;
  const std::string reported = mode == "time_wrong_exercise" ? (ex.name == std::string("copy") ? "gemm" : "copy")
                                                             : ex.name;
  json j = {{keys::kExercise, reported}, {keys::kImpl, impl}, {keys::kShape, ex.shapes.back()}, {keys::kUnit, ex.unit},
            {keys::kWork, {{keys::kBytes, ex.work}, {keys::kFlops, ex.work}}}};
  if (!seed.empty()) j[keys::kSeed] = std::stoull(seed) + (mode == "time_wrong_seed" ? 1 : 0);  // echoes `--seed`
  j[keys::kSaltSeed] = (salt_seed.empty() ? std::uint64_t{std::random_device{}()} << 20 : std::stoull(salt_seed)) +
                   (mode == "time_wrong_salt_seed" ? 1 : 0);
  if (mode == "wrong_after_timing") {
    j[keys::kCorrect] = false;
    j[keys::kMessage] = "output became wrong after the timed runs (first at [17]: got 0, expected 1.5)";
    j[keys::kRunners] = json::object();
    out << j.dump() << "\n" << std::flush;
    return 112;
  }
  // The implementation in the student slot (student, or stub under the self-check) follows FAKE_LAB_MODE.
  const auto [ms, event_ms] = impl == "reference" ? std::pair{ex.reference_ms, ex.reference_ms} : student_ms(ex, mode);
  const std::string slowdown = env("FAKE_LAB_REFERENCE_SLOWDOWN");
  const double reference_ms =
      ex.reference_ms * (mode_for(ex.name) == "slow_reference" ? (slowdown.empty() ? 5.0 : std::stod(slowdown)) : 1.0);
  const std::string reference_overhead = env("FAKE_LAB_REFERENCE_CLOCK_OVER_EVENTS");
  const double reference_event_ms = reference_ms / (reference_overhead.empty() ? 1.0 : std::stod(reference_overhead));
  json ceiling = runner(ex.ceiling_ms, ex.work);
  ceiling[keys::kWhat] = ex.ceiling_what;
  j[keys::kCorrect] = true;
  j[keys::kMessage] = "";
  j[keys::kRunners] = {{"student", runner(ms, event_ms, ex.work)},
                  {"reference", runner(reference_ms, reference_event_ms, ex.work)},
                  {"baseline", runner(ex.baseline_ms, ex.baseline_ms, ex.work)},
                  {"ceiling", ceiling},
                  {"library", runner(ex.reference_ms / 2, ex.work)}};  // a peer, as lab 04's cub
  if (student_only) {  // as labN time --student-only: the reference and the baseline are not run
    j[keys::kRunners].erase("reference");
    j[keys::kRunners].erase("baseline");
  }
  j[keys::kPercentOfCeiling] = 100.0 * ex.ceiling_ms / ms;
  // overlap as lab 07 computes it, (t_b - t) / (t_b - ceiling), and its error from the median's: a manifest may grade
  // by it (graded_by).
  const double spread = ex.baseline_ms - ex.ceiling_ms;
  const double log_error = harness::median_log_error(noise_pct(), min_samples);
  j[keys::kMetrics] = {{"fraction_of_library_speed", ex.reference_ms / 2 / ms},
                  {"overlap_student", (ex.baseline_ms - ms) / spread},
                  {"overlap_reference", (ex.baseline_ms - reference_ms) / spread}};
  j[keys::kMetricErrors] = {{"overlap_student", ms * log_error / spread},
                        {"overlap_reference", reference_ms * log_error / spread}};
  out << j.dump() << "\n" << std::flush;
  std::cout << ex.name << ": student " << ms << " ms\n";
  return 0;
}

int usage(const std::string& why) {
  std::cerr << "fake_lab: " << why
            << "\nusage: lab1 info | list | check|time --impl I --exercise E --results F [--seeds S,S] [--seed S]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("missing command");
  const std::string command = argv[1];
  std::string impl, exercise, results, seeds, seed, max_seconds, student_only_for, sanitizer, tools, check_seeds;
  double tool_limit_s = 0;
  int host_link_turn_fd = -1, timed_turn_fd = -1;
  bool student_only = false, small = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--student-only" || arg == "--small") {
      (arg == "--small" ? small : student_only) = true;
      continue;
    }
    if (i + 1 >= argc) return usage("option " + arg + " needs a value");
    if (arg == "--impl") impl = argv[++i];
    else if (arg == "--exercise") exercise = argv[++i];
    else if (arg == "--results") results = argv[++i];
    else if (arg == "--seeds") seeds = argv[++i];
    else if (arg == "--seed") seed = argv[++i];
    else if (arg == "--salt-seed") salt_seed = argv[++i];
    else if (arg == "--max-seconds") max_seconds = argv[++i];
    else if (arg == "--host-link-turn-fd") host_link_turn_fd = std::stoi(argv[++i]);
    else if (arg == "--check-seeds") check_seeds = argv[++i];
    else if (arg == "--timed-turn-fd") timed_turn_fd = std::stoi(argv[++i]);
    else if (arg == "--student-only-for") student_only_for = argv[++i];
    else if (arg == "--sanitizer") sanitizer = argv[++i];
    else if (arg == "--tools") tools = argv[++i];
    else if (arg == "--tool-limit") tool_limit_s = std::stod(argv[++i]);
    else if (arg == "--min-samples") min_samples = std::max(min_samples, std::stoi(argv[++i]));
    else return usage("unknown option " + arg);
  }
  if (command == "list") {
    json list = {{"lab", "01_fake"}, {"exercises", json::array()}, {"implementations", json::object()}};
    for (const auto& ex : kExercises) list["exercises"].push_back({{"name", ex.name}, {"title", ex.title}});
    for (const auto& impl : kImpls)  // every fake implementation has every exercise
      for (const auto& ex : kExercises) list["implementations"][impl].push_back(ex.name);
    std::cout << list.dump() << "\n";
    return 0;
  }
  if (no_gpu()) {
    std::cerr << "no CUDA GPU is visible: cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is "
                 "detected)\n";
    return 111;
  }
  if (command == "info") {
    std::cout << json{{"gpu", "Fake GPU 80GB"}, {"compute_capability", "9.0"}, {"sms", 132},
                      {"l2_bytes", 52428800},   {"memory_bytes", 85520809984}, {"driver", "000.00"},
                      {"cuda_driver", "13.0"},  {"cuda_runtime", "13.0"}}
                     .dump()
              << "\n";
    return 0;
  }
  if (command != "check" && command != "time") return usage("unknown command " + command);
  // `time --check-seeds` logs its check, then its time of the exercises that passed, as two runs would.
  const bool checks_first = command == "time" && !check_seeds.empty();
  const auto log_call = [&](const std::string& logged, const std::string& exercises) {
    const std::string log = env("FAKE_LAB_CALL_LOG");
    if (log.empty()) return;
    const bool timed = logged == "time";
    const std::string line = self_path().string() + " " + (tools.empty() ? logged : "sanitize") + " " + exercises +
                             " " + impl + (tools.empty() ? "" : " seeds=" + seeds + (small ? " small" : "") +
                                                                    " tools=" + tools) +
                             (max_seconds.empty() || !timed ? "" : " max-seconds=" + max_seconds) +
                             (min_samples == 12 || !timed ? "" : " min-samples=" + std::to_string(min_samples)) +
                             (student_only && timed ? " student-only" : "") +
                             (student_only_for.empty() || !timed ? "" : " student-only-for=" + student_only_for) + "\n";
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);  // one write: one line
    if (fd >= 0) {
      [[maybe_unused]] const auto written = ::write(fd, line.data(), line.size());
      ::close(fd);
    }
  };
  if (command == "check" || checks_first) log_call("check", exercise);
  else log_call(command, exercise);
  if (impl.empty() || exercise.empty() || results.empty()) return usage("--impl, --exercise and --results needed");
  std::vector<const Exercise*> exs;  // a list, as labN check and time take: a,b
  for (const auto& name : split(exercise, ',')) {
    const Exercise* ex = nullptr;
    for (const auto& e : kExercises)
      if (e.name == name) ex = &e;
    if (ex == nullptr || std::find(kImpls.begin(), kImpls.end(), impl) == kImpls.end()) {
      std::cerr << "unknown exercise or implementation: " << exercise << " / " << impl << "\n";
      return 113;
    }
    exs.push_back(ex);
  }
  if (command == "check" && !tools.empty()) return run_tools(exs, impl, results, sanitizer, tools, tool_limit_s);
  if (command == "check") return run_check(exs, impl, results, seeds);
  int checked = 0;
  std::string checked_exercises;  // the exercises timed after the checks, logged once their turn has come
  if (checks_first) {  // as labN time --check-seeds: the exercises whose every case passed are timed, after the turn
    std::vector<std::string> failed;
    checked = run_check(exs, impl, results, check_seeds, &failed);
    if (checked != 0 && checked != 112) return checked;
    const auto passed = [&](const std::string& name) {
      return std::find(failed.begin(), failed.end(), name) == failed.end();
    };
    std::erase_if(exs, [&](const Exercise* ex) { return !passed(ex->name); });
    std::string kept, kept_alone;
    for (const Exercise* ex : exs) kept += (kept.empty() ? "" : ",") + std::string(ex->name);
    for (const auto& name : split(student_only_for, ','))
      if (passed(name)) kept_alone += (kept_alone.empty() ? "" : ",") + name;
    student_only_for = kept_alone;
    if (exs.empty()) return checked;
    checked_exercises = kept;
  }
  const std::string span_log = env("FAKE_LAB_TIME_SPAN_LOG");
  const auto now_ns = [] {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);  // one clock for every process of the host
    return std::to_string(static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec);
  };
  std::optional<harness::host_link::Turn> turn;
  if (host_link_turn_fd >= 0 || timed_turn_fd >= 0) turn.emplace(checks_first ? timed_turn_fd : host_link_turn_fd);
  if (checks_first) log_call("time", checked_exercises);
  const std::string begin = now_ns();
  if (!span_log.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::ofstream out(results, checks_first ? std::ios::app : std::ios::trunc);
  int code = 0;
  const std::vector<std::string> alone = split(student_only_for, ',');
  for (const Exercise* ex : exs) {
    const bool this_alone = student_only || std::find(alone.begin(), alone.end(), ex->name) != alone.end();
    if ((code = run_time(*ex, impl, out, seed, this_alone)) != 0) break;
  }
  if (!span_log.empty()) {
    std::ifstream status("/proc/self/status");
    std::string cpus;
    for (std::string l; std::getline(status, l);)
      if (l.rfind("Cpus_allowed_list:", 0) == 0) cpus = l.substr(l.find_first_not_of(" \t", 18));
    const std::string line =
        begin + " " + now_ns() + " gpu=" + env("CUDA_VISIBLE_DEVICES") + " cpus=" + cpus + "\n";
    const int fd = ::open(span_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      [[maybe_unused]] const auto written = ::write(fd, line.data(), line.size());
      ::close(fd);
    }
  }
  return code != 0 ? code : checked;
}
