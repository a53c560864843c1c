// Landlock rulesets for confined compiles (confine.hpp).
#include "grader/confine.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

// Kernel ABI constants newer than some distributions' headers (Debian 12 ships Linux 6.1's); their values are fixed.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)  // Landlock ABI 3 (Linux 6.2)
#endif

namespace grader {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;
constexpr std::uint64_t kReadFile = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE;
constexpr std::uint64_t kWriteV1 = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                                   LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                                   LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                                   LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                                   LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;

bool beneath(const fs::path& path, const fs::path& root) {
  const auto p = path.lexically_normal().string(), r = root.lexically_normal().string();
  return p == r || (p.size() > r.size() && p.starts_with(r) && (r.back() == '/' || p[r.size()] == '/'));
}

/// The program's canonical path: as given when it has a slash, else found in PATH.
fs::path locate(const std::string& program) {
  std::error_code error;
  if (program.find('/') != std::string::npos) return fs::weakly_canonical(program, error);
  const char* path = std::getenv("PATH");
  for (std::string_view rest = path ? path : ""; !rest.empty();) {
    const auto colon = rest.find(':');
    const fs::path candidate = fs::path(rest.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return fs::weakly_canonical(candidate, error);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return {};
}

}  // namespace

std::vector<fs::path> system_read_roots(const std::vector<std::string>& programs) {
  std::vector<fs::path> roots = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/dev",
                                 "/proc", "/sys"};
  const auto covered = [&](const fs::path& p) {
    for (const auto& r : roots)
      if (beneath(p, r)) return true;
    return false;
  };
  for (const auto& program : programs) {
    const fs::path found = locate(program);
    // A toolkit's bin/ lives in its installation folder: /opt/cuda/bin/nvcc reads /opt/cuda/nvvm, ../include, ...
    if (!found.empty() && !covered(found)) roots.push_back(found.parent_path().parent_path());
  }
  return roots;
}

std::vector<std::string> programs_run_by(const std::vector<std::string>& argv) {
  std::vector<std::string> programs = {"gcc", "g++", "cc", "c++"};
  if (!argv.empty()) programs.push_back(argv.front());
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string_view a = argv[i];
    for (std::string_view flag : {"-ccbin", "--compiler-bindir"}) {
      if (a == flag && i + 1 < argv.size()) programs.push_back(argv[i + 1]);
      if (a.starts_with(flag) && a.size() > flag.size() && a[flag.size()] == '=')
        programs.emplace_back(a.substr(flag.size() + 1));
    }
  }
  return programs;
}

Ruleset::Ruleset(const Confinement& confinement, const std::vector<std::string>& programs) {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) {
    unavailable_ = std::string("no Landlock in this kernel (") + std::strerror(errno) + ")";
    return;
  }
  std::uint64_t write = kWriteV1;
  if (abi >= 2) write |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) write |= LANDLOCK_ACCESS_FS_TRUNCATE;
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = kRead | write;
  fd_ = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (fd_ < 0) {
    unavailable_ = std::string("landlock_create_ruleset: ") + std::strerror(errno);
    return;
  }
  const auto allow = [&](const fs::path& path, std::uint64_t access) {
    const int dir = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (dir < 0) return;  // a root this machine lacks (/libx32)
    struct stat st {};
    if (::fstat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
      access &= kReadFile | LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
    landlock_path_beneath_attr beneath_attr{};
    beneath_attr.allowed_access = access;
    beneath_attr.parent_fd = dir;
    ::syscall(SYS_landlock_add_rule, fd_, LANDLOCK_RULE_PATH_BENEATH, &beneath_attr, 0);
    ::close(dir);
  };
  for (const auto& root : system_read_roots(programs)) allow(root, kRead);
  allow("/dev", kRead | LANDLOCK_ACCESS_FS_WRITE_FILE);  // /dev/null, /dev/tty
  for (const auto& path : confinement.read) allow(path, kRead);
  for (const auto& path : confinement.write) allow(path, kRead | write);
  abi_ = static_cast<int>(abi);
}

Ruleset::~Ruleset() {
  if (fd_ >= 0) ::close(fd_);
}

Ruleset::Ruleset(Ruleset&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), abi_(std::exchange(other.abi_, 0)), unavailable_(std::move(other.unavailable_)) {}

bool Ruleset::enter() const noexcept {
  if (fd_ < 0) return true;
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::syscall(SYS_landlock_restrict_self, fd_, 0) == 0;
}

}  // namespace grader
