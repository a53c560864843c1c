// The runner's sandbox (harness/runner.hpp, install_runner_sandbox), tried in a forked child: what it must refuse,
// and what a runner still needs (threads, signals to itself, /dev/null, $TMPDIR).
#include <harness/sandbox.hpp>

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;

// Each thing the child tries, a bit of its exit status when it went the wrong way.
enum Bit : int {
  kNotInstalled = 1 << 0,
  kForked = 1 << 1,
  kExecuted = 1 << 2,
  kSignalledParent = 1 << 3,
  kNoSignalToSelf = 1 << 4,
  kNoThread = 1 << 5,
  kTraced = 1 << 6,
  kWroteOutside = 1 << 7,
  kNoDevNull = 1 << 8,
  kNoTmpdir = 1 << 9,
};

struct Outcome {
  int wrong = 0;
  bool landlock = false;
};

// Runs the sandbox in a child with TMPDIR=`tmpdir` and tries everything; `outside` is a folder it must not write.
Outcome try_in_child(const fs::path& tmpdir, const fs::path& outside) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    ::setenv("TMPDIR", tmpdir.c_str(), 1);
    const harness::SandboxState state = harness::install_runner_sandbox();
    const char landlock = state.landlock_abi > 0 ? 1 : 0;
    [[maybe_unused]] auto n = ::write(pipe_fds[1], &landlock, 1);
    int wrong = state.seccomp ? 0 : kNotInstalled;
    const pid_t grandchild = ::fork();
    if (grandchild == 0) ::_exit(0);
    if (grandchild > 0) {
      wrong |= kForked;
      ::waitpid(grandchild, nullptr, 0);
    }
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    ::execve("/bin/true", argv, environ);  // returns only when refused
    if (errno != EPERM) wrong |= kExecuted;
    if (::kill(parent, 0) == 0 || errno != EPERM) wrong |= kSignalledParent;
    if (::kill(::getpid(), 0) != 0) wrong |= kNoSignalToSelf;
    std::atomic<bool> ran{false};
    try {
      std::thread([&] { ran = true; }).join();
    } catch (...) {
    }
    if (!ran) wrong |= kNoThread;
    if (::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0) wrong |= kTraced;
    if (landlock) {
      const int fd = ::open((outside / "written").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd >= 0) wrong |= kWroteOutside;
      const int mine = ::open((tmpdir / "mine").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (mine < 0) wrong |= kNoTmpdir;
    }
    const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0 || ::write(null_fd, "x", 1) != 1) wrong |= kNoDevNull;
    ::_exit(wrong);
  }
  ::close(pipe_fds[1]);
  Outcome outcome;
  char landlock = 0;
  if (::read(pipe_fds[0], &landlock, 1) == 1) outcome.landlock = landlock != 0;
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  outcome.wrong = WEXITSTATUS(status);
  return outcome;
}

}  // namespace

// Runs the child in a fresh folder of its own; the folder is removed after.
Outcome sandboxed_child(const fs::path& root) {
  fs::create_directories(root / "tmp");
  fs::create_directories(root / "outside");
  return try_in_child(root / "tmp", root / "outside");
}

TEST_CASE("the runner's sandbox refuses processes, exec, tracing and signals to others, and keeps threads",
          "[harness][sandbox]") {
  const fs::path root = fs::temp_directory_path() / ("sandbox-test-" + std::to_string(::getpid()));
  const Outcome outcome = sandboxed_child(root);
  fs::remove_all(root);
  CAPTURE(outcome.wrong);
  CHECK((outcome.wrong & kNotInstalled) == 0);
  CHECK((outcome.wrong & kForked) == 0);
  CHECK((outcome.wrong & kExecuted) == 0);
  CHECK((outcome.wrong & kSignalledParent) == 0);
  CHECK((outcome.wrong & kNoSignalToSelf) == 0);
  CHECK((outcome.wrong & kNoThread) == 0);
  CHECK((outcome.wrong & kTraced) == 0);
  CHECK((outcome.wrong & kNoDevNull) == 0);
}

TEST_CASE("the runner's sandbox refuses writes outside /dev and $TMPDIR where the kernel has Landlock",
          "[harness][sandbox]") {
  const fs::path root = fs::temp_directory_path() / ("sandbox-landlock-" + std::to_string(::getpid()));
  const Outcome outcome = sandboxed_child(root);
  const bool outside_written = fs::exists(root / "outside" / "written");
  const bool tmpdir_written = fs::exists(root / "tmp" / "mine");
  fs::remove_all(root);
  if (!outcome.landlock) SKIP("this kernel has no Landlock: the write restriction is not in force here");
  CAPTURE(outcome.wrong);
  CHECK((outcome.wrong & kWroteOutside) == 0);
  CHECK((outcome.wrong & kNoTmpdir) == 0);
  CHECK_FALSE(outside_written);
  CHECK(tmpdir_written);
}
