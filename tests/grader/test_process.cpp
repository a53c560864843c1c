// The child-process runner: exit codes, signals, timeouts that kill the whole process group, bounded capture, and
// what keeps a child in: its descendants killed, its results on a pipe, a clean environment, a directory, limits.

#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/host_lock.hpp"
#include "grader/process.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using grader::ProcessOptions;
using grader::run_process;

namespace {

using grader_test::dead;
using grader_test::read_pid;

ProcessOptions shell(const std::string& script, double timeout_s = 10) {
  ProcessOptions options;
  options.argv = {"/bin/sh", "-c", script};
  options.timeout_s = timeout_s;
  return options;
}

}  // namespace

TEST_CASE("a child's exit code and both output streams are returned", "[grader][process]") {
  const auto r = run_process(shell("echo out; echo err >&2; exit 7"));
  CHECK(r.started);
  CHECK(r.exit_code == 7);
  CHECK(r.signal == 0);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(r.wall_s < 5);
}

TEST_CASE("a child killed by a signal reports the signal by name", "[grader][process]") {
  const auto r = run_process(shell("kill -SEGV $$"));
  CHECK(r.started);
  CHECK(r.exit_code == -1);
  CHECK(r.signal == SIGSEGV);
  CHECK(grader::signal_name(r.signal) == "SIGSEGV");
  CHECK(grader::signal_name(SIGABRT) == "SIGABRT");
  CHECK(grader::signal_name(64) == "signal 64");
}

TEST_CASE("a timeout kills the whole process group, grandchildren included", "[grader][process]") {
  const grader_test::TempDir dir;
  const auto pid_file = dir.path / "pid";

  SECTION("SIGTERM is enough") {
    auto options = shell("sleep 60 & echo $! > " + pid_file.string() + "; wait", 0.5);
    const auto r = run_process(options);
    CHECK(r.timed_out);
    CHECK(r.signal == SIGTERM);
    CHECK(r.wall_s >= 0.5);
    CHECK(r.wall_s < 5);
    const int grandchild = read_pid(pid_file);
    REQUIRE(grandchild > 0);
    CHECK(dead(grandchild));
  }
  SECTION("SIGKILL follows when SIGTERM is ignored") {
    auto options = shell("trap '' TERM; sleep 60 & echo $! > " + pid_file.string() + "; wait; wait", 0.3);
    options.kill_grace_s = 0.3;
    const auto r = run_process(options);
    CHECK(r.timed_out);
    CHECK(r.signal == SIGKILL);
    CHECK(r.wall_s >= 0.6);
    CHECK(r.wall_s < 5);
    const int grandchild = read_pid(pid_file);
    REQUIRE(grandchild > 0);
    CHECK(dead(grandchild));
  }
}

TEST_CASE("a grandchild left behind is killed and does not hold the grader", "[grader][process]") {
  const grader_test::TempDir dir;
  const auto pid_file = dir.path / "pid";
  // The grandchild inherits stdout: waiting for end of file alone would wait for it.
  const auto r = run_process(shell("sleep 60 & echo $! > " + pid_file.string() + "; echo done", 30));
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out == "done\n");
  CHECK(r.wall_s < 5);
  const int grandchild = read_pid(pid_file);
  REQUIRE(grandchild > 0);
  CHECK(dead(grandchild));
}

TEST_CASE("large output is bounded to its last bytes", "[grader][process]") {
  auto options = shell("head -c 1000000 /dev/zero | tr '\\0' a; printf END; head -c 300000 /dev/zero >&2");
  options.capture_limit = 65536;
  const auto r = run_process(options);
  CHECK(r.exit_code == 0);
  CHECK(r.out.size() == 65536);
  CHECK(r.out_truncated);
  CHECK(r.out.substr(r.out.size() - 4) == "aEND");
  CHECK(r.err.size() == 65536);
  CHECK(r.err_truncated);

  const auto small = run_process(shell("printf hello"));
  CHECK(small.out == "hello");
  CHECK_FALSE(small.out_truncated);
}

TEST_CASE("a program that cannot be executed is reported, not thrown", "[grader][process]") {
  ProcessOptions options;
  options.argv = {"/nonexistent/lab9", "info"};
  const auto r = run_process(options);
  CHECK_FALSE(r.started);
  CHECK_THAT(r.error, ContainsSubstring("cannot execute /nonexistent/lab9"));
  CHECK(run_process(ProcessOptions{}).started == false);
}

TEST_CASE("environment variables are passed to the child", "[grader][process]") {
  auto options = shell("printf '%s|%s' \"$GRADER_TEST_A\" \"$HOME\"");
  options.env = {{"GRADER_TEST_A", "alpha"}, {"HOME", "/elsewhere"}};
  CHECK(run_process(options).out == "alpha|/elsewhere");
}

TEST_CASE("the last line of a stream is found for one-line messages", "[grader][process]") {
  CHECK(grader::last_line("first\nsecond\n\n  \n") == "second");
  CHECK(grader::last_line("  only  ") == "only");
  CHECK(grader::last_line("") == "");
  CHECK(grader::last_line("\n\n") == "");
  CHECK(grader::last_line("abcdef", 3) == "abc...");
}

// Containment: nothing the child started outlives run_process(), whatever it did to get away.

TEST_CASE("a setsid'd grandchild is killed and reaped before run_process returns", "[grader][process]") {
  const grader_test::TempDir dir;
  const auto pid_file = dir.path / "pid", marker = dir.path / "marker";
  // In a session of its own, so killing the child's process group misses it. The child waits for its pid.
  const auto r = run_process(shell("setsid sh -c 'echo $$ > " + pid_file.string() + "; sleep 1.5; touch " +
                                   marker.string() + "' & while [ ! -s " + pid_file.string() +
                                   " ]; do sleep 0.01; done; echo done"));
  CHECK(r.exit_code == 0);
  CHECK(r.survivors == 0);
  const int grandchild = read_pid(pid_file);
  REQUIRE(grandchild > 0);
  CHECK_FALSE(grader_test::alive_now(grandchild));  // already, not eventually
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("a chain of processes that fork and exit at once is stopped", "[grader][process]") {
  const grader_test::TempDir dir;
  const auto pid_file = dir.path / "pid";
  ProcessOptions options;
  options.argv = {FAKE_BIN_DIR "/lab1", "check", "--impl", "student", "--exercise", "copy", "--results", "/dev/null"};
  // For 10 s unless it is stopped, each process writing its pid over the last one's.
  options.env = {{"FAKE_LAB_MODE", "fork_chain"}, {"FAKE_LAB_PID_FILE", pid_file.string()}};
  const auto r = run_process(options);
  CHECK(r.exit_code == 0);
  CHECK(r.survivors == 0);
  CHECK(grader_test::children_of_this_process().empty());
  const auto last = grader_test::read_text(pid_file);
  REQUIRE_FALSE(last.empty());
  CHECK_FALSE(grader_test::alive_now(std::stoi(last)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(grader_test::read_text(pid_file) == last);  // the chain moves no more
}

TEST_CASE("the results pipe is fd 3 and holds only what came before the child's end", "[grader][process]") {
  // The late writer left the group: only the clean-up after the child's exit keeps it from adding to the results.
  auto options = shell("echo early >&3; setsid sh -c 'sleep 0.5; echo late >&3' & echo out");
  options.results_pipe = true;
  const auto r = run_process(options);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "out\n");
  CHECK(r.results == "early\n");
  CHECK_FALSE(r.results_truncated);

  options = shell("head -c 200000 /dev/zero >&3");
  options.results_pipe = true;
  options.capture_limit = 65536;
  const auto big = run_process(options);
  CHECK(big.results.size() == 65536);
  CHECK(big.results_truncated);
}

TEST_CASE("only stdin, stdout, stderr and the results pipe reach the child", "[grader][process]") {
  // Not close-on-exec, as a careless library might leave them: the lowest free number (3, where the results pipe
  // goes) and a high one.
  const int low = ::open("/dev/null", O_RDONLY);
  const int high = ::fcntl(low, F_DUPFD, 40);
  REQUIRE(high >= 40);
  // The shell's own descriptors, without a pipeline (whose pipes the shell would hold too).
  auto options = shell("ls /proc/$$/fd");
  const auto open_fds = [&] {
    std::set<int> fds;
    std::istringstream out(run_process(options).out);
    for (int fd; out >> fd;) fds.insert(fd);
    return fds;
  };
  CHECK(open_fds() == std::set<int>{0, 1, 2});
  options.results_pipe = true;
  CHECK(open_fds() == std::set<int>{0, 1, 2, 3});
  const grader_test::TempDir dir;
  options.turn_lock = dir.path / "turns.lock";  // the turns' socket is fd 4, with or without the results pipe
  CHECK(open_fds() == std::set<int>{0, 1, 2, 3, 4});
  options.results_pipe = false;
  CHECK(open_fds() == std::set<int>{0, 1, 2, 4});
  ::close(low);
  ::close(high);
}

TEST_CASE("the child inherits only the variables allowed, plus those set", "[grader][process]") {
  ::setenv("GRADER_TEST_SECRET", "hunter2", 1);
  ::setenv("LC_GRADER_TEST", "yes", 1);
  auto options = shell("env");
  options.inherit_env = std::vector<std::string>{"PATH", "LC_*"};
  options.env = {{"ADDED", "1"}};
  const auto r = run_process(options);
  ::unsetenv("GRADER_TEST_SECRET");
  ::unsetenv("LC_GRADER_TEST");
  CHECK_THAT(r.out, ContainsSubstring("PATH="));
  CHECK_THAT(r.out, ContainsSubstring("LC_GRADER_TEST=yes\n"));
  CHECK_THAT(r.out, ContainsSubstring("ADDED=1\n"));
  CHECK_THAT(r.out, !ContainsSubstring("GRADER_TEST_SECRET"));
  CHECK_THAT(r.out, !ContainsSubstring("HOME="));
}

TEST_CASE("a private directory is the child's cwd and TMPDIR, and is removed after it", "[grader][process]") {
  const grader_test::TempDir dir;
  auto options = shell("pwd; echo \"$TMPDIR\"; mkdir sub && touch sub/file");
  options.private_dir_in = dir.path / "runs";
  const auto r = run_process(options);
  CHECK(r.exit_code == 0);
  const auto newline = r.out.find('\n');
  const std::filesystem::path cwd = r.out.substr(0, newline);
  CHECK(r.out.substr(newline + 1) == cwd.string() + "\n");
  CHECK(cwd.parent_path() == dir.path / "runs");
  CHECK_FALSE(std::filesystem::exists(cwd));
}

TEST_CASE("resource limits: no core files, a file size limit, few files, no address-space limit",
          "[grader][process]") {
  const grader_test::TempDir dir;
  const grader_test::CoreFilesAllowed cores;
  auto options = shell("ulimit -c; ulimit -n; ulimit -v; exec head -c 2000000 /dev/zero > " +
                       (dir.path / "big").string());
  options.limits = grader::ProcessLimits{1 << 20, 64};
  const auto r = run_process(options);
  CHECK(r.out == "0\n64\nunlimited\n");
  CHECK(r.signal == SIGXFSZ);
  CHECK(std::filesystem::file_size(dir.path / "big") == 1 << 20);
}

TEST_CASE("after running a child the caller is a subreaper and not dumpable", "[grader][process]") {
  const auto r = run_process(shell("cat /proc/$PPID/environ > /dev/null"));
  int subreaper = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &subreaper);
  CHECK(subreaper == 1);
  CHECK(::prctl(PR_GET_DUMPABLE) == 0);
  // Root may read any process's environment; an ordinary user's child may not read a non-dumpable parent's.
  if (::geteuid() != 0) CHECK(r.exit_code != 0);
}

TEST_CASE("run_processes runs its children at once and returns each one's result in order", "[grader][process]") {
  const grader_test::TempDir dir;
  // Each child enters the room and waits (5 s at most) until all three are in: one at a time, none would get out.
  const auto room = dir.path.string();
  std::vector<ProcessOptions> all;
  for (int i = 0; i < 3; ++i)
    all.push_back(shell(std::string(i == 2 ? "echo result >/dev/fd/3; " : "") + "touch " + room + "/" + std::to_string(i) + "; n=0; while [ $(ls " + room +
                        " | wc -l) -lt 3 ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done; " +
                        "[ $n -lt 500 ] || exit 9; echo child " + std::to_string(i) + "; echo err >&2; exit " +
                        std::to_string(i)));
  all.back().results_pipe = true;
  const auto results = grader::run_processes(all);
  REQUIRE(results.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i, results[i].error);
    CHECK(results[i].started);
    CHECK(results[i].exit_code == i);
    CHECK(results[i].out == "child " + std::to_string(i) + "\n");
    CHECK(results[i].err == "err\n");
    CHECK(results[i].wall_s > 0);
  }
  CHECK(results[2].results == "result\n");
}

TEST_CASE("run_processes with a limit runs at most that many children at a time, and all of them",
          "[grader][process]") {
  const grader_test::TempDir dir;
  const auto room = (dir.path / "room").string();
  std::filesystem::create_directories(room);
  // Each child enters the room, writes how many it finds there, stays 0.3 s and leaves.
  std::vector<ProcessOptions> all;
  for (int i = 0; i < 5; ++i)
    all.push_back(shell("touch " + room + "/" + std::to_string(i) + "; ls " + room + " | wc -l; sleep 0.3; rm " +
                        room + "/" + std::to_string(i) + "; exit " + std::to_string(i)));
  const auto results = grader::run_processes(all, 2);
  REQUIRE(results.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i, results[i].out, results[i].error);
    CHECK(results[i].exit_code == i);
    CHECK(std::stoi(results[i].out) <= 2);
  }
}

TEST_CASE("run_processes: one child's clean-up kills its own leftovers, not another child", "[grader][process]") {
  const grader_test::TempDir dir;
  const auto pid_file = dir.path / "pid", marker = dir.path / "marker";
  // The first child ends at once and leaves a setsid'd grandchild; the second runs on past the first's clean-up.
  const std::vector<ProcessOptions> all = {
      shell("setsid sh -c 'echo $$ > " + pid_file.string() + "; sleep 1.5; touch " + marker.string() +
            "' & while [ ! -s " + pid_file.string() + " ]; do sleep 0.01; done; exit 0"),
      shell("sleep 1; echo still here")};
  const auto results = grader::run_processes(all);
  REQUIRE(results.size() == 2);
  CHECK(results[0].exit_code == 0);
  CHECK(results[0].survivors == 0);
  CHECK(results[1].exit_code == 0);
  CHECK(results[1].signal == 0);
  CHECK(results[1].out == "still here\n");
  const int grandchild = read_pid(pid_file);
  REQUIRE(grandchild > 0);
  CHECK_FALSE(grader_test::alive_now(grandchild));
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("run_processes: a program that cannot start and a timeout are reported per child", "[grader][process]") {
  ProcessOptions missing;
  missing.argv = {"/nonexistent/program"};
  const auto results = grader::run_processes({missing, shell("sleep 30", 0.5), shell("exit 0")});
  REQUIRE(results.size() == 3);
  CHECK_FALSE(results[0].started);
  CHECK_THAT(results[0].error, ContainsSubstring("/nonexistent/program"));
  CHECK(results[1].timed_out);
  CHECK(results[2].exit_code == 0);
  CHECK(grader::run_processes({}).empty());
}

// Turns on a lock (ProcessOptions::turn_lock, harness/host_link.hpp): a shell child asks with `printf T >&4`, reads
// the grant with `head -c1 <&4` and gives the turn back with `printf R >&4`; `flock -n` (util-linux) tells whether
// the lock is taken. This process holds the lock first, as another worker's turn would.
namespace {

int hold_lock(const std::filesystem::path& lock) {
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  return fd;
}

}  // namespace

TEST_CASE("a child's wait for its turn stops its clock, and the turn is its own until it gives it back",
          "[grader][process][turns]") {
  const grader_test::TempDir dir;
  const auto lock = dir.path / "turns.lock";
  const int other = hold_lock(lock);
  std::thread other_turn([other] {  // another worker's turn, 3 s: longer than the child's limit
    std::this_thread::sleep_for(std::chrono::seconds(3));
    ::close(other);
  });
  const std::string taken = "flock -n " + lock.string() + " true && echo free || echo taken";
  auto options = shell("printf T >&4; head -c1 <&4; echo; " + taken + "; printf R >&4; sleep 0.3; " + taken, 2);
  options.turn_lock = lock;
  const auto r = run_process(options);
  other_turn.join();
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "G\ntaken\nfree\n");  // granted after the other turn, held for it, let go when it said so
  CHECK(r.turns == 1);
  CHECK(r.turn_wait_s > 2.5);
  CHECK(r.wall_s > r.turn_wait_s);
}

TEST_CASE("waiting for turns past its limit counts against the clock, and a child's turn ends with it",
          "[grader][process][turns]") {
  const grader_test::TempDir dir;
  const auto lock = dir.path / "turns.lock";
  const int other = hold_lock(lock);
  auto options = shell("printf T >&4; head -c1 <&4; echo never", 0.5);
  options.turn_lock = lock;
  options.turn_wait_limit_s = 0.5;
  options.kill_grace_s = 0.2;
  const auto r = run_process(options);
  ::close(other);
  CHECK(r.timed_out);
  CHECK(r.wall_s < 3);
  CHECK(r.turns == 0);
  CHECK(r.out.empty());

  // A child that ends holding its turn: the lock is free once run_process returns.
  options = shell("printf T >&4; head -c1 <&4", 5);
  options.turn_lock = lock;
  const auto ended = run_process(options);
  CHECK(ended.out == "G");
  CHECK(ended.turns == 1);
  const int after = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(after >= 0);
  CHECK(::flock(after, LOCK_EX | LOCK_NB) == 0);
  ::close(after);
}

TEST_CASE("a child that asks for its turn in bytes the grader does not know loses its turns, not its run",
          "[grader][process][turns]") {
  const grader_test::TempDir dir;
  auto options = shell("printf X >&4; head -c1 <&4; echo ended", 5);
  options.turn_lock = dir.path / "turns.lock";
  const auto r = run_process(options);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out == "ended\n");  // the grader closed the socket: the read found its end
  CHECK(r.turns == 0);
}

// Shared holds (grader/host_lock.hpp, ProcessOptions::turn_shared_fd): grade_labs() gives one to each check run of a
// worker, so that a lab's timed part, asked for as a turn by the referee of its checks, waits for every other lab's
// checks. Two children ask for their turn at once; a third, holding too, never asks and runs 1 s, as a longer check.
TEST_CASE("a turn waits until every run started with a shared hold has asked for its own or ended, and turns go "
          "one at a time",
          "[grader][process][turns]") {
  const grader_test::TempDir dir;
  const grader::SharedHolds holds(dir.path, 3);
  REQUIRE(holds.complete());
  const auto seconds = [](const std::string& line) { return std::stod(line); };
  std::vector<grader::ProcessOptions> runs;
  for (int i = 0; i < 2; ++i) {
    runs.push_back(shell("printf T >&4; head -c1 <&4 >/dev/null; date +%s.%N; sleep 0.3; date +%s.%N", 10));
    runs.back().turn_lock = holds.file();
    runs.back().turn_shared_fd = holds.fd(static_cast<std::size_t>(i));
  }
  runs.push_back(shell("sleep 1; date +%s.%N", 10));
  runs.back().turn_shared_fd = holds.fd(2);
  const auto r = grader::run_processes(runs);
  std::vector<std::pair<double, double>> turns;
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i, r[i].out, r[i].err);
    REQUIRE(r[i].exit_code == 0);
    const auto newline = r[i].out.find('\n');
    turns.emplace_back(seconds(r[i].out.substr(0, newline)), seconds(r[i].out.substr(newline + 1)));
    CHECK(r[i].turns == 1);
  }
  REQUIRE(r[2].exit_code == 0);
  const double third_ended = seconds(r[2].out);
  std::sort(turns.begin(), turns.end());
  CHECK(turns[0].first >= third_ended);        // no turn while a hold is kept
  CHECK(turns[1].first >= turns[0].second);   // one turn at a time
  CHECK(r[0].turn_wait_s + r[1].turn_wait_s > 0.8);
  // Every hold is let go by then: the lock is free.
  const int after = ::open(holds.file().c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(after >= 0);
  CHECK(::flock(after, LOCK_EX | LOCK_NB) == 0);
  ::close(after);
}
