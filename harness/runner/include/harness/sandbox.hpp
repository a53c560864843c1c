#pragma once
/// @file sandbox.hpp
/// @brief The runner's confinement, in two stages (docs/threat-model.md).
///
/// Stage 1, install_runner_sandbox(), goes up from .preinit_array, before any code the runner links runs: no new
/// processes, exec, tracing, signals to other processes or pidfds (seccomp), no writes outside /dev, /proc, /sys and
/// $TMPDIR (Landlock). Stage 2, lock_down(), goes up once the runner's CUDA context, stream and events exist, from a
/// constructor that runs before the static initializers of the implementation it links: no new threads, no opening
/// of files, no new executable mappings, for good. A submission's code therefore never
/// runs with a thread, a file or a page of code it did not have at its start.
#include <string>

namespace harness {

/// What install_runner_sandbox() put in force.
struct SandboxState {
  bool seccomp = false;  ///< the system-call filter is in force
  int landlock_abi = 0;  ///< the Landlock ABI whose write restriction is in force; 0: none (the kernel has none)
  std::string problem;   ///< why a part is missing, else empty
};

/// The parts of install_runner_sandbox(): the Landlock write restriction, and seccomp's groups of calls.
enum SandboxPart : unsigned {
  kSandboxWrites = 1u << 0,     ///< Landlock: no writes outside /dev, /proc, /sys and $TMPDIR
  kSandboxProcesses = 1u << 1,  ///< fork, vfork, clone without CLONE_THREAD (clone3: ENOSYS)
  kSandboxExec = 1u << 2,       ///< execve, execveat
  kSandboxTracing = 1u << 3,    ///< ptrace, process_vm_readv, process_vm_writev
  kSandboxSignals = 1u << 4,    ///< kill, tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo to another process
  kSandboxPidfds = 1u << 5,     ///< pidfd_open, pidfd_send_signal, pidfd_getfd
  kSandboxAll = (1u << 6) - 1,  ///< every part
};

/// Confines the calling process for good (stage 1), before any code of an implementation runs. `parts` (a mask of
/// SandboxPart) picks what goes up; `envp` is the environment to read TMPDIR from (nullptr: `environ`, which a
/// .preinit_array function may not have yet). What the machine does not allow is left out and said in `problem`:
/// the static check and the referee's checks stand without it.
SandboxState install_runner_sandbox(unsigned parts = kSandboxAll, char** envp = nullptr);

/// The parts of lock_down().
enum LockdownPart : unsigned {
  kLockThreads = 1u << 0,  ///< clone and clone3 of any kind: no thread of its own (EPERM)
  /// no file opened: open, openat, openat2, creat, open_by_handle_at, and io_uring, whose requests open files without
  /// those calls (EPERM). seccomp, not Landlock: a Landlock domain covers only the thread that makes it (before
  /// Linux 6.19's TSYNC), and a signal handler runs on whichever thread the signal is sent to, the CUDA driver's too
  kLockFiles = 1u << 1,
  /// no new executable memory: mmap, mprotect and pkey_mprotect with PROT_EXEC, shmat with SHM_EXEC, and a
  /// personality that makes readable mappings executable (EPERM)
  kLockCode = 1u << 2,
  kLockAll = (1u << 3) - 1,  ///< every part
};

/// What lock_down() put in force.
struct LockdownState {
  unsigned parts = 0;   ///< the LockdownPart bits in force
  std::string problem;  ///< why a part asked for is missing, else empty
};

/// The parts of lock_down() a runner puts up: all of them, but none under Nsight Compute (it loads its libraries,
/// opens files and needs more at a kernel's first profiled launch; measured: experiments/runner_lockdown).
/// COURSE_RUNNER_SANDBOX=0 or =landlock in `envp` (nullptr: `environ`): none.
unsigned lockdown_parts(char** envp = nullptr);

/// Confines the calling process for good (stage 2). Call once the process has every thread, file and code mapping it
/// will need: its CUDA context, stream and events. Every thread of the process is covered (seccomp's TSYNC,
/// Landlock's per-process domain).
LockdownState lock_down(unsigned parts = kLockAll);

}  // namespace harness
