#pragma once
/// @file host_lock.hpp
/// @brief The locks with which the workers of a batch on one host take turns for what they share (docs/batch.md): the
/// host link's turns (ProcessOptions::turn_lock), the claim on it for a lab's timed run, the sanitizer's turn.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

/// The lock file `path` opened for flock(), close-on-exec: read and write, made where missing, or read only where
/// another user made it (flock needs no write access). -1 where it cannot be opened.
int open_lock_file(const std::filesystem::path& path);

/// An exclusive flock on a lock file, held from construction to destruction (the flock goes with the descriptor).
/// Without a file, or where it cannot be opened, nothing is held.
class HostLock {
 public:
  enum class Wait {
    kUntilFree,  ///< block until no other process holds it
    kNo,         ///< take it only if it is free now: held() says whether it was
  };
  HostLock(const std::optional<std::filesystem::path>& file, Wait wait);
  ~HostLock();
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;
  /// True when this object holds the lock.
  [[nodiscard]] bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// Shared flocks on a lock file of its own, made in a folder and removed with the object: one for each run about to
/// start, each on an open file description of its own (close-on-exec), handed to its run as
/// ProcessOptions::turn_shared_fd with the file as its turn_lock. No turn on the file is granted until every run has
/// let go of its hold (asked for its turn, or ended): grade_labs() holds one for each check run of a worker, so that a
/// lab's timed part, in the referee of its checks, waits for every other lab's checks, and the parts go one at a time.
class SharedHolds {
 public:
  /// `count` holds on a new file in `folder`; none where the file cannot be made or locked (complete() says so).
  SharedHolds(const std::filesystem::path& folder, std::size_t count);
  ~SharedHolds();
  SharedHolds(const SharedHolds&) = delete;
  SharedHolds& operator=(const SharedHolds&) = delete;
  /// True when every hold was taken.
  [[nodiscard]] bool complete() const { return fds_.size() == count_; }
  const std::filesystem::path& file() const { return file_; }
  /// Hold `i`'s descriptor.
  int fd(std::size_t i) const { return fds_.at(i); }

 private:
  std::filesystem::path file_;
  std::size_t count_ = 0;
  std::vector<int> fds_;
};

/// "WHAT-HOST.lock", HOST being this host's name ('/' made '_'; "host" where it cannot be read): a lock of what the
/// workers of this host share, in a results folder that Slurm shards on other hosts may share too.
std::string host_lock_name(std::string_view what);

}  // namespace grader
