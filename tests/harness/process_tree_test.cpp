// A process and what it started (harness/process_tree.hpp): how the referee ends a tool's front end with its runner.
#include <harness/process_tree.hpp>

#include <catch2/catch_test_macros.hpp>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

// A child that starts a grandchild (as a front end starts its runner) and both wait for a signal; the grandchild's
// number comes back through `grandchild`.
pid_t start_front_end(pid_t& grandchild) {
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const pid_t runner = ::fork();
    if (runner == 0)
      for (;;) ::pause();
    [[maybe_unused]] const auto n = ::write(report[1], &runner, sizeof runner);
    for (;;) ::pause();
  }
  ::close(report[1]);
  REQUIRE(::read(report[0], &grandchild, sizeof grandchild) == sizeof grandchild);
  ::close(report[0]);
  return child;
}

// Whether `pid` is gone or only waits to be reaped (a zombie, dead all the same).
bool dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

}  // namespace

TEST_CASE("a process tree is found through /proc and killed whole, what the root started included",
          "[harness][runner]") {
  pid_t grandchild = 0;
  const pid_t child = start_front_end(grandchild);
  const auto children = harness::process_tree::children_of(::getpid());
  CHECK(std::find(children.begin(), children.end(), child) != children.end());
  const auto below = harness::process_tree::descendants_of(child);
  CHECK(below == std::vector<pid_t>{grandchild});

  // Not ended yet: the wait gives up at its deadline.
  CHECK_FALSE(harness::process_tree::wait_until(child, Clock::now() + std::chrono::milliseconds(50)));
  harness::process_tree::kill_tree(child);
  const auto status = harness::process_tree::wait_until(child, Clock::now() + std::chrono::seconds(10));
  REQUIRE(status);
  CHECK(WIFSIGNALED(*status));
  CHECK(WTERMSIG(*status) == SIGKILL);
  // The grandchild went with it (its end, once its new parent has it, can take a moment).
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  while (!dead(grandchild) && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(dead(grandchild));
}

TEST_CASE("a subreaper ends every child it has, those it adopted from a child that left them included",
          "[harness][runner]") {
  // In a process of its own: a subreaper for good, as the referee of `labN time --check-seeds` is. Its child starts a
  // grandchild in a session of its own and exits, as a runner without its sandbox could leave one behind; the
  // grandchild comes to the subreaper, which must end it before its timed runs. Exit 0: the grandchild is gone.
  const pid_t helper = ::fork();
  REQUIRE(helper >= 0);
  if (helper == 0) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    int report[2];
    if (::pipe(report) != 0) std::_Exit(2);
    const pid_t runner = ::fork();
    if (runner == 0) {
      const pid_t left = ::fork();
      if (left == 0) {
        ::setsid();
        for (;;) ::pause();
      }
      [[maybe_unused]] const auto n = ::write(report[1], &left, sizeof left);
      std::_Exit(0);
    }
    pid_t left = 0;
    if (::read(report[0], &left, sizeof left) != sizeof left) std::_Exit(3);
    ::waitpid(runner, nullptr, 0);
    const auto give_up = Clock::now() + std::chrono::seconds(10);  // adopted once its parent has ended
    for (;;) {
      const auto mine = harness::process_tree::children_of(::getpid());
      if (std::find(mine.begin(), mine.end(), left) != mine.end()) break;
      if (Clock::now() >= give_up) std::_Exit(4);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const std::size_t left_over = harness::process_tree::end_children(std::chrono::seconds(10));
    const bool gone = left_over == 0 && ::kill(left, 0) != 0;  // reaped: no such process
    if (!gone) ::kill(left, SIGKILL);  // a failure must not leave it holding the test's output open
    std::_Exit(gone ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(helper, &status, 0) == helper);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
