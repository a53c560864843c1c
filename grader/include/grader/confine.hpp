#pragma once
/// @file confine.hpp
/// @brief What a compile of a submission may read and write: the least it needs (Landlock, where the kernel has it).
///
/// A submission's compile reaches whatever its `#include` lines and its assembler's `.incbin` name: the course's
/// solutions beside the lab's folder, another student's file in a class's submissions. So the compile runs confined:
/// it reads the system's folders (the compiler, the CUDA toolkit, their headers and libraries), the paths it is given
/// (the submission, the lab's contract) and nothing else, and writes only into the folders it is given. The static
/// check's include rule (static_check.hpp) refuses the same dependencies by name where the kernel has no Landlock.
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

/// The paths a confined process may use beyond the system's folders.
struct Confinement {
  std::vector<std::filesystem::path> read;   ///< files or folders it may read (a folder: everything beneath)
  std::vector<std::filesystem::path> write;  ///< folders it may create, write and remove files in (and read)
};

/// The folders every compile reads: /usr, /lib*, /bin, /sbin, /etc, /dev, /proc, /sys, and the installation folder of
/// each of `programs` found where it is not under them (a CUDA toolkit in /opt/cuda: nvcc's folder's parent).
std::vector<std::filesystem::path> system_read_roots(const std::vector<std::string>& programs);

/// The programs `argv` runs that may live outside the system's folders: the command itself and the host compiler nvcc
/// is told to use (-ccbin), besides the usual compilers found in PATH.
std::vector<std::string> programs_run_by(const std::vector<std::string>& argv);

/// A Landlock ruleset built before fork() and put in force in the child between fork and exec, so that the child
/// needs only async-signal-safe calls. Move-only; closes its descriptor.
class Ruleset {
 public:
  /// The rules for `confinement` plus system_read_roots(`programs`). Where the kernel has no Landlock, or it is
  /// disabled, the ruleset is empty (abi() == 0) and enter() does nothing: say so with unavailable().
  Ruleset(const Confinement& confinement, const std::vector<std::string>& programs);
  ~Ruleset();
  Ruleset(Ruleset&& other) noexcept;
  Ruleset& operator=(Ruleset&&) = delete;
  Ruleset(const Ruleset&) = delete;
  Ruleset& operator=(const Ruleset&) = delete;
  /// The Landlock ABI the rules are made for; 0 when there is no ruleset.
  [[nodiscard]] int abi() const { return abi_; }
  /// Puts the rules in force for the calling process and everything it starts (async-signal-safe: for a forked
  /// child). False when they could not be.
  bool enter() const noexcept;
  /// Why there is no ruleset, else empty.
  [[nodiscard]] const std::string& unavailable() const { return unavailable_; }

 private:
  int fd_ = -1;
  int abi_ = 0;
  std::string unavailable_;
};

}  // namespace grader
