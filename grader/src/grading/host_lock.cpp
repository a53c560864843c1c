// The locks of a host's workers (grader/host_lock.hpp).

#include "grader/host_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace grader {

int open_lock_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  return fd >= 0 ? fd : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

HostLock::HostLock(const std::optional<std::filesystem::path>& file, Wait wait)
    : fd_(file ? open_lock_file(*file) : -1) {
  const int how = wait == Wait::kUntilFree ? LOCK_EX : LOCK_EX | LOCK_NB;
  while (fd_ >= 0 && ::flock(fd_, how) != 0) {
    if (errno == EINTR) continue;
    ::close(fd_);  // held by another (kNo), or a file system without flock
    fd_ = -1;
  }
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);
}

SharedHolds::SharedHolds(const std::filesystem::path& folder, std::size_t count) : count_(count) {
  if (count == 0) return;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  std::string name = (folder / "timed-turn-XXXXXX").string();
  const int made = ::mkostemp(name.data(), O_CLOEXEC);
  if (made < 0) return;
  ::close(made);
  file_ = name;
  bool held = true;
  for (std::size_t i = 0; i < count && held; ++i) {
    const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);  // a description of its own: a hold of its own
    if (fd >= 0) fds_.push_back(fd);
    held = fd >= 0 && ::flock(fd, LOCK_SH | LOCK_NB) == 0;
  }
  if (held) return;
  for (const int fd : fds_) ::close(fd);  // incomplete: no holds at all, so nothing waits on the file
  fds_.clear();
}

SharedHolds::~SharedHolds() {
  for (const int fd : fds_) ::close(fd);
  std::error_code error;
  if (!file_.empty()) std::filesystem::remove(file_, error);
}

std::string host_lock_name(std::string_view what) {
  char name[256] = {};
  std::string host = ::gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "host";
  std::replace(host.begin(), host.end(), '/', '_');
  return std::string(what) + "-" + host + ".lock";
}

}  // namespace grader
