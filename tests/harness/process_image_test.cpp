// The referee's look at a runner between its turns (harness/process_image.hpp): a thread or executable mapping that
// appeared since the runner's setup is named; nothing that was already there, or went away, is.
#include <harness/process_image.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

using Catch::Matchers::ContainsSubstring;

namespace {

// A child that stops itself (as a runner does once set up), then, continued, does `step` and stops again.
template <class Step>
pid_t child_that(Step step) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::raise(SIGSTOP);
    step();
    ::raise(SIGSTOP);
    ::_exit(0);
  }
  return pid;
}

void wait_stopped(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, WUNTRACED) == pid);
  REQUIRE(WIFSTOPPED(status));
}

std::string grown_after(pid_t pid) {
  wait_stopped(pid);
  const auto before = harness::ProcessImage::of(pid);
  REQUIRE(before.readable);
  ::kill(pid, SIGCONT);
  wait_stopped(pid);
  const auto grown = before.grown_in(harness::ProcessImage::of(pid));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return grown;
}

}  // namespace

TEST_CASE("a thread started between two looks is named", "[harness][boundary]") {
  const auto grown = grown_after(child_that([] {
    std::thread([] { ::pause(); }).detach();  // still there at the second look
    ::usleep(10000);
  }));
  CHECK_THAT(grown, ContainsSubstring("started 1 thread"));
}

TEST_CASE("executable memory mapped between two looks is named", "[harness][boundary]") {
  const auto grown = grown_after(child_that([] {
    [[maybe_unused]] void* code = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }));
  CHECK_THAT(grown, ContainsSubstring("mapped new code"));
}

TEST_CASE("a process that only computes between two looks has grown nothing", "[harness][boundary]") {
  CHECK(grown_after(child_that([] {
          volatile double x = 0;
          for (int i = 0; i < 1000; ++i) x = x + i;
          [[maybe_unused]] void* data = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        }))
            .empty());
}
