// What the referee and a runner share of their protocol (protocol.hpp).
#include <harness/protocol.hpp>

#include <harness/exit_codes.hpp>
#include <harness/result_keys.hpp>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace harness::protocol {
namespace {

/// The variables through which a CUDA tool (ncu, nsys, compute-sanitizer) follows a process.
constexpr const char* kToolPrefixes[] = {"CUDA_INJECTION", "NVTX_INJECTION", "NV_", "NCU_", "NSYS_",
                                         "COMPUTE_SANITIZER", "CUDA_MEMCHECK", "NVIDIA_PROCESS_INJECTION"};
/// Those of them only an attached tool sets. A program compute-sanitizer's front end starts itself (not through a
/// process it follows) has the tool's library preloaded and its NV_SANITIZER_INJECTION_ variables, not
/// CUDA_INJECTION64_PATH.
constexpr const char* kAttachedToolPrefixes[] = {"CUDA_INJECTION", "COMPUTE_SANITIZER", "NV_SANITIZER_INJECTION",
                                                 "NV_COMPUTE_PROFILER", "NCU_", "NSYS_"};

template <std::size_t N>
bool starts_with_any(std::string_view text, const char* const (&prefixes)[N]) {
  return std::any_of(std::begin(prefixes), std::end(prefixes),
                     [&](const char* prefix) { return text.starts_with(prefix); });
}

int digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  throw std::invalid_argument("not a hex digit");
}

}  // namespace

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

std::string unhex(std::string_view text) {
  if (text.size() % 2 != 0) throw std::invalid_argument("odd number of hex digits");
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 2)
    out.push_back(static_cast<char>(digit(text[i]) * 16 + digit(text[i + 1])));
  return out;
}

bool send_descriptors(int socket, const std::vector<int>& fds) {
  if (fds.size() > kMaxSharedBuffers) throw std::logic_error("a problem with more host buffers than a runner takes");
  char byte = 'F';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxSharedBuffers)] = {};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  ssize_t n;
  do n = ::sendmsg(socket, &message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

std::vector<int> receive_descriptors(int socket, std::size_t count) {
  if (count > kMaxSharedBuffers) throw std::invalid_argument("too many host buffers");
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxSharedBuffers)] = {};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  std::vector<int> fds;
  for (cmsghdr* h = CMSG_FIRSTHDR(&message); n == 1 && h; h = CMSG_NXTHDR(&message, h))
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
      const std::size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const std::size_t at = fds.size();
      fds.resize(at + k);
      std::memcpy(fds.data() + at, CMSG_DATA(h), k * sizeof(int));
    }
  if (fds.size() != count) {
    for (int fd : fds) ::close(fd);
    throw std::runtime_error("the referee's descriptors of host buffers did not arrive");
  }
  return fds;
}

bool is_tool_variable(std::string_view name) { return starts_with_any(name, kToolPrefixes); }

bool passed_to_runner(std::string_view name) {
  // CUDA_DEVICE_MAX_CONNECTIONS: the hardware work queues the lab's manifest gives every CUDA process of the lab
  // (`work_queues`); a runner making CUDA's default 8 would spend the context time the setting saves.
  static constexpr std::string_view kept[] = {"PATH", "HOME", "LANG", "TMPDIR", "LD_LIBRARY_PATH",
                                              "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
                                              "CUDA_DEVICE_MAX_CONNECTIONS", "LD_PRELOAD", "COURSE_RUNNER_SANDBOX"};
  return std::find(std::begin(kept), std::end(kept), name) != std::end(kept) || is_tool_variable(name);
}

bool cuda_tool_attached(char** envp) {
  for (char** e = envp ? envp : environ; e && *e; ++e)
    if (starts_with_any(*e, kAttachedToolPrefixes)) return true;
  return false;
}

bool nsight_compute_attached(char** envp) {
  for (char** e = envp ? envp : environ; e && *e; ++e) {
    const std::string_view entry = *e;
    if (entry.starts_with("NV_COMPUTE_PROFILER") || entry.starts_with("NCU_")) return true;
    if (entry.starts_with("CUDA_INJECTION64_PATH=") && entry.find("nsight-compute") != std::string_view::npos)
      return true;
  }
  return false;
}

const char* variable_in(char** envp, std::string_view name) {
  for (char** e = envp ? envp : environ; e && *e; ++e)
    if (std::string_view entry(*e); entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return *e + name.size() + 1;
  return nullptr;
}

std::string ended_how(int wait_status) {
  if (WIFSIGNALED(wait_status)) return "killed by signal " + std::to_string(WTERMSIG(wait_status));
  if (WIFEXITED(wait_status)) return "exited with code " + std::to_string(WEXITSTATUS(wait_status));
  return "ended";
}

FrontEndVerdict front_end_verdict(int wait_status, bool past_deadline) {
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == exit_code::kSanitizerFound) return {keys::kFound, ""};
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) return {keys::kClean, ""};
  if (past_deadline) return {keys::kHung, "compute-sanitizer had not finished at its limit and was ended"};
  return {keys::kFailed, "compute-sanitizer " + ended_how(wait_status)};
}

std::vector<std::string> sanitizer_front_end(const std::string& sanitizer, std::string_view tool) {
  static constexpr std::string_view kTools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
  constexpr int kPrintLimit = 10;
  if (std::find(std::begin(kTools), std::end(kTools), tool) == std::end(kTools)) return {};
  std::vector<std::string> argv{sanitizer, "--tool", std::string(tool), "--error-exitcode",
                                std::to_string(exit_code::kSanitizerFound), "--print-limit",
                                std::to_string(kPrintLimit)};
  if (tool == "memcheck") argv.insert(argv.end(), {"--report-api-errors", "no"});
  return argv;
}

}  // namespace harness::protocol
