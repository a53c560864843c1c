// main() of every runner program (runner.hpp): one implementation's launchers, the lab's problem definitions, and this
// command loop. It owns no buffer: it maps the referee's (device memory by CUDA IPC handle, host memory by the
// descriptor the referee sends on fd 5), runs its launcher when told, and reports its event time.
// Nothing here is trusted by the referee, which checks every output itself and bounds every time by its own clock.
#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/problem.hpp>
#include <harness/runner.hpp>

#include "mutations.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

namespace {

using nlohmann::json;

std::string unhex(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) out.push_back(static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16)));
  return out;
}

/// The `count` descriptors the referee sent on fd 5 before an "open" (runner.hpp), in order.
std::vector<int> receive_descriptors(std::size_t count) {
  if (count > harness::kMaxSharedBuffers) throw std::invalid_argument("too many host buffers");
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * harness::kMaxSharedBuffers)] = {};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(5, &message, MSG_CMSG_CLOEXEC);
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

bool reply(const json& j) {
  const std::string text = j.dump() + "\n";
  return ::write(4, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// The sandbox (runner.hpp) goes up from .preinit_array: after the C library and the shared libraries start, before
// any static initializer of this program, the implementation's included. What it put in force is kept in plain
// zero-initialized data, which no constructor runs over later. (The static check refuses a .preinit_array in a
// submission, where its entries would come first.)
bool g_seccomp = false;
int g_landlock_abi = 0;
bool g_tool_attached = false;
char g_sandbox_problem[160] = {};

void sandbox_before_everything(int, char**, char** envp) {
  // Under a CUDA tool too: compute-sanitizer's three fixtures are reported through it and every reference and stub
  // comes out clean, and ncu measures through it (H200, results/2026-11-24-h200-24a3b8e, -3ed633b, -cf3abb5); a
  // sanitized or profiled check must not be the one run in which a submission can start processes or write files.
  g_tool_attached = harness::cuda_tool_attached(envp);
  // COURSE_RUNNER_SANDBOX (the referee passes it on from its own environment, which the grader's allowlist
  // controls): "0" none, "seccomp" or "landlock" only that part; unset or anything else, all of it. The way out is
  // for a machine where a part keeps CUDA from working (scripts/gpu-check.sh tries each part on the GPU).
  unsigned parts = harness::kSandboxAll;
  if (const char* choice = harness::variable_in(envp, "COURSE_RUNNER_SANDBOX")) {
    const std::string_view c = choice;
    if (c == "0") parts = 0;
    else if (c == "seccomp") parts = harness::kSandboxAll & ~harness::kSandboxWrites;
    else if (c == "landlock") parts = harness::kSandboxWrites;
  }
  const harness::SandboxState state = harness::install_runner_sandbox(parts, envp);
  g_seccomp = state.seccomp;
  g_landlock_abi = state.landlock_abi;
  std::strncpy(g_sandbox_problem, state.problem.c_str(), sizeof g_sandbox_problem - 1);
}

__attribute__((section(".preinit_array"), used)) void (*const kSandbox)(int, char**, char**) =
    sandbox_before_everything;

}  // namespace

int main(int argc, char** argv) {
  using namespace harness;
  if (argc > 1 && std::string(argv[1]) == "--sandbox") {  // what this machine allows: for instructors' checks
    // Whether the run's own TMPDIR (/tmp where none is set) takes a new file under the sandbox, as it should.
    const char* tmp = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    const std::string probe = std::string(tmp) + "/.runner-sandbox-probe";
    bool tmpdir_writable = false;
    if (const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600); fd >= 0) {
      tmpdir_writable = true;
      ::close(fd);
      ::unlink(probe.c_str());
    }
    std::cout << json{{"seccomp", g_seccomp}, {"landlock_abi", g_landlock_abi}, {"tool_attached", g_tool_attached},
                      {"problem", g_sandbox_problem}, {"tmpdir_writable", tmpdir_writable}}
                     .dump()
              << "\n";
    return 0;
  }
  const auto& impls = implementations();
  if (impls.size() != 1) {
    std::cerr << "a runner links exactly one implementation; this one has " << impls.size() << "\n";
    return 114;
  }
  const Impl& impl = impls.begin()->second;
  if (argc > 1 && std::string(argv[1]) == "--list") {
    json names = json::array();
    for (const auto& [exercise, fn] : impl.launchers()) names.push_back(exercise);
    std::cout << names.dump() << "\n";
    return 0;
  }
  // `--mutate NAME`: a mutant (runner.hpp), which spoils its outputs after every run. The referee starts the
  // reference's runner so for the course's own tests; a student's runner gains nothing by it (it is checked the same).
  std::string mutation;
  if (argc == 3 && std::string(argv[1]) == "--mutate") {
    mutation = argv[2];
    const auto& known = runner::mutation_names();
    if (std::find(known.begin(), known.end(), mutation) == known.end()) {
      std::cerr << "unknown mutation '" << mutation << "'\n";
      return 2;
    }
  }

  FILE* commands = ::fdopen(3, "r");
  if (!commands) {
    std::cerr << "a runner is started by its lab binary (labN), which talks to it on fds 3 and 4\n";
    return 2;
  }
  // Spin rather than sleep while waiting for the GPU: the referee's clock around each command includes this wait.
  cudaSetDeviceFlags(cudaDeviceScheduleSpin);

  std::unique_ptr<Stream> stream;
  std::unique_ptr<Event> start, stop;
  // The CUDA context comes up now, before the first command, so that a referee which starts all its runners before it
  // opens any gets their contexts (0.1-0.3 s each) in parallel. A failure here is reported at the first command,
  // where the same calls are made again.
  try {
    stream = std::make_unique<Stream>();
    start = std::make_unique<Event>();
    stop = std::make_unique<Event>();
  } catch (const CudaError&) {
    stream.reset();
  }
  std::unique_ptr<Problem> problem;
  char* line = nullptr;
  std::size_t capacity = 0;
  while (::getline(&line, &capacity, commands) > 0) {
    json answer = {{"ok", true}};
    try {
      const json command = json::parse(line);
      const auto op = command.at("op").get<std::string>();
      if (!stream) {
        stream = std::make_unique<Stream>();
        start = std::make_unique<Event>();
        stop = std::make_unique<Event>();
      }
      if (op == "open") {
        problem.reset();
        // Device buffers come as hex IPC handles, host buffers as "fd", their descriptors already sent on fd 5.
        std::vector<BufferHandle> handles;
        std::vector<std::size_t> host_buffers;  // positions in `handles`
        for (const auto& h : command.at("handles")) {
          const auto text = h.get<std::string>();
          if (text == "fd") host_buffers.push_back(handles.size());
          handles.push_back({text == "fd" ? std::string() : unhex(text), -1});
        }
        if (!host_buffers.empty()) {
          const auto fds = receive_descriptors(host_buffers.size());
          for (std::size_t k = 0; k < fds.size(); ++k) handles[host_buffers[k]].fd = fds[k];
        }
        map_next_buffers(std::move(handles));
        const ExerciseSpec* spec = lab().find(command.at("exercise").get<std::string>());
        if (!spec) throw std::invalid_argument("unknown exercise");
        problem = spec->make(Shape::parse(command.at("shape").get<std::string>()));
        if (buffers_left_to_map() != 0) throw std::logic_error("the referee sent more buffers than the problem has");
      } else if (op == "run") {
        if (!problem) throw std::logic_error("run before open");
        start->record(stream->get());
        problem->run(impl, stream->get());
        CUDA_CHECK(cudaGetLastError());
        stop->record(stream->get());
        // Once the stream is done, a host output must be written: anything missing is work on the launcher's own
        // streams that it never made the stream wait for (the referee's verify() says so, Problem::first_unjoined()).
        stream->synchronize();
        if (const auto unjoined = problem->first_unjoined())
          answer["unjoined"] = json::array({unjoined->buffer, unjoined->element});
        // Everything the launcher started, on any stream, ends before the answer: the referee checks the output
        // right after it.
        CUDA_CHECK(cudaDeviceSynchronize());
        answer["ms"] = stop->elapsed_ms_since(*start);
      } else if (op == "prepare") {  // outside the referee's clock around "run"
        if (!problem) throw std::logic_error("prepare before open");
        problem->before_run(impl);
        CUDA_CHECK(cudaDeviceSynchronize());
      } else if (op == "finish") {  // likewise
        if (!problem) throw std::logic_error("finish before open");
        problem->after_run(impl);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!mutation.empty()) runner::mutate_outputs(*problem, mutation);
      } else if (op == "close") {
        problem.reset();
      } else {
        throw std::invalid_argument("unknown op '" + op + "'");
      }
    } catch (const CudaError& e) {
      answer = {{"ok", false}, {"error", e.what()}, {"sticky", e.sticky()}};
      if (e.sticky()) {
        reply(answer);
        return 110;  // the context is lost: the referee starts a fresh runner
      }
    } catch (const std::exception& e) {
      answer = {{"ok", false}, {"error", std::string("exception: ") + e.what()}};
    }
    if (!reply(answer)) return 0;
  }
  return 0;
}
