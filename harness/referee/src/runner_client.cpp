// The referee's side of the grading boundary (runner.hpp): runner processes spawned with two pipes for commands and
// answers and a socket that hands them the descriptors of shared host memory, kept stopped outside their turns and
// compared, after each, with what they were once set up.
#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/problem.hpp>
#include <harness/process_image.hpp>
#include <harness/process_tree.hpp>
#include <harness/protocol.hpp>
#include <harness/runner.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

extern char** environ;

namespace harness {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path self_directory() {
  std::error_code error;
  const auto self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : self.parent_path();
}

/// "lab1-": runner programs are named for the lab binary (lab1, from the folder 01_coalescing) and implementation.
std::string runner_prefix() { return "lab" + std::to_string(std::stoi(lab().id)) + "-"; }

/// Only what a CUDA program needs (protocol::passed_to_runner()): the runner does not see the rest of the referee's
/// environment. Where a profiler or sanitizer runs the lab binary (ncu, compute-sanitizer), it follows child processes
/// through variables of its own (LD_PRELOAD, CUDA_INJECTION64_PATH, NV_*): those pass, or the runner crashes
/// half-injected. A graded run never has them: `grade` starts labN with an allowlisted environment.
std::vector<std::string> runner_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    if (protocol::passed_to_runner(entry.substr(0, entry.find('=')))) env.push_back(entry);
  }
  return env;
}

/// Who a runner runs as: the referee's own identity, or, when the referee is root, an unprivileged one (the user
/// `nobody`, or COURSE_RUNNER_UID/COURSE_RUNNER_GID where a machine has a dedicated grading user).
struct Identity {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

Identity unprivileged_identity() {
  if (::geteuid() != 0) return {};
  Identity id{true, 65534, 65534};
  if (const passwd* nobody = ::getpwnam("nobody")) {
    id.uid = nobody->pw_uid;
    id.gid = nobody->pw_gid;
  }
  if (const char* uid = std::getenv("COURSE_RUNNER_UID")) id.uid = static_cast<uid_t>(std::stoul(uid));
  if (const char* gid = std::getenv("COURSE_RUNNER_GID")) id.gid = static_cast<gid_t>(std::stoul(gid));
  id.drop = id.uid != 0;  // COURSE_RUNNER_UID=0 keeps root: the submission could then reach everything
  return id;
}

/// In a forked child (async-signal-safe calls only): becomes `who` and executes the program, by path first and through
/// `program_fd` (opened by the referee's own user) when `who` cannot reach the path. Returns only when both fail.
/// Run as root (a grading machine's batch job often is), a submission's code, static initializers included, could
/// reach anything: trace the referee, open its results pipe through /proc, kill the grader. So every way a runner
/// program starts (a run, `--list`) drops to an unprivileged identity first, or does not start.
/// By path first: compute-sanitizer and the profilers follow a child through execve, not through fexecve (measured:
/// memcheck saw nothing in a runner started by fexecve). `program_fd` -1: by path only (a tool's front end, whose
/// command line is not the program's).
void exec_as(const Identity& who, int program_fd, char* const argv[], char* const envp[]) {
  if (who.drop && (::setgroups(0, nullptr) != 0 || ::setresgid(who.gid, who.gid, who.gid) != 0 ||
                   ::setresuid(who.uid, who.uid, who.uid) != 0))
    return;
  ::execve(argv[0], argv, envp);
  if (errno == EACCES && program_fd >= 0) ::fexecve(program_fd, argv, envp);
}

/// A folder for a CUDA tool's front end and the runner it starts, both run as `who`: the tool keeps its pipes between
/// them in its temporary folder, and the referee's TMPDIR (a grader's private folder, mode 700) is closed to `who`.
/// Under /tmp, `who`'s own, mode 700; removed by the referee once the front end has ended.
std::string tool_directory(const Identity& who) {
  std::string dir = "/tmp/course-tool-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr || ::chown(dir.c_str(), who.uid, who.gid) != 0)
    throw std::runtime_error(std::string("cannot make a folder for compute-sanitizer under /tmp: ") +
                             std::strerror(errno));
  return dir;
}

/// Writes all of `text`; false if the reader is gone.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// What a runner said, as the referee passes it on: at most kRunnerMessageBytes, and marked as the runner's, since a
/// submission controls every word of it.
std::string runner_words(const std::string& name, std::string text) {
  if (text.size() > kRunnerMessageBytes) text = text.substr(0, kRunnerMessageBytes) + " [...]";
  return "runner '" + name + "' said: " + text;
}

/// What `program --list` prints on stdout (no shell: the path is passed as it is).
std::string list_output(const fs::path& program) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const std::string path = program.string();
  char list[] = "--list";
  char* argv[] = {const_cast<char*>(path.c_str()), list, nullptr};
  const Identity who = unprivileged_identity();
  const int program_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (program_fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(out[1], 1);
    exec_as(who, program_fd, argv, environ);
    ::_exit(127);
  }
  ::close(program_fd);
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || text.size() > (1u << 20)) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return text;
}

/// A runner program, started when this object is made and killed when it goes (it is in the lab binary's process
/// group; what it moved out of that group is `grade`'s to end, as a subreaper).
class RemoteRunner final : public Runner {
 public:
  /// `args` follow the program's path on its command line (a mutant's `--mutate NAME`); a `front_end` comes before
  /// it (FrontEnd).
  RemoteRunner(fs::path program, std::string name, std::vector<std::string> args = {}, FrontEnd front_end = {})
      : program_(std::move(program)), name_(std::move(name)), args_(std::move(args)), front_(std::move(front_end)) {
    if (!front_.argv.empty()) watched_ = false;
    spawn();
  }
  ~RemoteRunner() override { stop(); }
  RemoteRunner(const RemoteRunner&) = delete;
  RemoteRunner& operator=(const RemoteRunner&) = delete;

  [[nodiscard]] const std::string& name() const override { return name_; }
  [[nodiscard]] std::string program() const override { return program_.filename().string(); }

  void open(const std::string& exercise, Problem& problem) override {
    // Device buffers go as CUDA IPC handles; host buffers as "fd", their descriptors sent over the socket first, in
    // the same order (the runner takes them before it reads the handles).
    json handles = json::array();
    std::vector<int> fds;
    for (const Buffer* b : problem.buffers()) {
      if (b->memory() == Memory::host) {
        handles.push_back("fd");
        fds.push_back(b->shared_fd());
      } else {
        handles.push_back(protocol::hex(b->ipc_handle()));
      }
    }
    if (pid_ <= 0) throw RunnerFailure("runner '" + name_ + "' is not running", true);
    // A runner of several implementations is opened by each on the same problem: the problem is open already.
    json open = {{"op", "open"}, {"exercise", exercise}, {"shape", problem.shape().str()}, {"handles", handles}};
    if (problem_ == &problem && open == open_) return;
    problem_ = nullptr;
    open_ = nullptr;
    turn([&] {
      if (!fds.empty() && !protocol::send_descriptors(fds_, fds))
        throw RunnerFailure("runner '" + name_ + "' " + death(), true);
      call(open);
    });
    problem_ = &problem;
    open_ = std::move(open);
  }

  Sample run() override { return run_as(""); }

  /// A run of implementation `impl` of a runner of several (its "prepare", "run" and "finish" name it), or of the one
  /// implementation of this runner (`impl` empty).
  Sample run_as(const std::string& impl) {
    Sample sample;
    const auto command = [&](const char* op) {
      json c = {{"op", op}};
      if (!impl.empty()) c["impl"] = impl;
      return c;
    };
    turn([&] {
      // The untimed set-up and hand-over (Problem::before_run, after_run) are commands of their own, outside the
      // clock.
      call(command("prepare"));
      const auto start = std::chrono::steady_clock::now();
      const json reply = call(command("run"));
      const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (!reply.contains("ms") || !reply.at("ms").is_number())
        throw RunnerFailure("runner '" + name_ + "' answered a run without a time", true);
      // A host output still unwritten when the runner's stream had finished (Problem::first_unjoined()), which the
      // problem's verify() reports. Trusting the runner here is harmless: the runner answers only after a
      // device-wide synchronize and the referee's clock bounds its time, so work left unjoined is in the time all the
      // same and the output is checked all the same; a runner that hides it only skips a message that teaches the
      // fork-join rule.
      if (const auto it = reply.find("unjoined"); it != reply.end() && problem_) {
        const auto& u = *it;
        if (!u.is_array() || u.size() != 2 || !u[0].is_number_unsigned() || !u[1].is_number_integer())
          throw RunnerFailure("runner '" + name_ + "' answered garbage: " + reply.dump().substr(0, 120), true);
        problem_->note_unjoined({u[0].get<std::size_t>(), u[1].get<std::int64_t>()});
      }
      call(command("finish"));
      sample = {reply.at("ms").get<double>(), wall};
    });
    return sample;
  }

  void close() override {
    problem_ = nullptr;
    open_ = nullptr;
    turn([&] { call({{"op", "close"}}); });
  }

 private:
  void spawn() {
    int commands[2], replies[2], descriptors[2];
    if (::pipe2(commands, O_CLOEXEC) != 0 || ::pipe2(replies, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, descriptors) != 0)
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    const std::string path = program_.string();
    const Identity runner_identity = unprivileged_identity();
    std::vector<std::string> env_strings = runner_environment();
    if (!front_.argv.empty() && runner_identity.drop) {
      tool_dir_ = tool_directory(runner_identity);
      std::erase_if(env_strings, [](const std::string& e) { return e.starts_with("TMPDIR="); });
      env_strings.push_back("TMPDIR=" + tool_dir_);
    }
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<char*> argv;
    for (auto& a : front_.argv) argv.push_back(a.data());
    argv.push_back(const_cast<char*>(path.c_str()));
    for (auto& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    // What the child answers if it cannot become the runner (it may only write, after fork): the usual cause is a
    // build folder that the unprivileged user cannot read, such as one under /root.
    const std::string cannot_start =
        json{{"ok", false},
             {"sticky", true},
             {"error", runner_identity.drop
                           ? "cannot start " + path + " as the unprivileged user (uid " +
                                 std::to_string(runner_identity.uid) +
                                 ") that runners run as when the lab binary is root: the program must be executable "
                                 "by that user (mode 755), or name another user with COURSE_RUNNER_UID and "
                                 "COURSE_RUNNER_GID"
                           : "cannot start " + path}}
            .dump() +
        "\n";
    // The program is also opened here, by the referee's own user: a runner dropped to an unprivileged user starts
    // through this descriptor when the build folder is one only root can enter (a home under /root).
    const int program_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (program_fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {  // only async-signal-safe calls until exec
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      // Each source first above the targets, so that no dup2 below has a source that is already its target (that
      // dup2 would keep close-on-exec, and the runner would start without the descriptor).
      int sources[] = {commands[0], replies[1], descriptors[1], program_fd};
      for (int& fd : sources) fd = ::fcntl(fd, F_DUPFD, 10);
      ::dup2(sources[0], 3);
      ::dup2(sources[1], 4);
      ::dup2(sources[2], 5);
      ::dup2(sources[3], 6);  // dup2 clears close-on-exec: set it again, the runner has no use for it
      ::fcntl(6, F_SETFD, FD_CLOEXEC);
      ::dup2(2, 1);  // the student's printf goes to stderr: the referee's stdout carries nothing of theirs
      const int null_fd = ::open("/dev/null", O_RDONLY);
      if (null_fd >= 0) ::dup2(null_fd, 0);
      ::close_range(7, ~0u, 0);
      exec_as(runner_identity, front_.argv.empty() ? 6 : -1, argv.data(), envp.data());
      [[maybe_unused]] auto written = ::write(4, cannot_start.data(), cannot_start.size());
      ::_exit(127);
    }
    ::close(program_fd);
    ::close(commands[0]);
    ::close(replies[1]);
    ::close(descriptors[1]);
    to_ = commands[1];
    from_ = ::fdopen(replies[0], "r");
    // Unbuffered where the answers are waited for with a limit: poll() sees the pipe, not what stdio has read ahead.
    if (limited()) std::setvbuf(from_, nullptr, _IONBF, 0);
    fds_ = descriptors[0];
    ::shutdown(fds_, SHUT_RD);  // descriptors go one way: nothing a runner sends back can pile up here
  }

  void end() noexcept override {
    if (pid_ > 0) kill_process();  // reaped by stop(), from the destructor
  }

  /// Kills the runner, or the front end and its runner (and whatever else it started).
  void kill_process() noexcept {
    if (front_.argv.empty()) ::kill(pid_, SIGKILL);
    else process_tree::kill_tree(pid_);
  }

  /// Whether the runner starts through a front end with a deadline (FrontEnd::deadline).
  [[nodiscard]] bool limited() const {
    return !front_.argv.empty() && front_.deadline != std::chrono::steady_clock::time_point::max();
  }

  /// At the front end's deadline: ends it with its runner and reaps it (its `ended` is told so).
  void end_at_deadline() {
    past_deadline_ = true;
    kill_process();
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, 0);
    while (r < 0 && errno == EINTR);
    if (r == pid_) ended(status);
  }

  // Turns (runner.hpp). The runner stopped itself once set up, before its implementation's static initializers: its
  // first turn notes its threads and executable mappings then. Every turn continues it, and stops it again after.
  template <class Step>
  void turn(Step&& step) {
    begin_turn();
    try {
      step();
    } catch (...) {
      if (pid_ > 0 && !reaped_) end_turn();  // a launcher that threw: the runner lives on, stopped (or refused)
      throw;
    }
    end_turn();
  }

  void begin_turn() {
    if (!watched_ || pid_ <= 0 || reaped_) return;
    if (!image_) {
      if (!wait_stopped()) return;  // it ended before its setup was done: the command fails, and says why
      image_ = ProcessImage::of(pid_);
    }
    ::kill(pid_, SIGCONT);
  }

  void end_turn() {
    if (!watched_ || pid_ <= 0 || reaped_ || !image_) return;
    ::kill(pid_, SIGSTOP);
    if (!wait_stopped()) return;  // it ended: the next command says why
    const std::string grown = image_->grown_in(ProcessImage::of(pid_));
    if (grown.empty()) return;
    stop();
    throw RunnerFailure("runner '" + name_ + "' " + grown + " after its setup: an implementation may not start "
                        "threads or load code of its own (refused)", true);
  }

  /// Waits until the runner is stopped; false when it ended instead (then reaped, its status kept for death()).
  bool wait_stopped() {
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, WUNTRACED);
    while (r < 0 && errno == EINTR);
    if (r == pid_ && WIFSTOPPED(status)) return true;
    if (r == pid_) ended(status);
    return false;
  }

  /// Keeps the wait status of the ended runner (or front end), and tells the front end's `ended`, once.
  void ended(int status) {
    reaped_ = status;
    if (front_.ended) std::exchange(front_.ended, nullptr)(status, past_deadline_);
  }

  /// Waits up to kFrontEndReportS, and not past its deadline, for a front end to end on its own once the runner's
  /// commands have stopped (the runner ends at the end of its command pipe): the tool then reports and exits with its
  /// verdict. True if it did.
  bool front_end_reported() {
    constexpr int kFrontEndReportS = 30;
    if (front_.argv.empty()) return false;
    const auto until = std::min(std::chrono::steady_clock::now() + std::chrono::seconds(kFrontEndReportS),
                                front_.deadline);
    if (const auto status = process_tree::wait_until(pid_, until)) {
      ended(*status);
      return true;
    }
    past_deadline_ = std::chrono::steady_clock::now() >= front_.deadline;
    return false;
  }

  void stop() noexcept {
    if (to_ >= 0) ::close(to_);
    if (from_) std::fclose(from_);
    if (fds_ >= 0) ::close(fds_);
    to_ = -1;
    from_ = nullptr;
    fds_ = -1;
    if (pid_ > 0 && !reaped_ && !front_end_reported()) {
      kill_process();  // a stopped process dies of it too
      int status = 0;
      pid_t r;
      do r = ::waitpid(pid_, &status, 0);
      while (r < 0 && errno == EINTR);
      if (r == pid_) ended(status);
    }
    pid_ = -1;
    std::error_code error;
    if (!tool_dir_.empty()) fs::remove_all(tool_dir_, error);
    tool_dir_.clear();
  }

  /// Why the runner is gone, once it is.
  std::string death() {
    // A front end whose runner has gone reports before it ends: up to its deadline.
    if (!reaped_ && limited()) {
      if (const auto status = process_tree::wait_until(pid_, front_.deadline)) ended(*status);
      else end_at_deadline();
    }
    int status = reaped_.value_or(0);
    pid_t r = reaped_ ? pid_ : -1;
    if (!reaped_) {
      do r = ::waitpid(pid_, &status, 0);
      while (r < 0 && errno == EINTR);
      if (r == pid_) ended(status);
    }
    pid_ = -1;
    return r > 0 ? protocol::ended_how(status) : "ended";
  }

  json call(const json& command) {
    if (pid_ <= 0) throw RunnerFailure("runner '" + name_ + "' is not running", true);
    if (!write_all(to_, command.dump() + "\n")) throw RunnerFailure("runner '" + name_ + "' " + death(), true);
    if (limited() && !answer_by(front_.deadline)) {
      end_at_deadline();
      throw RunnerFailure("runner '" + name_ + "' had not answered '" + command.at("op").get<std::string>() +
                              "' when compute-sanitizer's limit ran out",
                          true);
    }
    char* line = nullptr;
    std::size_t capacity = 0;
    const ssize_t n = ::getline(&line, &capacity, from_);
    std::string text = n > 0 ? std::string(line, static_cast<std::size_t>(n)) : "";
    std::free(line);
    if (n <= 0) throw RunnerFailure("runner '" + name_ + "' " + death() + " during '" +
                                    command.at("op").get<std::string>() + "'", true);
    const json reply = json::parse(text, nullptr, false);
    if (!reply.is_object() || !reply.contains("ok") || !reply.at("ok").is_boolean())
      throw RunnerFailure("runner '" + name_ + "' answered garbage: " + text.substr(0, 120), true);
    if (!reply.at("ok").get<bool>()) {
      const bool sticky = reply.value("sticky", false);
      const std::string error = reply.value("error", std::string("(no message)"));
      if (sticky) stop();
      throw RunnerFailure(runner_words(name_, error), sticky);
    }
    return reply;
  }

  /// Whether the runner's answer (or its end) comes before `deadline`.
  bool answer_by(std::chrono::steady_clock::time_point deadline) {
    pollfd p{::fileno(from_), POLLIN, 0};
    for (;;) {
      using std::chrono::milliseconds;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
      const int r = ::poll(&p, 1, static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 60'000)));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return true;  // the read that follows says what is wrong
      if (r == 0 && left.count() <= 0) return false;
    }
  }

  fs::path program_;
  std::string name_;
  std::vector<std::string> args_;
  FrontEnd front_;
  std::string tool_dir_;  // the front end's TMPDIR, where the runner's user is not the referee's (tool_directory)
  pid_t pid_ = -1;
  int to_ = -1;
  FILE* from_ = nullptr;
  int fds_ = -1;                // the socket that hands the runner descriptors of shared host memory (its fd 5)
  Problem* problem_ = nullptr;  // the open problem, which the runner's reports of a run are noted on
  json open_;                   // the command that opened it
  // Under a CUDA tool a runner keeps threads of the tool's in it and neither stops itself nor is stopped (runner.hpp).
  bool watched_ = !protocol::cuda_tool_attached();
  std::optional<ProcessImage> image_;  // its threads and executable mappings once set up
  std::optional<int> reaped_;          // its wait status, once a wait for its stop found it ended instead
  bool past_deadline_ = false;         // the referee ended the front end at its deadline
};

/// One implementation of a runner of several: its own name, the runner's process shared with the others'. Opened on
/// the problem the others are opened on (RemoteRunner::open keeps it open), run by name.
class ImplOfRunner final : public Runner {
 public:
  ImplOfRunner(std::shared_ptr<RemoteRunner> runner, std::string name)
      : runner_(std::move(runner)), name_(std::move(name)) {}
  [[nodiscard]] const std::string& name() const override { return name_; }
  [[nodiscard]] std::string program() const override { return runner_->program(); }
  void open(const std::string& exercise, Problem& problem) override { runner_->open(exercise, problem); }
  Sample run() override { return runner_->run_as(name_); }
  void close() override { runner_->close(); }
  void end() noexcept override { static_cast<Runner&>(*runner_).end(); }

 private:
  std::shared_ptr<RemoteRunner> runner_;
  std::string name_;
};

/// "mutant:zeros" -> "zeros"; empty for an ordinary implementation.
std::string mutation_of(const std::string& name) {
  return name.rfind(kMutantPrefix, 0) == 0 ? name.substr(std::string_view(kMutantPrefix).size()) : std::string();
}

}  // namespace

fs::path runner_directory() { return self_directory() / "runners"; }

std::vector<std::string> runner_names() {
  std::vector<std::string> names;
  std::error_code error;
  const auto prefix = runner_prefix();
  for (const auto& entry : fs::directory_iterator(runner_directory(), error)) {
    const auto file = entry.path().filename().string();
    // A runner of several implementations (labN-reference+baseline) is none of its own.
    if (file.rfind(prefix, 0) == 0 && file.find('+') == std::string::npos && entry.is_regular_file())
      names.push_back(file.substr(prefix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> runner_exercises(const std::string& name) {
  if (!mutation_of(name).empty()) return runner_exercises("reference");
  const auto program = runner_directory() / (runner_prefix() + name);
  if (!fs::is_regular_file(program)) throw MissingLauncher("unknown implementation '" + name + "' (see `list`)");
  const std::string text = list_output(program);
  const json j = json::parse(text, nullptr, false);
  if (!j.is_array()) throw RunnerFailure("runner '" + name + "' --list printed no JSON array", true);
  return j.get<std::vector<std::string>>();
}

std::unique_ptr<Runner> make_runner(const std::string& name, FrontEnd front_end) {
  if (const auto mutation = mutation_of(name); !mutation.empty()) {
    // The reference's runner, told to spoil each output after every run (runner/mutations.hpp).
    const auto program = runner_directory() / (runner_prefix() + "reference");
    if (!fs::is_regular_file(program)) throw MissingLauncher("a mutant needs the reference's runner: " + program.string());
    return std::make_unique<RemoteRunner>(program, name, std::vector<std::string>{"--mutate", mutation},
                                          std::move(front_end));
  }
  const auto program = runner_directory() / (runner_prefix() + name);
  if (!fs::is_regular_file(program)) throw MissingLauncher("unknown implementation '" + name + "' (see `list`)");
  return std::make_unique<RemoteRunner>(program, name, std::vector<std::string>{}, std::move(front_end));
}

std::map<std::string, std::unique_ptr<Runner>> make_runners(const std::map<std::string, std::string>& impl_of) {
  std::map<std::string, std::unique_ptr<Runner>> runners;
  const auto is = [&](const char* role) {
    const auto it = impl_of.find(role);
    return it != impl_of.end() && it->second == role;
  };
  const auto course = runner_directory() / (runner_prefix() + "reference+baseline");
  if (is("reference") && is("baseline") && fs::is_regular_file(course)) {
    auto shared = std::make_shared<RemoteRunner>(course, "reference+baseline");
    for (const char* role : {"reference", "baseline"}) runners[role] = std::make_unique<ImplOfRunner>(shared, role);
  }
  for (const auto& [role, impl] : impl_of)
    if (!runners.contains(role)) runners[role] = make_runner(impl);
  return runners;
}

}  // namespace harness
