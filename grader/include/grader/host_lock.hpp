#pragma once
/// @file host_lock.hpp
/// @brief The locks with which the workers of a batch on one host take turns for what they share (docs/batch.md): the
/// host link's turns (ProcessOptions::turn_lock), the claim on it for a lab's timed run, the sanitizer's turn.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

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

/// "WHAT-HOST.lock", HOST being this host's name ('/' made '_'; "host" where it cannot be read): a lock of what the
/// workers of this host share, in a results folder that Slurm shards on other hosts may share too.
std::string host_lock_name(std::string_view what);

}  // namespace grader
