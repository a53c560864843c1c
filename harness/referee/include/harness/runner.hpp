#pragma once
/// @file runner.hpp
/// @brief The grading boundary, seen from the lab binary (the referee): each implementation runs in a runner.
///
/// The lab binary `labN` holds the problems, the inputs, the CPU references, the checks, the ceilings and the timing
/// policy, and no implementation. Each implementation (student, reference, baseline, a known-wrong fixture) is built
/// into its own small program, `runners/labN-<impl>`, that links only that implementation's launchers and the lab's
/// problem definitions (and the course's reference and baseline into one more of both: make_runners()). The referee
/// allocates every buffer, generates the inputs and poisons the outputs; the runner maps the same memory and runs its
/// launcher on it when told to; the referee then checks the output through its own pointers. Code in a submission can
/// rewrite anything in its own process, and its process holds nothing that grades. Device buffers are shared by CUDA
/// IPC handle; host buffers (harness::Memory::host, lab 07's host arrays) are a memfd that the referee maps and hands
/// over as a descriptor, which the runner maps too; both page-lock it.
///
/// A runner's life (runner/src/main.cpp, sandbox.hpp): it confines itself in two stages before any code of the
/// implementation runs, then stops itself (SIGSTOP). The referee notes its threads and executable mappings then, as
/// the course made them, and continues it. Between its turns (open, run, close) the referee keeps it stopped, so that
/// no thread of it can put work on the GPU while another contender is timed, and after every turn it compares its
/// threads and executable mappings with what they were: one more of either is a RunnerFailure that names it. (Not
/// under a CUDA tool, which keeps threads of its own in the process and never times a grade.)
///
/// Protocol (JSON lines; the runner reads commands on fd 3 and answers on fd 4; fd 5 is a socket on which the referee
/// sends, before an "open" that has host buffers, one message carrying their descriptors, in buffer order:
/// protocol.hpp):
///   {"op": "open", "exercise": E, "shape": "1024x33", "handles": [hex | "fd", ...]}   -> {"ok": true}
/// A runner of several implementations (the course's `labN-reference+baseline`) takes "impl": NAME in "prepare", "run"
/// and "finish", and lists one's launchers with `--list NAME`; a runner of one needs no name.
///   {"op": "prepare"} Problem::before_run(), untimed -> {"ok": true}
///   {"op": "run"}     one launch on the runner's stream between two events; the stream's end, and a look at the
///                     host outputs (Problem::first_unjoined()); a device-wide synchronize. The referee's clock runs
///                     around this command only.
///                     -> {"ok": true, "ms": t} (plus "unjoined": [buffer, element] when a host output was unwritten)
///   {"op": "finish"}  Problem::after_run(), untimed; a mutant spoils its outputs here -> {"ok": true}
///   {"op": "close"}   unmaps the buffers -> {"ok": true}
/// A failure answers {"ok": false, "error": text, "sticky": bool}; after a sticky CUDA error the runner exits.
#include <harness/launcher.hpp>
#include <harness/stats.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

class Problem;

/// Prefix of the mutant implementations (make_runner()).
inline constexpr const char* kMutantPrefix = "mutant:";
/// The most a runner's own words (its error messages) may take in anything the referee reports: a submission
/// controls them, and a row of a class's results carries only what its own run produced.
inline constexpr std::size_t kRunnerMessageBytes = 1024;

/// The implementation failed to run: its launcher threw, a CUDA call failed, or its runner process died.
class RunnerFailure : public std::runtime_error {
 public:
  /// A failure described by `what`; `fatal` when the runner is gone.
  RunnerFailure(const std::string& what, bool fatal) : std::runtime_error(what), fatal_(fatal) {}
  /// True when the runner is gone (crashed, or a sticky CUDA error): a new one is needed for the next case.
  [[nodiscard]] bool fatal() const noexcept { return fatal_; }

 private:
  bool fatal_;
};

/// One implementation of the lab, wherever it runs.
class Runner {
 public:
  virtual ~Runner() = default;
  /// The implementation's name: "student", "reference", ...
  [[nodiscard]] virtual const std::string& name() const = 0;
  /// The file name of the program it runs in: `labN-<name>`, or the program it shares with others.
  [[nodiscard]] virtual std::string program() const = 0;
  /// Makes `problem`, built by the referee for `exercise`, the one that run() works on (and the one a runner's report
  /// of a run is noted on: Problem::note_unjoined()).
  virtual void open(const std::string& exercise, Problem& problem) = 0;
  /// Runs the launcher once on the open problem and waits for every piece of device work it started. Throws
  /// RunnerFailure.
  virtual Sample run() = 0;
  /// Forgets the open problem (its buffers stay the referee's).
  virtual void close() = 0;
  /// Starts ending the runner without waiting for it to be gone (the destructor waits): runners ended one after
  /// another each took their CUDA context's teardown with them, in turn, at the end of every `time` run.
  virtual void end() noexcept {}
};

/// Ends every runner of `runners` at once (Runner::end), so that their teardowns overlap; each is reaped when it is
/// destroyed.
template <class Map>
void end_together(Map& runners) noexcept {
  for (auto& [name, runner] : runners)
    if (runner) runner->end();
}

/// Where this lab's runner programs are: `runners/` beside the lab binary.
std::filesystem::path runner_directory();
/// The implementations this lab can run: its runner programs in `runner_directory()`.
std::vector<std::string> runner_names();
/// Exercises that implementation `name` has launchers for (asks the runner program; no GPU needed).
std::vector<std::string> runner_exercises(const std::string& name);
/// What a runner may start through instead of its own program: a CUDA tool's front end (compute-sanitizer), which
/// runs the runner as its child and watches it, so that only the runner is under the tool, not the referee (`labN
/// check --sanitizer`). `argv` is the front end's command line before the runner's path; `ended` is told the front
/// end's wait status once it has ended (its exit code is the tool's verdict). Such a runner is neither stopped nor
/// compared with its setup (the tool keeps threads of its own in it, as it does where the tool runs the referee), and
/// is let end on its own once its commands stop, so that the front end can report.
/// At `deadline` the front end is ended with its runner (harness::process_tree::kill_tree), wherever the referee
/// waits on them then (an answer, the report): a tool that hangs costs its own limit, and the next tool still runs.
struct FrontEnd {
  std::vector<std::string> argv;  ///< the front end and its options; empty: the runner starts itself
  /// Told the front end's wait status once, when it has ended, and whether the referee ended it at `deadline`.
  std::function<void(int wait_status, bool past_deadline)> ended;
  /// When the front end and its runner are ended, whatever they are doing; max(): never.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};
/// A runner for implementation `name`: a process of its own (`runners/labN-<name>`), started now.
/// `mutant:<mutation>` is the reference's runner spoiling every output after each run in a generic way (all zeros,
/// right only where a sampling check looks, shifted by one, ...: harness/runner/src/mutations.hpp): known-wrong
/// implementations of every exercise, which `check` and `time` must reject (the checker's mutation suite on the GPU).
/// Throws MissingLauncher when there is no such implementation.
/// With a `front_end`, the runner starts through it (FrontEnd).
std::unique_ptr<Runner> make_runner(const std::string& name, FrontEnd front_end = {});

/// A runner for each role of `impl_of` (role -> implementation), started now. The roles "reference" and "baseline",
/// where they are those implementations, share one process where the lab has `runners/labN-reference+baseline`: the
/// course's two timed implementations in one program, a CUDA context fewer for every timed run, where the host makes
/// contexts one at a time for all its GPUs. Both are opened on the same problem (the second open finds it open); a
/// close closes it for both. Every other role gets a process of its own, the student's always.
std::map<std::string, std::unique_ptr<Runner>> make_runners(const std::map<std::string, std::string>& impl_of);

}  // namespace harness
