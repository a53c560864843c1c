// The child-process runner: exit codes, signals, timeouts that kill the whole process group, bounded capture.

#include <signal.h>

#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

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
