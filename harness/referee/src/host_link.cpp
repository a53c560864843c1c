#include <harness/host_link.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace harness {

HostLinkTurn::HostLinkTurn(const std::filesystem::path& lock_file) {
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fd_ = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);  // another user's file: flock needs no write
  if (fd_ < 0) return;
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    ::close(fd_);
    fd_ = -1;
    return;
  }
}

HostLinkTurn::~HostLinkTurn() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the open file releases the lock
}

}  // namespace harness
