// run_processes(): several children at once, each watched by a supervisor of its own. run_process() kills every
// child of its caller when it cleans up, so two runs in one process would kill each other's children; a supervisor
// is a fork of the caller that makes itself a subreaper, calls run_process() for one child and writes the result
// into a memory file the caller reads once the supervisor has exited.

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "grader/process.hpp"

namespace grader {
namespace {

// The fixed part of a result as the supervisor writes it; the four strings follow, in this order.
struct Header {
  std::int32_t started, exit_code, signal, timed_out, out_truncated, err_truncated, results_truncated, turns;
  double wall_s, turn_wait_s, first_turn_s;
  std::uint64_t survivors;
  std::uint64_t sizes[4];  // error, out, err, results
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* at = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t size) {
  char* at = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_result(int fd, const ProcessResult& r) {
  const std::string* texts[4] = {&r.error, &r.out, &r.err, &r.results};
  Header h{r.started,  r.exit_code, r.signal,      r.timed_out, r.out_truncated, r.err_truncated, r.results_truncated,
           r.turns,    r.wall_s,    r.turn_wait_s, r.first_turn_s, r.survivors, {}};
  for (int i = 0; i < 4; ++i) h.sizes[i] = texts[i]->size();
  if (!write_all(fd, &h, sizeof h)) return false;
  for (const auto* text : texts)
    if (!write_all(fd, text->data(), text->size())) return false;
  return true;
}

std::optional<ProcessResult> read_result(int fd) {
  Header h{};
  if (::lseek(fd, 0, SEEK_SET) != 0 || !read_all(fd, &h, sizeof h)) return std::nullopt;
  ProcessResult r;
  r.started = h.started != 0;
  r.exit_code = h.exit_code;
  r.signal = h.signal;
  r.timed_out = h.timed_out != 0;
  r.out_truncated = h.out_truncated != 0;
  r.err_truncated = h.err_truncated != 0;
  r.results_truncated = h.results_truncated != 0;
  r.turns = h.turns;
  r.wall_s = h.wall_s;
  r.turn_wait_s = h.turn_wait_s;
  r.first_turn_s = h.first_turn_s;
  r.survivors = h.survivors;
  std::string* texts[4] = {&r.error, &r.out, &r.err, &r.results};
  for (int i = 0; i < 4; ++i) {
    if (h.sizes[i] > (std::uint64_t{1} << 32)) return std::nullopt;
    texts[i]->resize(h.sizes[i]);
    if (!read_all(fd, texts[i]->data(), texts[i]->size())) return std::nullopt;
  }
  return r;
}

ProcessResult not_started(std::string why) {
  ProcessResult r;
  r.error = std::move(why);
  return r;
}

}  // namespace

std::vector<ProcessResult> run_processes(const std::vector<ProcessOptions>& all, std::size_t at_most) {
  if (all.size() == 1) return {run_process(all.front())};
  struct Supervisor {
    pid_t pid = -1;
    int file = -1;
  };
  std::vector<Supervisor> supervisors(all.size());
  std::vector<ProcessResult> results(all.size());
  const pid_t caller = ::getpid();
  // Run i's shared hold (ProcessOptions::turn_shared_fd), let go where its supervisor could not: a run that never
  // started, or a supervisor that died first, must not hold up the others' turns.
  const auto let_go = [&](std::size_t i) {
    if (all[i].turn_shared_fd >= 0) ::flock(all[i].turn_shared_fd, LOCK_UN);
  };
  // Starts child i's supervisor; false (with the result set) when it could not be started.
  const auto start = [&](std::size_t i) {
    Supervisor& s = supervisors[i];
    s.file = ::memfd_create("grader-run", MFD_CLOEXEC);
    if (s.file < 0) {
      results[i] = not_started(fmt::format("memfd_create: {}", std::strerror(errno)));
      let_go(i);
      return false;
    }
    std::fflush(nullptr);  // what the caller buffered is printed once, not once more by every fork
    s.pid = ::fork();
    if (s.pid < 0) {
      results[i] = not_started(fmt::format("fork: {}", std::strerror(errno)));
      let_go(i);
      ::close(s.file);
      s.file = -1;
      return false;
    }
    if (s.pid > 0) return true;
    // The supervisor. A caller that dies ends it with SIGTERM, which kill_child_on_interrupt() turns into killing
    // its child's whole group first; the child itself dies with it (run_process gives it PDEATHSIG).
    kill_child_on_interrupt();
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != caller) std::_Exit(1);
    const bool written = write_result(s.file, run_process(all[i]));
    std::_Exit(written ? 0 : 1);
  };
  // Collects the supervisor that ended with `status`.
  const auto collect = [&](std::size_t i, int status) {
    Supervisor& s = supervisors[i];
    auto result = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? read_result(s.file) : std::nullopt;
    const auto why = WIFSIGNALED(status) ? "its supervisor was killed by " + signal_name(WTERMSIG(status))
                                         : std::string("its supervisor ended without a result");
    results[i] = result ? std::move(*result) : not_started(why);
    let_go(i);
    ::close(s.file);
    s.file = -1;
    s.pid = -1;
  };
  const std::size_t limit = at_most == 0 ? all.size() : at_most;
  std::size_t next = 0, running = 0;
  for (;;) {
    while (running < limit && next < all.size())
      if (start(next++)) ++running;
    if (running == 0) break;
    // Each of its own supervisors, without blocking (waitpid(-1) would reap a child the caller has elsewhere).
    bool any = false;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (supervisors[i].pid <= 0) continue;
      int status = 0;
      const pid_t ended = ::waitpid(supervisors[i].pid, &status, WNOHANG);
      if (ended == 0 || (ended < 0 && errno == EINTR)) continue;
      if (ended == supervisors[i].pid) {
        collect(i, status);
      } else {  // reaped by someone else: its result is lost, and said to be
        results[i] = not_started(fmt::format("its supervisor could not be waited for: {}", std::strerror(errno)));
        ::close(supervisors[i].file);
        supervisors[i] = {};
      }
      --running;
      any = true;
    }
    if (!any) ::usleep(5000);
  }
  return results;
}

}  // namespace grader
