#pragma once
/// @file runner.hpp
/// @brief The grading boundary, seen from the lab binary (the referee): each implementation runs in a runner.
///
/// The lab binary `labN` holds the problems, the inputs, the CPU references, the checks, the ceilings and the timing
/// policy, and no implementation. Each implementation (student, reference, baseline, a known-wrong fixture) is built
/// into its own small program, `runners/labN-<impl>`, that links only that implementation's launchers and the lab's
/// problem definitions. The referee allocates every buffer, generates the inputs and poisons the outputs; the runner
/// maps the same memory and runs its launcher on it when told to; the referee then checks the output through its own
/// pointers. Code in a submission can rewrite anything in its own process, and its process holds nothing that grades.
/// Device buffers are shared by CUDA IPC handle; host buffers (harness::Memory::host, lab 07's host arrays) are a
/// memfd that the referee maps and hands over as a descriptor, which the runner maps too; both page-lock it.
///
/// Protocol (JSON lines; the runner reads commands on fd 3 and answers on fd 4; fd 5 is a socket on which the referee
/// sends, before an "open" that has host buffers, one message carrying their descriptors, in buffer order):
///   {"op": "open", "exercise": E, "shape": "1024x33", "handles": [hex | "fd", ...]}   -> {"ok": true}
///   {"op": "prepare"} Problem::before_run(), untimed -> {"ok": true}
///   {"op": "run"}     one launch on the runner's stream between two events; the stream's end, and a look at the
///                     host outputs (Problem::first_unjoined()); a device-wide synchronize. The referee's clock runs
///                     around this command only.
///                     -> {"ok": true, "ms": t} (plus "unjoined": [buffer, element] when a host output was unwritten)
///   {"op": "finish"}  Problem::after_run(), untimed; a mutant spoils its outputs here -> {"ok": true}
///   {"op": "close"}   unmaps the buffers -> {"ok": true}
/// A failure answers {"ok": false, "error": text, "sticky": bool}; after a sticky CUDA error the runner exits.
#include <harness/launcher.hpp>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

class Problem;

/// Prefix of the mutant implementations (make_runner()).
inline constexpr const char* kMutantPrefix = "mutant:";
/// The most buffers in host memory one problem may have (their descriptors travel in one message).
inline constexpr std::size_t kMaxSharedBuffers = 16;

/// One timed run as the referee saw it.
struct RunnerSample {
  double event_ms = 0;  ///< the runner's CUDA event time around its launcher: the measure
  double wall_ms = 0;   ///< the referee's host clock around the whole command: an upper bound the runner cannot move
};

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
  /// Makes `problem`, built by the referee for `exercise`, the one that run() works on (and the one a runner's report
  /// of a run is noted on: Problem::note_unjoined()).
  virtual void open(const std::string& exercise, Problem& problem) = 0;
  /// Runs the launcher once on the open problem and waits for every piece of device work it started. Throws
  /// RunnerFailure.
  virtual RunnerSample run() = 0;
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

/// True when a CUDA tool that follows this process's kernels is attached (ncu, nsys, compute-sanitizer): one of its
/// injection variables is set. Such tools serialize and replay kernels across processes; work the referee overlaps
/// with a runner's run (check's next case, made on a second thread) is then left out.
bool cuda_tool_attached();
/// The same, read from `envp` (a NULL-terminated environment, as a .preinit_array function is handed).
bool cuda_tool_attached(char** envp);
/// The value of variable `name` in `envp` (a NULL-terminated environment), or nullptr. For code that runs from
/// .preinit_array, where the C library's `environ` and getenv() may not be set up yet (measured: getenv saw nothing).
const char* variable_in(char** envp, std::string_view name);

/// What install_runner_sandbox() put in force.
struct SandboxState {
  bool seccomp = false;  ///< the system-call filter is in force
  int landlock_abi = 0;  ///< the Landlock ABI whose write restriction is in force; 0: none (the kernel has none)
  std::string problem;   ///< why a part is missing, else empty
};

/// The parts of install_runner_sandbox(): the Landlock write restriction, and seccomp's groups of calls.
enum SandboxPart : unsigned {
  kSandboxWrites = 1u << 0,     ///< Landlock: no writes outside /dev, /proc, /sys and $TMPDIR
  kSandboxProcesses = 1u << 1,  ///< fork, vfork, clone without CLONE_THREAD (clone3: ENOSYS)
  kSandboxExec = 1u << 2,       ///< execve, execveat
  kSandboxTracing = 1u << 3,    ///< ptrace, process_vm_readv, process_vm_writev
  kSandboxSignals = 1u << 4,    ///< kill, tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo to another process
  kSandboxPidfds = 1u << 5,     ///< pidfd_open, pidfd_send_signal, pidfd_getfd
  kSandboxAll = (1u << 6) - 1,  ///< every part
};

/// Confines the calling process for good, before any code of an implementation runs (every runner program calls it
/// from its .preinit_array, ahead of the static initializers of the code it links, under a CUDA tool too). seccomp
/// refuses new processes (fork, vfork, a clone that is not a thread), exec, ptrace and other processes' memory,
/// signals to other processes and pidfds; Landlock, where the kernel has it, refuses creating, writing, renaming or
/// removing files outside /dev, /proc, /sys and $TMPDIR (/tmp where it is unset). `parts` (a mask
/// of SandboxPart) picks what goes up; `envp` is the environment to read TMPDIR from (nullptr: `environ`, which a
/// .preinit_array function may not have yet). What the machine does not allow is left out and said in `problem`: the
/// static check and the referee's checks stand without it.
SandboxState install_runner_sandbox(unsigned parts = kSandboxAll, char** envp = nullptr);

/// Where this lab's runner programs are: `runners/` beside the lab binary.
std::filesystem::path runner_directory();
/// The implementations this lab can run: its runner programs in `runner_directory()`.
std::vector<std::string> runner_names();
/// Exercises that implementation `name` has launchers for (asks the runner program; no GPU needed).
std::vector<std::string> runner_exercises(const std::string& name);
/// A runner for implementation `name`: a process of its own (`runners/labN-<name>`), started now.
/// `mutant:<mutation>` is the reference's runner spoiling every output after each run in a generic way (all zeros,
/// right only where a sampling check looks, shifted by one, ...: harness/src/runner/mutations.hpp): known-wrong
/// implementations of every exercise, which `check` and `time` must reject (the checker's mutation suite on the GPU).
/// Throws MissingLauncher when there is no such implementation.
std::unique_ptr<Runner> make_runner(const std::string& name);


}  // namespace harness
