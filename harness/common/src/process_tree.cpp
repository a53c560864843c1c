#include <harness/process_tree.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string_view>
#include <thread>

namespace harness::process_tree {
namespace {

// Every process's parent, by process, from /proc/PID/stat.
std::multimap<pid_t, pid_t> children_by_parent() {
  std::multimap<pid_t, pid_t> children;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  while (const dirent* entry = proc ? ::readdir(proc.get()) : nullptr) {
    const std::string_view name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    std::array<char, 64> path;
    std::snprintf(path.data(), path.size(), "/proc/%s/stat", entry->d_name);
    const int fd = ::open(path.data(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::array<char, 1024> buffer;
    const ssize_t n = ::read(fd, buffer.data(), buffer.size() - 1);
    ::close(fd);
    if (n <= 0) continue;
    // "PID (COMMAND) STATE PPID ...": the command may hold spaces and parentheses, so look after the last ')'.
    const std::string_view line(buffer.data(), static_cast<std::size_t>(n));
    const auto paren = line.rfind(')');
    if (paren == std::string_view::npos || paren + 4 >= line.size()) continue;
    const long ppid = std::strtol(line.data() + paren + 4, nullptr, 10);
    children.emplace(static_cast<pid_t>(ppid), static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10)));
  }
  return children;
}

}  // namespace

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  const auto all = children_by_parent();
  for (auto [it, end] = all.equal_range(parent); it != end; ++it) children.push_back(it->second);
  return children;
}

std::vector<pid_t> descendants_of(pid_t root) {
  const auto all = children_by_parent();
  std::vector<pid_t> found;
  std::vector<pid_t> parents{root};
  while (!parents.empty()) {
    const pid_t parent = parents.back();
    parents.pop_back();
    for (auto [it, end] = all.equal_range(parent); it != end; ++it) {
      found.push_back(it->second);
      parents.push_back(it->second);
    }
  }
  return found;
}

void kill_tree(pid_t root) {
  if (root <= 0) return;
  const auto descendants = descendants_of(root);
  ::kill(root, SIGKILL);
  for (const pid_t pid : descendants) ::kill(pid, SIGKILL);
}

namespace {

// Reaps every child that has ended; true once the caller has no child left at all.
bool reap_children() {
  pid_t pid;
  while ((pid = ::waitpid(-1, nullptr, WNOHANG)) > 0) {
  }
  return pid < 0 && errno == ECHILD;
}

}  // namespace

std::size_t end_children(std::chrono::steady_clock::duration limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    if (reap_children()) return 0;
    for (const pid_t pid : children_of(::getpid())) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (reap_children()) return 0;
  return std::max<std::size_t>(1, children_of(::getpid()).size());
}

std::optional<int> wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return std::nullopt;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace harness::process_tree
