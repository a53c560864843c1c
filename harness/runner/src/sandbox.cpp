// The runner's sandbox (sandbox.hpp): stage 1 (seccomp and Landlock, before any code of the implementation runs) and
// stage 2 (seccomp, once the CUDA context exists). Defense in depth behind the static check, which refuses the calls
// by name: what a submission reaches by a route no static look sees (a function pointer found by walking the link map,
// a system call hidden in data) meets the kernel's refusal here.
#include <harness/protocol.hpp>
#include <harness/sandbox.hpp>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

// Kernel ABI constants newer than some distributions' headers (Debian 12 ships Linux 6.1's); their values are fixed.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)  // Landlock ABI 3 (Linux 6.2)
#endif

namespace harness {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#endif

constexpr std::uint32_t kDeny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr std::uint32_t kNoSuchCall = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
constexpr std::uint32_t kArg0Low = offsetof(seccomp_data, args[0]);  // little-endian: the low half comes first

sock_filter ret(std::uint32_t verdict) { return sock_filter BPF_STMT(BPF_RET | BPF_K, verdict); }
sock_filter load(std::uint32_t offset) { return sock_filter BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset); }
// "if the accumulator is k, go on; else skip `skip` instructions"
sock_filter when(std::uint32_t k, std::uint8_t skip) {
  return sock_filter BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, skip);
}

// How both programs begin: a call made through another ABI kills the process (its numbers name other calls), and on
// x86-64 the x32 numbers (the same calls under other numbers) are refused; then the call's number is loaded.
std::vector<sock_filter> program_start() {
  std::vector<sock_filter> p = {load(offsetof(seccomp_data, arch)),
                                sock_filter BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
                                ret(SECCOMP_RET_KILL_PROCESS), load(offsetof(seccomp_data, nr))};
#if defined(__x86_64__)
  p.push_back(sock_filter BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  p.push_back(ret(kDeny));
#endif
  return p;
}

// The seccomp program, one self-contained block per call it looks at (each ends in a verdict or falls through to the
// next block with the call's number still loaded). Refused (EPERM): new processes (fork, vfork, a clone that is not a
// thread), exec, tracing and other processes' memory, signals to any process but this one, pidfds. clone3 answers
// ENOSYS, so that the C library falls back to clone, whose flags a filter can read (clone3's sit behind a pointer).
// Everything else is allowed: the CUDA driver's calls are many and undocumented, and the referee checks every output
// whatever the runner does.
std::vector<sock_filter> program(pid_t self, unsigned parts) {
  std::vector<std::uint32_t> denied;
  const auto deny = [&](unsigned part, std::initializer_list<std::uint32_t> calls) {
    if (parts & part)
      for (std::uint32_t call : calls) denied.push_back(call);
  };
#ifdef __NR_fork
  deny(kSandboxProcesses, {__NR_fork, __NR_vfork});
#endif
  deny(kSandboxExec, {__NR_execve, __NR_execveat});
  deny(kSandboxTracing, {__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev});
  deny(kSandboxPidfds, {__NR_pidfd_open, __NR_pidfd_send_signal, __NR_pidfd_getfd});
  deny(kSandboxSignals, {__NR_tkill});
  std::vector<std::uint32_t> signals;
  if (parts & kSandboxSignals) signals = {__NR_kill, __NR_tgkill, __NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo};
  std::vector<sock_filter> p = program_start();
  if (parts & kSandboxProcesses) {
    p.insert(p.end(), {when(__NR_clone3, 1), ret(kNoSuchCall)});
    // clone: a thread (CLONE_THREAD) is allowed, a process is not.
    p.insert(p.end(), {when(__NR_clone, 4), load(kArg0Low),
                       sock_filter BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1), ret(SECCOMP_RET_ALLOW),
                       ret(kDeny)});
  }
  for (std::uint32_t nr : denied) p.insert(p.end(), {when(nr, 1), ret(kDeny)});
  // Signals: only to this process (kill, tgkill and the sigqueue calls name the process first).
  for (std::uint32_t nr : signals)
    p.insert(p.end(), {when(nr, 4), load(kArg0Low), when(static_cast<std::uint32_t>(self), 1), ret(SECCOMP_RET_ALLOW),
                       ret(kDeny)});
  p.push_back(ret(SECCOMP_RET_ALLOW));
  return p;
}

// Landlock: no file or folder may be created, written, renamed or removed outside /dev (the GPU's device files,
// /dev/null, /dev/shm), /proc, /sys and the run's own TMPDIR (/tmp where none is set). The runner writes nothing;
// this keeps a submission from writing what another process reads (a batch's results of other students, the user's
// files) where the runner's user could.
// `tmpdir`: the run's TMPDIR, or nullptr. Returns the Landlock ABI in force, or 0 where the kernel has none.
int restrict_writes(const char* tmpdir) {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return 0;
  std::uint64_t writes = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                         LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                         LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                         LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) writes |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) writes |= LANDLOCK_ACCESS_FS_TRUNCATE;
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = writes;
  const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) return 0;
  // /proc and /sys too: the CUDA driver writes there as it starts (with /dev alone, cudaFree(0) failed with
  // cudaErrorOperatingSystem on the H100, experiments/sandbox_probe). What a process may write there is the kernel's
  // business: another process's entries are closed to it by ptrace rules (the referee is not dumpable).
  std::vector<std::string> allowed = {"/dev", "/proc", "/sys"};
  // The run's TMPDIR, or /tmp where none is set: `grade` always sets one (the run's own folder), and a tool run by
  // hand keeps working (ncu's injected library takes its lock in /tmp/nvidia: without it, ncu stops with
  // InterprocessLockFailed).
  allowed.push_back(tmpdir && *tmpdir == '/' ? tmpdir : "/tmp");
  for (const auto& path : allowed) {
    const int dir = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (dir < 0) continue;
    landlock_path_beneath_attr beneath{};
    beneath.allowed_access = writes;
    beneath.parent_fd = dir;
    ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
    ::close(dir);
  }
  const bool done = ::syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
  ::close(ruleset);
  return done ? static_cast<int>(abi) : 0;
}

}  // namespace

SandboxState install_runner_sandbox(unsigned parts, char** envp) {
  SandboxState state;
  if (parts == 0) return state;
  // Both need this, and it is one-way: nothing started from here may gain privileges (set-user-ID programs).
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    state.problem = std::string("no_new_privs: ") + std::strerror(errno);
    return state;
  }
  // From `envp`: environ may not be set up yet where a runner calls this.
  if (parts & kSandboxWrites) state.landlock_abi = restrict_writes(protocol::variable_in(envp, "TMPDIR"));
  if ((parts & ~kSandboxWrites) == 0) return state;
#if defined(__x86_64__) || defined(__aarch64__)
  auto filter = program(::getpid(), parts);
  sock_fprog prog{static_cast<unsigned short>(filter.size()), filter.data()};
  // TSYNC: every thread of the process, should a library's constructor have started one already.
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0) state.seccomp = true;
  else state.problem = std::string("seccomp: ") + std::strerror(errno);
#else
  state.problem = "seccomp: no filter for this architecture";
#endif
  return state;
}

namespace {

// Stage 2's seccomp program: refusals only (EPERM; clone3 ENOSYS, so that the C library falls back to clone, refused
// too), everything else allowed, stacked on stage 1's filter (the kernel applies the most restrictive verdict).
std::vector<sock_filter> lockdown_program(unsigned parts) {
  constexpr std::uint32_t kArg2Low = offsetof(seccomp_data, args[2]);
  std::vector<sock_filter> p = program_start();
  const auto refuse = [&](std::uint32_t nr, std::uint32_t verdict = kDeny) {
    p.insert(p.end(), {when(nr, 1), ret(verdict)});
  };
  // A call refused when a bit of argument `arg` (its low half) is set; the block ends in a verdict either way.
  const auto refuse_with_bit = [&](std::uint32_t nr, std::uint32_t arg, std::uint32_t bit) {
    p.insert(p.end(), {when(nr, 4), load(arg), sock_filter BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bit, 0, 1),
                       ret(kDeny), ret(SECCOMP_RET_ALLOW)});
  };
  if (parts & kLockThreads) {
    refuse(__NR_clone);
    refuse(__NR_clone3, kNoSuchCall);
  }
  if (parts & kLockFiles) {
#ifdef __NR_open
    refuse(__NR_open);
    refuse(__NR_creat);
#endif
    for (std::uint32_t nr : {__NR_openat, __NR_openat2, __NR_open_by_handle_at, __NR_io_uring_setup,
                             __NR_io_uring_enter, __NR_io_uring_register})
      refuse(nr);
  }
  if (parts & kLockCode) {
    // personality(0xffffffff) only asks; any other value may set READ_IMPLIES_EXEC, which makes readable mappings
    // executable.
    p.insert(p.end(), {when(__NR_personality, 4), load(kArg0Low), when(0xffffffffu, 1), ret(SECCOMP_RET_ALLOW),
                       ret(kDeny)});
    for (std::uint32_t nr : {__NR_mmap, __NR_mprotect, __NR_pkey_mprotect})
      refuse_with_bit(nr, kArg2Low, PROT_EXEC);
    refuse_with_bit(__NR_shmat, kArg2Low, SHM_EXEC);
  }
  p.push_back(ret(SECCOMP_RET_ALLOW));
  return p;
}

}  // namespace

unsigned lockdown_parts(char** envp) {
  // "0" and "landlock" (stage 1 without seccomp, for a machine where seccomp keeps CUDA from working) leave it out.
  if (const char* choice = protocol::variable_in(envp, "COURSE_RUNNER_SANDBOX");
      choice && (std::string_view(choice) == "0" || std::string_view(choice) == "landlock"))
    return 0;
  // Nsight Compute loads its libraries and opens files at a kernel's first profiled launch (measured,
  // experiments/runner_lockdown), and with the threads part alone a real runner's profiled launch still failed with
  // EPERM on an H100: under it, none. It profiles for `grade --concepts`; it never times a grade.
  return protocol::nsight_compute_attached(envp) ? 0u : unsigned{kLockAll};
}

LockdownState lock_down(unsigned parts) {
  LockdownState state;
  if (parts == 0) return state;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    state.problem = std::string("no_new_privs: ") + std::strerror(errno);
    return state;
  }
#if defined(__x86_64__) || defined(__aarch64__)
  auto filter = lockdown_program(parts);
  sock_fprog prog{static_cast<unsigned short>(filter.size()), filter.data()};
  // TSYNC: the CUDA driver's threads too, on which a signal handler of the submission's could otherwise run.
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0) state.parts = parts;
  else state.problem = std::string("seccomp: ") + std::strerror(errno);
#else
  state.problem = "seccomp: no filter for this architecture";
#endif
  return state;
}

}  // namespace harness
