#pragma once
/// @file host_link.hpp
/// @brief A turn on the host link: the part of a timed run whose copies cross between host and GPU, one at a time on a
/// host (`labN time --host-link-lock FILE`, which `grade batch` passes for a lab whose manifest says `host_link`).
#include <filesystem>

namespace harness {

/// Holds an exclusive lock (flock) on `lock_file` from construction to destruction, so that the turns never overlap,
/// across the processes of one host and the Slurm shards that share a results folder. No lock where the file cannot
/// be opened (the run goes on without its turn).
class HostLinkTurn {
 public:
  explicit HostLinkTurn(const std::filesystem::path& lock_file);
  ~HostLinkTurn();
  HostLinkTurn(const HostLinkTurn&) = delete;
  HostLinkTurn& operator=(const HostLinkTurn&) = delete;
  /// Whether the lock is held.
  [[nodiscard]] bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace harness
