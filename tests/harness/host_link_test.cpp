// The host link's turns (harness/host_link.hpp): the part of lab 07's timed runs that crosses between host and GPU,
// one worker of a batch at a time.
#include <harness/host_link.hpp>

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

TEST_CASE("the host link's turns never overlap, across processes", "[harness][host_link]") {
  char folder[] = "/tmp/host-link-XXXXXX";
  REQUIRE(::mkdtemp(folder) != nullptr);
  const auto lock = std::filesystem::path(folder) / "host-link.lock";
  const auto now_ms = [] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {  // takes the turn first and holds it 300 ms
    harness::HostLinkTurn turn(lock);
    [[maybe_unused]] const auto told = ::write(ready[1], "x", 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::_Exit(turn.held() ? 0 : 1);
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  const double asked = now_ms();
  {
    harness::HostLinkTurn turn(lock);
    CHECK(turn.held());
    CHECK(now_ms() - asked >= 200);  // it waited for the child's turn to end
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WEXITSTATUS(status) == 0);
  ::close(ready[0]);
  ::close(ready[1]);
  const double again = now_ms();
  harness::HostLinkTurn free_turn(lock);  // nobody holds it: at once
  CHECK(free_turn.held());
  CHECK(now_ms() - again < 100);
  std::filesystem::remove_all(folder);
}
