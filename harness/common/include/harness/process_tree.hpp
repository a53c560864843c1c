#pragma once
/// @file process_tree.hpp
/// @brief A process and every process it started, found through /proc (CUDA-free): how the referee ends a CUDA
/// tool's front end together with the runner it runs (a tool's limit in `labN check --tools`), and how the grader
/// finds what a run left behind.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

namespace harness::process_tree {

/// Every process whose parent is `parent` (zombies included), found through /proc/PID/stat: the kernel's own list of
/// children (/proc/PID/task/TID/children) is not built into every kernel.
std::vector<pid_t> children_of(pid_t parent);

/// Every process descended from `root` (children, theirs, ...), as /proc shows them now; `root` not among them.
std::vector<pid_t> descendants_of(pid_t root);

/// Kills (SIGKILL) `root`, which must be an unreaped child of the caller (its number cannot be reused), and every
/// process descended from it: a CUDA tool's front end runs the runner as its child, and killing the front end alone
/// would leave the runner running, its kernels and the referee's reply pipe with it. The descendants are found
/// before `root` is killed (once it is gone they are no longer its). The caller reaps `root`.
void kill_tree(pid_t root);

/// Kills (SIGKILL) and reaps every child of the caller, and the process group each leads, round after round until
/// waitpid reports no child, or gives up after `limit`: in a child subreaper (PR_SET_CHILD_SUBREAPER), what the
/// children orphaned (a daemon, a setsid'd process) comes to it and goes too. A child's number cannot be reused before
/// it is reaped, and only this loop reaps: the kills hit no stranger. The grader's clean-up after a run, and the
/// referee of `labN time --check-seeds` between its checks and its timed runs, so that nothing a check's runner
/// started lives on into them. Returns how many children were left when it gave up (0: none).
std::size_t end_children(std::chrono::steady_clock::duration limit);

/// Waits for child `pid` to end, until `deadline`: its wait status, or nullopt when it still runs then.
std::optional<int> wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline);

}  // namespace harness::process_tree
