#include "grader/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace grader {
namespace {

using Clock = std::chrono::steady_clock;

// The process group of the child being run, for the interrupt handler; 0 when none.
volatile std::sig_atomic_t g_child_group = 0;

extern "C" void kill_child_and_die(int sig) {
  const pid_t group = g_child_group;
  if (group > 0) ::kill(-group, SIGKILL);
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered with the default action once this handler returns
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Keeps the tail of a stream: a flooding child costs at most 2x the limit in memory.
struct Capture {
  std::string data;
  std::size_t limit;
  bool truncated = false;

  void append(const char* bytes, std::size_t n) {
    data.append(bytes, n);
    if (data.size() > 2 * limit) trim();
  }
  void trim() {
    if (data.size() <= limit) return;
    data.erase(0, data.size() - limit);
    truncated = true;
  }
};

// Reads what the pipe holds now. Returns false at end of file. Stops after 1 MiB so that a child writing without
// pause cannot keep the loop from checking the clock.
bool drain(int fd, Capture& capture) {
  std::array<char, 16384> buffer;
  for (std::size_t total = 0; total < (1u << 20);) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      capture.append(buffer.data(), static_cast<std::size_t>(n));
      total += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
  }
  return true;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

ProcessResult run_process(const ProcessOptions& options) {
  ProcessResult result;
  if (options.argv.empty()) {
    result.error = "empty command";
    return result;
  }

  // Everything the child needs is built before fork(): between fork and exec only async-signal-safe calls are safe.
  std::vector<char*> argv;
  for (const auto& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(options.env.begin(), options.env.end(),
                                      [&](const auto& kv) { return kv.first == name; });
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : options.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.error = fmt::format("pipe: {}", std::strerror(errno));
    return result;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.error = fmt::format("pipe: {}", std::strerror(errno));
    ::close(out_pipe[0]), ::close(out_pipe[1]);
    return result;
  }
  // Closed by a successful exec (O_CLOEXEC); carries errno when exec fails, so "cannot start" is told from "exit 127".
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.error = fmt::format("pipe: {}", std::strerror(errno));
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return result;
  }

  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.error = fmt::format("fork: {}", std::strerror(errno));
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0], exec_pipe[1]}) ::close(fd);
    return result;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    // A parent that ignores SIGPIPE or blocks signals must not pass that on to the lab.
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execvpe(argv[0], argv.data(), envp.data());
    const int error = errno;
    [[maybe_unused]] const auto written = ::write(exec_pipe[1], &error, sizeof error);
    ::_exit(127);
  }
  // Also set here: whichever of parent and child runs first, the group exists before anyone signals it.
  ::setpgid(pid, pid);
  g_child_group = pid;
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);

  int exec_error = 0;
  ssize_t n;
  do n = ::read(exec_pipe[0], &exec_error, sizeof exec_error);
  while (n < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_error)) {
    ::waitpid(pid, nullptr, 0);
    g_child_group = 0;
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    result.error = fmt::format("cannot execute {}: {}", options.argv[0], std::strerror(exec_error));
    return result;
  }
  result.started = true;

  int fds[2] = {out_pipe[0], err_pipe[0]};
  Capture captures[2] = {{{}, options.capture_limit}, {{}, options.capture_limit}};
  for (int fd : fds) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

  const bool limited = options.timeout_s > 0;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(limited ? options.timeout_s : 0));
  const auto grace = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.kill_grace_s));
  bool exited = false, killed = false;
  Clock::time_point exit_seen{}, term_sent{};

  for (;;) {
    const auto now = Clock::now();
    if (!exited) {
      // WNOWAIT leaves the child a zombie, which keeps its process-group id from being reused while we signal it.
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
        exited = true;
        exit_seen = now;
        ::kill(-pid, SIGKILL);  // whatever the child left behind in its group
      }
    }
    if (exited && fds[0] < 0 && fds[1] < 0) break;
    // A writer that left the group (setsid) could hold a pipe open forever: stop waiting for its end of file.
    if (exited && now - exit_seen > std::chrono::seconds(1)) break;
    if (!exited && limited && !result.timed_out && now >= deadline) {
      result.timed_out = true;
      term_sent = now;
      ::kill(-pid, SIGTERM);
    }
    if (!exited && result.timed_out && !killed && now >= term_sent + grace) {
      killed = true;
      ::kill(-pid, SIGKILL);
    }

    pollfd polled[2];
    nfds_t count = 0;
    for (int fd : fds)
      if (fd >= 0) polled[count++] = {fd, POLLIN, 0};
    // Short waits: the child's exit is noticed by polling waitid, and open pipes usually mean it still runs.
    const int wait_ms = count == 0 ? 5 : 50;
    if (::poll(polled, count, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i] < 0) continue;
      if (!drain(fds[i], captures[i])) close_fd(fds[i]);
    }
  }
  for (int& fd : fds) close_fd(fd);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child_group = 0;
  result.wall_s = seconds_between(start, Clock::now());
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  captures[0].trim();
  captures[1].trim();
  result.out = std::move(captures[0].data);
  result.err = std::move(captures[1].data);
  result.out_truncated = captures[0].truncated;
  result.err_truncated = captures[1].truncated;
  return result;
}

void kill_child_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = kill_child_and_die;
  ::sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return fmt::format("signal {}", sig);
  }
}

std::string last_line(std::string_view text, std::size_t max_chars) {
  constexpr std::string_view kBlank = " \t\r\n";
  const auto end = text.find_last_not_of(kBlank);
  if (end == std::string_view::npos) return "";
  text = text.substr(0, end + 1);
  const auto newline = text.find_last_of('\n');
  if (newline != std::string_view::npos) text = text.substr(newline + 1);
  text.remove_prefix(std::min(text.find_first_not_of(kBlank), text.size()));
  std::string line(text.substr(0, max_chars));
  if (text.size() > max_chars) line += "...";
  return line;
}

}  // namespace grader
