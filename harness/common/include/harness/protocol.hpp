#pragma once
/// @file protocol.hpp
/// @brief What crosses the grading boundary between the referee (`labN`) and a runner (`runners/labN-<impl>`), and
/// is spelled here once for both sides: the descriptors a runner is started with, how buffer handles and host-memory
/// descriptors travel, and the environment variables through which a CUDA tool follows a runner.
///
/// The commands themselves are JSON lines; referee/include/harness/runner.hpp describes them.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace harness::protocol {

/// The runner reads commands here (a pipe from the referee).
inline constexpr int kCommandFd = 3;
/// The runner answers here (a pipe to the referee).
inline constexpr int kReplyFd = 4;
/// A socket on which the referee sends, before an "open" that has host buffers, one message carrying their
/// descriptors, in buffer order.
inline constexpr int kDescriptorFd = 5;
/// The most buffers in host memory one problem may have (their descriptors travel in one message).
inline constexpr std::size_t kMaxSharedBuffers = 16;

/// `bytes` as lowercase hex digits (a CUDA IPC handle in a JSON string).
std::string hex(std::string_view bytes);
/// The bytes that hex() spelled; throws std::invalid_argument on anything else.
std::string unhex(std::string_view text);

/// Sends `fds` over `socket` in one message (SCM_RIGHTS). False if the other side is gone.
bool send_descriptors(int socket, const std::vector<int>& fds);
/// The `count` descriptors of the next message on `socket`, in order (closed-on-exec). Throws std::runtime_error when
/// they did not arrive as one message of `count`.
std::vector<int> receive_descriptors(int socket, std::size_t count);

/// True for a variable through which a CUDA tool (ncu, nsys, compute-sanitizer) follows a process (LD_PRELOAD aside):
/// a runner keeps those from the referee's environment, or it crashes half-injected.
bool is_tool_variable(std::string_view name);
/// True for a variable of the referee's environment that its runners get too: what a CUDA program needs (PATH, HOME,
/// LANG, TMPDIR, LD_LIBRARY_PATH, the CUDA_ variables that pick the device, load modules or size its work queues,
/// COURSE_RUNNER_SANDBOX, LD_PRELOAD) and a CUDA tool's variables (is_tool_variable()); nothing else of it.
bool passed_to_runner(std::string_view name);
/// True when a CUDA tool that follows this process's kernels is attached: one of the variables only an attached tool
/// sets is in `envp` (a NULL-terminated environment; nullptr: this process's). Not NV_ alone, which NVIDIA's CUDA
/// container images set for their own use (NV_CUDA_LIB_VERSION, ...).
bool cuda_tool_attached(char** envp = nullptr);
/// The attached tool is Nsight Compute, which loads its libraries and opens files at a kernel's first profiled launch.
bool nsight_compute_attached(char** envp = nullptr);
/// The value of variable `name` in `envp` (a NULL-terminated environment), or nullptr. For code that runs before
/// main(), where the C library's `environ` and getenv() may not be set up yet.
const char* variable_in(char** envp, std::string_view name);

/// compute-sanitizer's front end for `tool` (memcheck, racecheck, synccheck or initcheck): the command line before
/// the runner's path when a runner starts under it (`labN check --tools`, harness/runner.hpp's FrontEnd). The tool's
/// verdict is its exit code (exit_code::kSanitizerFound when it found something), a few reports are enough (the first
/// is what the student sees), and memcheck leaves out the CUDA API errors the harness provokes and handles. Empty for
/// a tool it does not know.
std::vector<std::string> sanitizer_front_end(const std::string& sanitizer, std::string_view tool);
/// How a process ended, from its wait status: "exited with code N", "killed by signal N", else "ended".
std::string ended_how(int wait_status);
/// What one ended front end says of its tool.
struct FrontEndVerdict {
  std::string_view verdict;  ///< keys::kFound, keys::kClean, keys::kHung or keys::kFailed
  std::string how;           ///< how it ended, for kHung and kFailed ("compute-sanitizer exited with code 1")
};
/// The verdict of a front end (sanitizer_front_end) that ended with `wait_status`: keys::kFound when it exited
/// exit_code::kSanitizerFound, keys::kClean when it exited 0, keys::kHung when it had not when the referee ended it
/// at its tool's limit (`past_deadline`), else keys::kFailed and how it ended.
FrontEndVerdict front_end_verdict(int wait_status, bool past_deadline = false);

}  // namespace harness::protocol
