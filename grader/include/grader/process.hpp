#pragma once
/// @file process.hpp
/// @brief Runs one child process under a wall-clock limit, captures what it prints, and leaves nothing behind.
///
/// The grader's only contact with student code: whatever the child does (hang, crash, flood its output, fork
/// grandchildren, daemonize), run_process() returns a result and never throws, and by the time it returns every
/// process the child started is dead and reaped.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/confine.hpp"

namespace grader {

/// Resource limits for a child and everything it starts. Core dumps are always off under limits.
struct ProcessLimits {
  /// RLIMIT_FSIZE: writing a file past this size kills the writer with SIGXFSZ.
  std::uint64_t file_bytes = std::uint64_t{1} << 30;
  /// RLIMIT_NOFILE: open file descriptors per process.
  std::uint64_t open_files = 1024;
};

/// What to run and under which limits.
struct ProcessOptions {
  /// The command; argv[0] is looked up in PATH when it has no slash.
  std::vector<std::string> argv;
  /// Wall-clock limit in seconds; zero or less means none.
  double timeout_s = 60;
  /// Seconds between SIGTERM and SIGKILL once the limit is reached.
  double kill_grace_s = 2;
  /// Bytes kept of each of stdout, stderr and the results pipe: the last ones, where the error messages are.
  std::size_t capture_limit = 64 * 1024;
  /// Variables set in (or replaced in) the child's environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// The names of the caller's variables the child inherits ("LC_*" matches every name starting with LC_);
  /// nullopt: all of them.
  std::optional<std::vector<std::string>> inherit_env;
  /// Gives the child the write end of a pipe as fd 3 (it may open `/dev/fd/3`); what comes through is returned in
  /// ProcessResult::results. A path would let any process that can name it write there too.
  bool results_pipe = false;
  /// When set, the child may take turns on this lock file (flock), one process of the host at a time: it gets a
  /// socket as fd 4 and asks for each turn through it (harness/host_link.hpp). While it waits for a turn its
  /// wall-clock limit stands still, up to `turn_wait_limit_s` in all, so that waiting for others' turns never counts
  /// as hanging. The lock is held for it, never by it: it cannot keep a turn past its own end.
  std::optional<std::filesystem::path> turn_lock;
  /// A descriptor of the caller's on which it took a shared flock of a turns' lock file before starting this run (an
  /// open file description of its own: host_lock.hpp, SharedHolds). It is let go when the child first asks for a turn
  /// (where `turn_lock` is that file), or ends, or could not start, so that no turn on the file is granted while a run
  /// started with such a hold has neither asked nor ended: grade_labs() gives one to each of a worker's check runs,
  /// those that go on to time and the others, and a lab's timed part waits for every other lab's checks. -1: none.
  int turn_shared_fd = -1;
  /// The most seconds of waiting for turns that stop the clock; waiting beyond counts against `timeout_s`.
  double turn_wait_limit_s = 3600;
  /// When set, the child runs in a fresh directory made under this folder (its TMPDIR too), removed with
  /// everything in it once every process the child started is dead.
  std::optional<std::filesystem::path> private_dir_in;
  /// Resource limits for the child; nullopt: the caller's own. RLIMIT_AS is never set: CUDA reserves far more
  /// virtual address space than it uses.
  std::optional<ProcessLimits> limits;
  /// When set, the child and everything it starts read only the system's folders and these paths, and write only
  /// into these folders and its private directory (confine.hpp: a submission's compile). Where the kernel has no
  /// Landlock the child runs unconfined.
  std::optional<Confinement> confine;
};

/// How a child process ended.
struct ProcessResult {
  /// False when the child could not be started at all (fork or exec failed); `error` says why.
  bool started = false;
  /// Why the child could not be started.
  std::string error;
  /// Exit status when the child exited on its own, else -1.
  int exit_code = -1;
  /// The signal that ended the child, else 0.
  int signal = 0;
  /// True when the wall-clock limit was reached and the process group was killed.
  bool timed_out = false;
  /// Seconds from start to the child's end.
  double wall_s = 0;
  /// Turns the child was granted (`turn_lock`).
  int turns = 0;
  /// Seconds the child waited for its turns (its limit's clock stood still for up to `turn_wait_limit_s` of them).
  double turn_wait_s = 0;
  /// Seconds from the start to its first turn's grant; 0 without one.
  double first_turn_s = 0;
  /// The last `capture_limit` bytes of stdout.
  std::string out;
  /// The last `capture_limit` bytes of stderr.
  std::string err;
  /// What came through the results pipe (the last `capture_limit` bytes).
  std::string results;
  /// True when stdout was longer than `capture_limit` (its start was dropped).
  bool out_truncated = false;
  /// True when stderr was longer than `capture_limit`.
  bool err_truncated = false;
  /// True when the results pipe carried more than `capture_limit` bytes.
  bool results_truncated = false;
  /// Processes the child started that were still alive when the clean-up gave up on them (normally 0). When not 0,
  /// something may still write where the child could: nothing it produced should be trusted.
  std::size_t survivors = 0;
};

/// Runs a child in its own process group, with stdin from /dev/null, stdout and stderr captured, and every file
/// descriptor of the caller other than 0, 1, 2 (3 with `results_pipe`, 4 with `turn_lock`) closed.
///
/// On timeout the whole group gets SIGTERM, then SIGKILL after `kill_grace_s`. Whichever way the child ends, every
/// process it started is then killed and reaped before this returns, those that left its group or session
/// (setsid, daemons) included: the calling process makes itself a child subreaper, so they become its children,
/// and every child of the calling process is killed, round after round, until none is left. So the caller must
/// not have other children of its own while it calls this. The calling process also makes itself non-dumpable, so
/// that a process of the same user cannot read its memory, environment or file descriptors through /proc.
/// Never throws for a misbehaving child.
ProcessResult run_process(const ProcessOptions& options);

/// Runs the children of `all`, at most `at_most` at a time (0: every one at once; a new one starts as soon as one
/// ends), and returns their results in the same order, with run_process()'s guarantees for each: each child is
/// watched by a supervisor process of its own (a fork of the caller), so the clean-up after one child, which kills
/// every child of its supervisor, cannot touch another. The caller must have no other children meanwhile, and no
/// other threads (it forks). A supervisor that dies gives a result with `started` false and `error` saying so.
/// Never throws for a misbehaving child.
std::vector<ProcessResult> run_processes(const std::vector<ProcessOptions>& all, std::size_t at_most = 0);

/// Makes SIGINT, SIGTERM and SIGHUP to the calling process kill the child that run_process() is running (its whole
/// group) before the caller dies of the signal. Children run in their own process group, so Ctrl-C at the terminal
/// reaches only the grader: without this, a hung lab would keep the GPU after the grader is gone.
void kill_child_on_interrupt();

/// The name of a signal ("SIGSEGV"), or "signal N" for one without a well-known name.
std::string signal_name(int sig);

/// The last non-blank line of `text`, trimmed and cut to `max_chars` (for one-line error messages).
std::string last_line(std::string_view text, std::size_t max_chars = 240);

}  // namespace grader
