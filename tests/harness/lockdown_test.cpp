// The runner's second sandbox stage (harness/sandbox.hpp, lock_down), tried in a forked child the way a hostile
// submission would: dlopen, pthread_create and open found by walking the link map (link_map_walk.hpp: no name the
// static check can see), and code mapped from memory. Each works before the lock-down, which shows the walker finds
// the real functions; each is refused after it.
#include <harness/sandbox.hpp>

#include "link_map_walk.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace {

using OpenFn = int (*)(const char*, int, ...);
using ThreadFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using JoinFn = int (*)(pthread_t, void**);
using LoadFn = void* (*)(const char*, int);

// Each thing the child tries, a bit of its exit status when it went the wrong way.
enum Bit : int {
  kNotFound = 1 << 0,       // the walker did not find the functions
  kBeforeFailed = 1 << 1,   // before the lock-down, a call that must work did not
  kNotLocked = 1 << 2,      // lock_down put fewer parts in force than asked
  kOpened = 1 << 3,         // a file opened after it
  kThreadStarted = 1 << 4,  // a thread started after it
  kLoaded = 1 << 5,         // a library loaded after it
  kMappedCode = 1 << 6,     // executable memory mapped after it
  kMadeCode = 1 << 7,       // writable memory made executable after it
  kPersonality = 1 << 8,    // READ_IMPLIES_EXEC set after it
  kUring = 1 << 9,          // an io_uring made after it (its requests open files without open)
};

void* nothing(void*) { return nullptr; }

int lock_down_and_try(unsigned parts) {
  const auto open_fn = reinterpret_cast<OpenFn>(link_map_walk::find(reinterpret_cast<void*>(&nothing), "open"));
  const auto thread_fn =
      reinterpret_cast<ThreadFn>(link_map_walk::find(reinterpret_cast<void*>(&nothing), "pthread_create"));
  const auto join_fn = reinterpret_cast<JoinFn>(link_map_walk::find(reinterpret_cast<void*>(&nothing), "pthread_join"));
  const auto load_fn = reinterpret_cast<LoadFn>(link_map_walk::find(reinterpret_cast<void*>(&nothing), "dlopen"));
  if (!open_fn || !thread_fn || !join_fn || !load_fn) return kNotFound;
  int wrong = 0;
  // Before: the functions found are the real ones.
  const int fd = open_fn("/dev/null", O_RDONLY | O_CLOEXEC);
  pthread_t t;
  const bool started = thread_fn(&t, nullptr, nothing, nullptr) == 0;
  if (started) join_fn(t, nullptr);
  if (fd < 0 || !started || !load_fn("libresolv.so.2", RTLD_NOW)) wrong |= kBeforeFailed;
  if (fd >= 0) ::close(fd);

  const harness::LockdownState state = harness::lock_down(parts);
  if (state.parts != parts) wrong |= kNotLocked;
  if (const int after = open_fn("/dev/null", O_RDONLY | O_CLOEXEC); after >= 0) {
    wrong |= kOpened;
    ::close(after);
  }
  if (thread_fn(&t, nullptr, nothing, nullptr) == 0) {
    wrong |= kThreadStarted;
    join_fn(t, nullptr);
  }
  if (load_fn("libutil.so.1", RTLD_NOW)) wrong |= kLoaded;  // a library not loaded yet: it must be opened
  if (void* code = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      code != MAP_FAILED)
    wrong |= kMappedCode;
  if (void* data = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      data != MAP_FAILED && ::mprotect(data, 4096, PROT_READ | PROT_EXEC) == 0)
    wrong |= kMadeCode;
  if (::personality(READ_IMPLIES_EXEC) != -1 && (::personality(0xffffffff) & READ_IMPLIES_EXEC)) wrong |= kPersonality;
  if (::syscall(SYS_io_uring_setup, 4, nullptr) != -1 || errno != EPERM) wrong |= kUring;
  return wrong;
}

int in_child(unsigned parts) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(lock_down_and_try(parts));
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("after the lock-down, functions found by walking the link map start no thread, open no file, load no "
          "library, and no memory becomes code",
          "[harness][sandbox]") {
  const int wrong = in_child(harness::kLockAll);
  CAPTURE(wrong);
  REQUIRE((wrong & kNotFound) == 0);
  CHECK((wrong & kBeforeFailed) == 0);
  CHECK((wrong & kNotLocked) == 0);
  CHECK((wrong & kOpened) == 0);
  CHECK((wrong & kThreadStarted) == 0);
  CHECK((wrong & kLoaded) == 0);
  CHECK((wrong & kMappedCode) == 0);
  CHECK((wrong & kMadeCode) == 0);
  CHECK((wrong & kPersonality) == 0);
  CHECK((wrong & kUring) == 0);
}

TEST_CASE("without the lock-down the same calls succeed: the test above can fail", "[harness][sandbox]") {
  const int wrong = in_child(0);
  CAPTURE(wrong);
  REQUIRE((wrong & kNotFound) == 0);
  CHECK((wrong & kBeforeFailed) == 0);
  CHECK((wrong & kOpened) != 0);
  CHECK((wrong & kThreadStarted) != 0);
  CHECK((wrong & kLoaded) != 0);
  CHECK((wrong & kMappedCode) != 0);
}

TEST_CASE("under Nsight Compute, or with COURSE_RUNNER_SANDBOX=0, a runner puts up no lock-down; under a sanitizer all",
          "[harness][sandbox]") {
  char sanitizer[] = "CUDA_INJECTION64_PATH=/usr/local/cuda/compute-sanitizer/libsanitizer-collection.so";
  char ncu[] = "CUDA_INJECTION64_PATH=/opt/nvidia/nsight-compute/2025.3.1/target/libTreeLauncherTargetInjection.so";
  char off[] = "COURSE_RUNNER_SANDBOX=0";
  char* with_sanitizer[] = {sanitizer, nullptr};
  char* with_ncu[] = {ncu, nullptr};
  char* with_off[] = {off, nullptr};
  char* plain[] = {nullptr};
  CHECK(harness::lockdown_parts(plain) == harness::kLockAll);
  CHECK(harness::lockdown_parts(with_sanitizer) == harness::kLockAll);
  CHECK(harness::lockdown_parts(with_ncu) == 0);
  CHECK(harness::lockdown_parts(with_off) == 0);
}
