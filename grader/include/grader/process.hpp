#pragma once
/// @file process.hpp
/// @brief Runs one child process under a wall-clock limit and captures what it prints.
///
/// The grader's only contact with student code: whatever the child does (hang, crash, flood its output, fork
/// grandchildren), run_process() returns a result and never throws.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace grader {

/// What to run and under which limits.
struct ProcessOptions {
  /// The command; argv[0] is looked up in PATH when it has no slash.
  std::vector<std::string> argv;
  /// Wall-clock limit in seconds; zero or less means none.
  double timeout_s = 60;
  /// Seconds between SIGTERM and SIGKILL once the limit is reached.
  double kill_grace_s = 2;
  /// Bytes kept of each of stdout and stderr: the last ones, where the error messages are.
  std::size_t capture_limit = 64 * 1024;
  /// Variables set in (or replaced in) the child's environment, which is otherwise the grader's.
  std::vector<std::pair<std::string, std::string>> env;
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
  /// The last `capture_limit` bytes of stdout.
  std::string out;
  /// The last `capture_limit` bytes of stderr.
  std::string err;
  /// True when stdout was longer than `capture_limit` (its start was dropped).
  bool out_truncated = false;
  /// True when stderr was longer than `capture_limit`.
  bool err_truncated = false;
};

/// Runs a child in its own process group, with stdin from /dev/null and stdout and stderr captured.
///
/// On timeout the whole group gets SIGTERM, then SIGKILL after `kill_grace_s`; when the child ends on its own, any
/// process it left behind in its group is killed too, so no stray process keeps the GPU busy. Never throws for a
/// misbehaving child.
ProcessResult run_process(const ProcessOptions& options);

/// Makes SIGINT, SIGTERM and SIGHUP to the calling process kill the child that run_process() is running (its whole
/// group) before the caller dies of the signal. Children run in their own process group, so Ctrl-C at the terminal
/// reaches only the grader: without this, a hung lab would keep the GPU after the grader is gone.
void kill_child_on_interrupt();

/// The name of a signal ("SIGSEGV"), or "signal N" for one without a well-known name.
std::string signal_name(int sig);

/// The last non-blank line of `text`, trimmed and cut to `max_chars` (for one-line error messages).
std::string last_line(std::string_view text, std::size_t max_chars = 240);

}  // namespace grader
