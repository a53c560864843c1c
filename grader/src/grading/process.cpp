// run_process(): spawn() prepares everything and starts the child, supervise() watches it, reads its pipes, and
// kills and reaps every process it started before anything it wrote is handed back.

#include "grader/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include <harness/host_link.hpp>
#include <harness/process_tree.hpp>

#include "grader/host_lock.hpp"

extern char** environ;

namespace grader {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kResultsFd = 3;
constexpr int kTurnFd = harness::host_link::kTurnFd;
static_assert(kTurnFd == kResultsFd + 1, "the child's descriptors are 0 to 4, none skipped");
// Pipe ends live at or above this number, so the child's dup2 onto 0..3 never overwrites one it still needs.
constexpr int kFirstPrivateFd = 10;
// The clean-up after a child: a process in a fork loop is caught within a few rounds; a GPU process can take
// seconds to die after SIGKILL while the driver tears its context down.
constexpr auto kCleanupLimit = std::chrono::seconds(10);
// Once every writer is dead, what is left in the pipes ends with end of file; this bounds the wait if one is not.
constexpr auto kDrainLimit = std::chrono::seconds(1);

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

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Owns one file descriptor: closed exactly once, moved, never copied.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A close-on-exec descriptor numbered kFirstPrivateFd or above; empty (errno set) on failure.
Fd high_fd(int fd) {
  Fd owned(fd);
  if (!owned || fd >= kFirstPrivateFd) return owned;
  return Fd(::fcntl(fd, F_DUPFD_CLOEXEC, kFirstPrivateFd));
}

struct Pipe {
  Fd read, write;
};

std::optional<Pipe> make_pipe(std::string& error) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    error = fmt::format("pipe: {}", std::strerror(errno));
    return std::nullopt;
  }
  Pipe pipe{high_fd(ends[0]), high_fd(ends[1])};
  if (!pipe.read || !pipe.write) {
    error = fmt::format("fcntl: {}", std::strerror(errno));
    return std::nullopt;
  }
  return pipe;
}

// A directory that exists as long as its owner: made fresh, removed with everything in it.
class PrivateDir {
 public:
  PrivateDir() = default;
  PrivateDir(PrivateDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  PrivateDir& operator=(PrivateDir&& other) noexcept {
    remove();
    path_ = std::exchange(other.path_, {});
    return *this;
  }
  ~PrivateDir() { remove(); }

  static std::optional<PrivateDir> make_in(const fs::path& parent, std::string& error) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    std::string pattern = (parent / "run-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      error = fmt::format("cannot make a directory in {}: {}", parent.string(), std::strerror(errno));
      return std::nullopt;
    }
    PrivateDir dir;
    dir.path_ = fs::absolute(pattern, ec);
    return dir;
  }
  const fs::path& path() const { return path_; }

 private:
  void remove() {
    std::error_code error;
    if (!path_.empty()) fs::remove_all(path_, error);
  }

  fs::path path_;
};

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

// The pipes a child writes to, read together so that none of them fills up and blocks it.
struct Streams {
  std::array<Fd, 3> fds;  // stdout, stderr, results
  std::array<Capture, 3> captures;

  bool open() const {
    return std::any_of(fds.begin(), fds.end(), [](const Fd& fd) { return static_cast<bool>(fd); });
  }
  // Waits up to `wait_ms` for data (on these or on `also`, which it leaves to be read by its owner), then reads
  // whatever is there.
  void pump(int wait_ms, int also = -1) {
    std::array<pollfd, 4> polled;
    nfds_t count = 0;
    for (const Fd& fd : fds)
      if (fd) polled[count++] = {fd.get(), POLLIN, 0};
    if (also >= 0) polled[count++] = {also, POLLIN, 0};
    if (::poll(polled.data(), count, wait_ms) < 0 && errno != EINTR) return;
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i] && !drain(fds[i].get(), captures[i])) fds[i].reset();
  }
};

// Lets go of the shared flock of ProcessOptions::turn_shared_fd, if any: on its open file description, so that the
// copies other processes inherited (run_processes()' supervisors) do not keep it.
void let_go_shared_hold(int fd) {
  if (fd >= 0) ::flock(fd, LOCK_UN);
}

// The grader's side of a child's turns (ProcessOptions::turn_lock, harness/host_link.hpp): reads what the child asks
// through its socket, takes the host's lock for it and lets it go, and counts the seconds the child waited, which the
// caller takes off its clock. The lock is this process's: a child cannot hold a turn past its own end, nor take one
// it was not granted. Bytes it does not know end its turns (it goes on without them).
class Turns {
 public:
  // `shared`: the caller's shared hold for this run (ProcessOptions::turn_shared_fd), let go at the first ask.
  Turns(Fd socket, const fs::path& lock, int shared) : socket_(std::move(socket)), shared_(shared) {
    lock_.reset(open_lock_file(lock));
  }

  // The socket to poll, or -1 once it is closed.
  int fd() const { return socket_.get(); }
  bool waiting() const { return state_ == State::kWaiting; }
  int granted() const { return granted_; }
  // When the first turn was granted, if one was.
  std::optional<Clock::time_point> first_granted() const {
    return granted_ > 0 ? std::optional(first_granted_) : std::nullopt;
  }
  // Seconds waited so far, the wait going on included.
  double waited_s(Clock::time_point now) const {
    return waited_s_ + (state_ == State::kWaiting ? seconds_between(asked_, now) : 0.0);
  }

  // Reads the child's requests, then, while it waits, tries the lock once: called every round of the watch.
  void serve(Clock::time_point now) {
    namespace link = harness::host_link;
    std::array<char, 64> bytes;
    while (socket_) {
      const ssize_t n = ::recv(socket_.get(), bytes.data(), bytes.size(), MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) return end(now);  // the child closed its end, or ended
      for (const char byte : std::string_view(bytes.data(), static_cast<std::size_t>(n))) {
        if (byte == link::kAsk && state_ == State::kIdle) {
          let_go_shared();
          state_ = State::kWaiting;
          asked_ = now;
        } else if (byte == link::kDone && state_ != State::kIdle) {
          give_back(now);
        } else if (byte != link::kAsk && byte != link::kDone) {
          return end(now);
        }
      }
    }
    if (state_ != State::kWaiting) return;
    // A lock file that could not be opened, or a file system without flock, gives turns without the lock.
    if (lock_ && ::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EINTR)) return;
    waited_s_ += seconds_between(asked_, now);
    state_ = State::kHeld;
    if (granted_++ == 0) first_granted_ = now;
    const char granted = link::kGranted;
    if (::send(socket_.get(), &granted, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) end(now);
  }

  // The child's end: its turn, if it had one, is over.
  void end(Clock::time_point now) {
    give_back(now);
    let_go_shared();
    socket_.reset();
  }

 private:
  enum class State { kIdle, kWaiting, kHeld };

  void let_go_shared() { let_go_shared_hold(std::exchange(shared_, -1)); }

  void give_back(Clock::time_point now) {
    if (state_ == State::kHeld && lock_) ::flock(lock_.get(), LOCK_UN);
    if (state_ == State::kWaiting) waited_s_ += seconds_between(asked_, now);
    state_ = State::kIdle;
  }

  Fd socket_, lock_;
  int shared_ = -1;  // the caller's, not closed here: its lock is let go (every copy of the description loses it)
  State state_ = State::kIdle;
  Clock::time_point asked_, first_granted_;
  double waited_s_ = 0;
  int granted_ = 0;
};

// Kills and reaps every process descended from the caller, starting with `group` (the child's process group, whose
// leader is still an unreaped zombie, so its number cannot have been reused). Those that left the group became the
// caller's children when their parents died (the caller is a subreaper): process_tree::end_children() ends them
// round after round. Returns how many were left when it gave up.
std::size_t kill_descendants(pid_t group) {
  ::kill(-group, SIGKILL);
  return harness::process_tree::end_children(kCleanupLimit);
}

bool matches(std::string_view name, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](std::string_view p) {
    return !p.empty() && p.back() == '*' ? name.starts_with(p.substr(0, p.size() - 1)) : name == p;
  });
}

std::vector<std::string> child_environment(const ProcessOptions& options, const PrivateDir* dir) {
  std::vector<std::string> entries;
  const auto set = [&](std::string_view name, std::string_view value) {
    std::erase_if(entries, [&](const std::string& e) { return e.starts_with(name) && e[name.size()] == '='; });
    entries.push_back(fmt::format("{}={}", name, value));
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (!options.inherit_env || matches(name, *options.inherit_env)) entries.emplace_back(entry);
  }
  if (dir != nullptr) set("TMPDIR", dir->path().string());
  for (const auto& [name, value] : options.env) set(name, value);
  return entries;
}

// Everything the child needs, made before fork(): between fork and exec only async-signal-safe calls are safe.
struct Launch {
  std::vector<char*> argv, envp;
  int stdin_fd, stdout_fd, stderr_fd, results_fd;  // results_fd < 0: none
  int turn_fd;                                     // < 0: none
  int report_fd;                                   // write end of the exec pipe
  const char* dir;                                 // nullptr: stay in the caller's directory
  bool limited;
  rlimit core, file_size, open_files;
  int max_fd;                // for the fallback of close_range
  const Ruleset* ruleset;    // nullptr: unconfined
};

// Which step failed in the child before exec, sent through the exec pipe with its errno.
enum class Stage : int { kChdir, kLimits, kConfine, kExec };

[[noreturn]] void fail_in_child(const Launch& l, Stage stage) {
  const int report[2] = {static_cast<int>(stage), errno};
  [[maybe_unused]] const auto written = ::write(l.report_fd, report, sizeof report);
  ::_exit(127);
}

[[noreturn]] void exec_child(const Launch& l) {
  ::setpgid(0, 0);
  // A grader killed outright (kill -9 of a class batch) takes the run with it instead of leaving it on the GPU.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::dup2(l.stdin_fd, STDIN_FILENO);
  ::dup2(l.stdout_fd, STDOUT_FILENO);
  ::dup2(l.stderr_fd, STDERR_FILENO);
  if (l.results_fd >= 0) ::dup2(l.results_fd, kResultsFd);
  if (l.turn_fd >= 0) {
    if (l.results_fd < 0) ::close(kResultsFd);
    ::dup2(l.turn_fd, kTurnFd);
  }
  // Nothing else of the caller's crosses exec: its files, sockets and other children's pipes stay with it.
  const unsigned first = l.turn_fd >= 0 ? kTurnFd + 1 : l.results_fd >= 0 ? kResultsFd + 1 : kResultsFd;
  if (::close_range(first, ~0u, CLOSE_RANGE_CLOEXEC) != 0)
    for (int fd = static_cast<int>(first); fd < l.max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (l.dir != nullptr && ::chdir(l.dir) != 0) fail_in_child(l, Stage::kChdir);
  if (l.limited && (::setrlimit(RLIMIT_CORE, &l.core) != 0 || ::setrlimit(RLIMIT_FSIZE, &l.file_size) != 0 ||
                    ::setrlimit(RLIMIT_NOFILE, &l.open_files) != 0))
    fail_in_child(l, Stage::kLimits);
  if (l.ruleset != nullptr && !l.ruleset->enter()) fail_in_child(l, Stage::kConfine);
  // A parent that ignores SIGPIPE or SIGXFSZ, or blocks signals, must not pass that on: a file over the size limit
  // should end the writer with SIGXFSZ, which the grader reports, not with an error it may ignore.
  ::signal(SIGPIPE, SIG_DFL);
  ::signal(SIGXFSZ, SIG_DFL);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execvpe(l.argv[0], l.argv.data(), l.envp.data());
  fail_in_child(l, Stage::kExec);
}

rlimit capped(int resource, std::uint64_t wanted) {
  rlimit now{};
  ::getrlimit(resource, &now);
  // Above the hard limit setrlimit fails for an ordinary user: stay within it.
  const rlim_t value = now.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, now.rlim_max);
  return {value, value};
}

// A started child: its process, the read ends of its pipes, its directory.
struct Child {
  pid_t pid = -1;
  Clock::time_point start;
  Streams streams;
  std::optional<Turns> turns;
  std::optional<PrivateDir> dir;
};

std::optional<Child> spawn(const ProcessOptions& options, std::string& error) {
  if (options.argv.empty()) {
    error = "empty command";
    return std::nullopt;
  }
  Child child;
  if (options.private_dir_in) {
    child.dir = PrivateDir::make_in(*options.private_dir_in, error);
    if (!child.dir) return std::nullopt;
  }
  std::vector<std::string> env = child_environment(options, child.dir ? &*child.dir : nullptr);
  auto out = make_pipe(error), err = make_pipe(error), report = make_pipe(error);
  std::optional<Pipe> results = options.results_pipe ? make_pipe(error) : Pipe{};
  Fd null_fd = high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!out || !err || !report || !results) return std::nullopt;
  Fd turns_here, turns_there;  // the socket of the child's turns: this process's end and the child's
  if (options.turn_lock) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      error = fmt::format("socketpair: {}", std::strerror(errno));
      return std::nullopt;
    }
    turns_here = high_fd(ends[0]);
    turns_there = high_fd(ends[1]);
    if (!turns_here || !turns_there) {
      error = fmt::format("fcntl: {}", std::strerror(errno));
      return std::nullopt;
    }
  }
  if (!null_fd) {
    error = fmt::format("/dev/null: {}", std::strerror(errno));
    return std::nullopt;
  }

  Launch l{};
  for (const auto& arg : options.argv) l.argv.push_back(const_cast<char*>(arg.c_str()));
  l.argv.push_back(nullptr);
  for (auto& entry : env) l.envp.push_back(entry.data());
  l.envp.push_back(nullptr);
  l.stdin_fd = null_fd.get();
  l.stdout_fd = out->write.get();
  l.stderr_fd = err->write.get();
  l.results_fd = options.results_pipe ? results->write.get() : -1;
  l.turn_fd = turns_there ? turns_there.get() : -1;
  l.report_fd = report->write.get();
  const std::string dir = child.dir ? child.dir->path().string() : "";
  l.dir = child.dir ? dir.c_str() : nullptr;
  l.limited = options.limits.has_value();
  if (l.limited) {
    l.core = {0, 0};
    l.file_size = capped(RLIMIT_FSIZE, options.limits->file_bytes);
    l.open_files = capped(RLIMIT_NOFILE, options.limits->open_files);
  }
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  l.max_fd = static_cast<int>(std::min<rlim_t>(files.rlim_cur, 1 << 20));
  // The rules are made here, before fork: the child only puts them in force. The private directory is writable too.
  std::optional<Ruleset> ruleset;
  if (options.confine) {
    Confinement confinement = *options.confine;
    if (child.dir) confinement.write.push_back(child.dir->path());
    ruleset.emplace(confinement, programs_run_by(options.argv));
  }
  l.ruleset = ruleset ? &*ruleset : nullptr;

  child.start = Clock::now();
  child.pid = ::fork();
  if (child.pid < 0) {
    error = fmt::format("fork: {}", std::strerror(errno));
    return std::nullopt;
  }
  if (child.pid == 0) exec_child(l);
  // Also set here: whichever of parent and child runs first, the group exists before anyone signals it.
  ::setpgid(child.pid, child.pid);
  g_child_group = child.pid;
  report->write.reset();  // closed by a successful exec in the child: then the read below sees end of file
  turns_there.reset();    // the child's now: its end shows as end of file once the child and its own are gone

  int failure[2] = {0, 0};
  ssize_t n;
  do n = ::read(report->read.get(), failure, sizeof failure);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof failure)) {
    ::waitpid(child.pid, nullptr, 0);
    g_child_group = 0;
    const char* what = failure[0] == static_cast<int>(Stage::kChdir)     ? "enter its directory"
                       : failure[0] == static_cast<int>(Stage::kLimits)  ? "set resource limits"
                       : failure[0] == static_cast<int>(Stage::kConfine) ? "confine the files of"
                                                                         : "execute";
    error = fmt::format("cannot {} {}: {}", what, options.argv[0], std::strerror(failure[1]));
    return std::nullopt;
  }
  const std::size_t limit = options.capture_limit;
  child.streams.fds = {std::move(out->read), std::move(err->read), std::move(results->read)};
  child.streams.captures = {Capture{{}, limit}, Capture{{}, limit}, Capture{{}, limit}};
  for (const Fd& fd : child.streams.fds)
    if (fd) ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
  if (turns_here) child.turns.emplace(std::move(turns_here), *options.turn_lock, options.turn_shared_fd);
  return child;
}

// Watches the child until it ends (sending SIGTERM, then SIGKILL, at the time limit), kills everything it started,
// then collects what it wrote.
void supervise(Child& child, const ProcessOptions& options, ProcessResult& result) {
  const bool limited = options.timeout_s > 0;
  const auto deadline = child.start + seconds(limited ? options.timeout_s : 0);
  const auto grace = seconds(options.kill_grace_s);
  bool killed = false;
  Clock::time_point term_sent{};
  siginfo_t info{};
  Turns* const turns = child.turns ? &*child.turns : nullptr;
  for (;;) {
    const auto now = Clock::now();
    // WNOWAIT leaves the child a zombie, which keeps its process-group id from being reused while we signal it.
    if (::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == child.pid)
      break;
    if (turns) turns->serve(now);
    // The clock of the limit stands still while the child waits for a turn (up to turn_wait_limit_s in all).
    const auto paused = seconds(turns ? std::min(turns->waited_s(now), options.turn_wait_limit_s) : 0.0);
    if (limited && !result.timed_out && now >= deadline + paused) {
      result.timed_out = true;
      term_sent = now;
      ::kill(-child.pid, SIGTERM);
    }
    if (result.timed_out && !killed && now >= term_sent + grace) {
      killed = true;
      ::kill(-child.pid, SIGKILL);
    }
    // Short waits: the child's exit is noticed by polling waitid, and open pipes usually mean it still runs. A child
    // waiting for a turn is looked at often: the lock is tried, not waited for, so that this loop keeps the clock.
    const int wait_ms = turns && turns->waiting() ? 2 : 50;
    if (child.streams.open()) child.streams.pump(wait_ms, turns ? turns->fd() : -1);
    else std::this_thread::sleep_for(std::chrono::milliseconds(std::min(wait_ms, 5)));
  }
  const auto end = Clock::now();
  result.wall_s = seconds_between(child.start, end);
  if (turns) {  // its turn ends with it, before the clean-up (a GPU process may take seconds to die)
    turns->end(end);
    result.turns = turns->granted();
    result.turn_wait_s = turns->waited_s(end);
    if (const auto first = turns->first_granted()) result.first_turn_s = seconds_between(child.start, *first);
  }
  if (info.si_code == CLD_EXITED) result.exit_code = info.si_status;
  else result.signal = info.si_status;

  // Nothing the child started may outlive it, nor write anything after this point.
  result.survivors = kill_descendants(child.pid);
  g_child_group = 0;
  for (const auto stop = Clock::now() + kDrainLimit; child.streams.open() && Clock::now() < stop;)
    child.streams.pump(10);

  auto& [out, err, results] = child.streams.captures;
  for (Capture* c : {&out, &err, &results}) c->trim();
  result.out = std::move(out.data);
  result.err = std::move(err.data);
  result.results = std::move(results.data);
  result.out_truncated = out.truncated;
  result.err_truncated = err.truncated;
  result.results_truncated = results.truncated;
}

// Done before the first child starts, once is enough but again is harmless. As a subreaper, the grader inherits
// whatever its children orphan (a daemon, a setsid'd process) instead of init, and so can kill it. Non-dumpable, it
// cannot be ptraced nor its /proc/PID/{mem,environ,fd} opened by a process of the same user: the child's code.
void harden_self() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_DUMPABLE, 0);
}

}  // namespace

ProcessResult run_process(const ProcessOptions& options) {
  harden_self();
  ProcessResult result;
  auto child = spawn(options, result.error);
  if (child) {
    result.started = true;
    supervise(*child, options, result);
  }
  let_go_shared_hold(options.turn_shared_fd);  // a child that never asked, or never started, holds up no turn
  return result;  // `child` goes here, and its directory with it: nothing that could write there is alive
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
