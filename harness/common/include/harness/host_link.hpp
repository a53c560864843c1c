#pragma once
/// @file host_link.hpp
/// @brief Turns on the host link, asked of the grader: the part of a timed run whose copies cross between host and GPU
/// (lab 07's), one worker of a host at a time.
///
/// `grade batch` starts such a lab's `labN time` with one end of a socket pair as `kTurnFd` and passes
/// `--host-link-turn-fd 4`. The lab binary asks for a turn by sending `kAsk` and has it when `kGranted` comes back; it
/// gives the turn back by sending `kDone`, or by ending. The grader waits for the host's lock (flock on the batch's
/// `host-link-HOST.lock`) while the run's wall-clock limit stands still, so that a run is never killed as hung while it
/// only waits for other workers' turns (grader/process.hpp, ProcessOptions::turn_lock). CUDA-free: the grader and the
/// fake lab include it too.

#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>

namespace harness::host_link {

/// The child's descriptor of the turns' socket, as the grader starts it.
inline constexpr int kTurnFd = 4;
/// Sent by the lab binary: it wants a turn.
inline constexpr char kAsk = 'T';
/// Sent back by the grader: the turn is the lab binary's until it sends kDone.
inline constexpr char kGranted = 'G';
/// Sent by the lab binary: its turn is over.
inline constexpr char kDone = 'R';

/// A turn, held from construction to destruction. `fd` < 0: no turns were asked for (one `grade`, alone on its host):
/// nothing is sent. A grader that is gone or answers something else leaves the turn not held and the run goes on (a
/// grader that is gone kills its runs anyway).
class Turn {
 public:
  /// Asks for a turn through `fd` (the lab binary's `--host-link-turn-fd`) and waits until it is granted.
  explicit Turn(int fd) {
    if (fd < 0 || !send_byte(fd, kAsk)) return;
    char answer = 0;
    ssize_t n;
    do n = ::recv(fd, &answer, 1, 0);
    while (n < 0 && errno == EINTR);
    if (n == 1 && answer == kGranted) fd_ = fd;
  }
  /// Gives the turn back, if it was granted.
  ~Turn() {
    if (fd_ >= 0) send_byte(fd_, kDone);
  }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

 private:
  // MSG_NOSIGNAL: a grader that is gone must not end the run with SIGPIPE before its results are written.
  static bool send_byte(int fd, char byte) {
    ssize_t n;
    do n = ::send(fd, &byte, 1, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == 1;
  }
  int fd_ = -1;  // the socket while the turn is held, else -1
};

}  // namespace harness::host_link
