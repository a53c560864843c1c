// main() of every runner program (referee/include/harness/runner.hpp): one implementation's launchers (or the course's
// reference's and baseline's), the lab's problem definitions, and this command loop. It owns no buffer: it maps the
// referee's (device memory by CUDA IPC handle, host memory by the descriptor the referee sends on fd 5), runs its
// launcher when told, and reports its event time. Nothing here is trusted by the referee, which checks every output
// itself and bounds every time by its own clock; what this file guarantees is what the implementation's code can reach
// (sandbox.hpp):
//   .preinit_array        stage 1 (seccomp, Landlock writes), before any code the program links runs
//   constructor(101)      the CUDA context, stream and events, then stage 2 (no threads, files or code of its own),
//                         before the static initializers of the implementation, which run after it
//   main                  the command loop; the implementation's launcher runs only in "run" and its hooks
#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/problem.hpp>
#include <harness/protocol.hpp>
#include <harness/sandbox.hpp>

#include "mutations.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace {

using nlohmann::json;
namespace protocol = harness::protocol;

bool reply(const json& j) {
  const std::string text = j.dump() + "\n";
  return ::write(protocol::kReplyFd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// Stage 1 goes up from .preinit_array: after the C library and the shared libraries start, before any static
// initializer of this program, the implementation's included. What it put in force is kept in plain
// zero-initialized data, which no constructor runs over later. (The static check refuses a .preinit_array, a
// prioritized constructor and an indirect function in a submission, each of which would run ahead of these.)
bool g_seccomp = false;
int g_landlock_abi = 0;
bool g_tool_attached = false;
char g_sandbox_problem[160] = {};

void sandbox_before_everything(int, char**, char** envp) {
  // Under a CUDA tool too: compute-sanitizer's fixtures are reported through it and every reference and stub comes
  // out clean, and ncu measures through it; a sanitized or profiled check must not be the one run in which a
  // submission can start processes or write files.
  g_tool_attached = protocol::cuda_tool_attached(envp);
  // COURSE_RUNNER_SANDBOX (the referee passes it on from its own environment, which the grader's allowlist
  // controls): "0" none, "seccomp" or "landlock" only that part; unset or anything else, all of it. The way out is
  // for a machine where a part keeps CUDA from working (scripts/gpu-check.sh tries each part on the GPU).
  unsigned parts = harness::kSandboxAll;
  if (const char* choice = protocol::variable_in(envp, "COURSE_RUNNER_SANDBOX")) {
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

/// What the runner made before the implementation's code could run, in a constructor that runs ahead of every
/// other static initializer of the program.
struct Setup {
  std::unique_ptr<harness::Stream> stream;
  std::unique_ptr<harness::Event> start, stop;
  std::string error;  // why the CUDA setup failed (reported at every command), else empty
  harness::LockdownState lockdown;
  bool tmpdir_writable = false;  // `--sandbox`: whether stage 1 let the run's TMPDIR take a new file
  bool context_lost = false;     // a sticky CUDA error: every later CUDA call fails

  // The stream and events, destroyed when main() returns, while the CUDA runtime is still up: left to this static
  // object's destructor they would go after the runtime has unloaded, and each destroy would fail and print so (a
  // runner under compute-sanitizer's front end ended with three such lines). After a sticky error they are let go.
  void release_cuda() {
    if (context_lost) {
      (void)stop.release();
      (void)start.release();
      (void)stream.release();
      return;
    }
    stop.reset();
    start.reset();
    stream.reset();
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

/// `--sandbox` (what this machine allows, for instructors' checks): whether the run's TMPDIR, /tmp where none is
/// set, takes a new file under stage 1, as it should.
bool tmpdir_writable(char** envp) {
  const char* tmp = protocol::variable_in(envp, "TMPDIR");
  const std::string probe = std::string(tmp && *tmp == '/' ? tmp : "/tmp") + "/.runner-sandbox-probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

__attribute__((constructor(101))) void set_up_then_lock_down(int argc, char** argv, char** envp) {
  Setup& s = setup();
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "--sandbox") s.tmpdir_writable = tmpdir_writable(envp);
  // `--list` names the launchers: no GPU, no context.
  if (mode != "--list") {
    try {
      // Spin rather than sleep while waiting for the GPU: the referee's clock around each command includes this
      // wait.
      CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
      s.stream = std::make_unique<harness::Stream>();
      s.start = std::make_unique<harness::Event>();
      s.stop = std::make_unique<harness::Event>();
      // The default memory pool's first allocation opens a device file (experiments/runner_lockdown): made here, so
      // that a launcher's cudaMallocAsync works once opening files is refused.
      void* warm = nullptr;
      CUDA_CHECK(cudaMallocAsync(&warm, 1 << 20, s.stream->get()));
      CUDA_CHECK(cudaFreeAsync(warm, s.stream->get()));
      s.stream->synchronize();
    } catch (const harness::CudaError& e) {
      s.error = e.what();
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  }
  s.lockdown = harness::lock_down(harness::lockdown_parts(envp));
  // Started by a referee (fd 3 is its command pipe) and no CUDA tool following: stop here, before the
  // implementation's static initializers, so that the referee sees this process's threads and executable mappings
  // as the course made them (runner.hpp: it compares them after every command). Under a tool, which keeps threads of
  // its own in the process, the referee neither waits for nor compares them.
  const bool commanded = mode.empty() || mode == "--mutate";
  if (commanded && ::fcntl(protocol::kCommandFd, F_GETFD) != -1 && !g_tool_attached) ::raise(SIGSTOP);
}

/// `--sandbox`, after both stages: what a submission's code would meet (each true when the kernel refused it).
json lockdown_probes() {
  bool thread_refused = false;
  try {
    std::thread([] {}).join();
  } catch (const std::system_error&) {
    thread_refused = true;
  }
  const int fd = ::open("/etc/hostname", O_RDONLY | O_CLOEXEC);
  const bool open_refused = fd < 0 && errno == EPERM;
  if (fd >= 0) ::close(fd);
  void* code = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool code_refused = code == MAP_FAILED && errno == EPERM;
  if (code != MAP_FAILED) ::munmap(code, 4096);
  return {{"thread_refused", thread_refused}, {"open_refused", open_refused}, {"exec_mapping_refused", code_refused}};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace harness;
  Setup& s = setup();
  struct ReleaseAtReturn {
    Setup& s;
    ~ReleaseAtReturn() { s.release_cuda(); }
  } release_at_return{s};  // declared first: ends last, after the problems below
  if (argc > 1 && std::string(argv[1]) == "--sandbox") {  // what this machine allows: for instructors' checks
    std::cout << json{{"seccomp", g_seccomp},
                      {"landlock_abi", g_landlock_abi},
                      {"tool_attached", g_tool_attached},
                      {"problem", g_sandbox_problem},
                      {"tmpdir_writable", s.tmpdir_writable},
                      {"cuda", s.error.empty() ? "ok" : s.error},
                      {"lockdown",
                       {{"threads", (s.lockdown.parts & kLockThreads) != 0},
                        {"files", (s.lockdown.parts & kLockFiles) != 0},
                        {"code", (s.lockdown.parts & kLockCode) != 0},
                        {"problem", s.lockdown.problem},
                        {"probes", lockdown_probes()}}}}
                     .dump()
              << "\n";
    return 0;
  }
  // One implementation, or the course's several (the reference's and the baseline's, which `labN time` runs in one
  // process): then each "prepare", "run" and "finish" names the one it is for, and `--list NAME` lists one's launchers.
  const auto& impls = implementations();
  if (impls.empty()) {
    std::cerr << "a runner links at least one implementation; this one has none\n";
    return 114;
  }
  const auto impl_named = [&](const std::string& name) -> const Impl* {
    if (name.empty()) return impls.size() == 1 ? &impls.begin()->second : nullptr;
    const auto it = impls.find(name);
    return it == impls.end() ? nullptr : &it->second;
  };
  if (argc > 1 && std::string(argv[1]) == "--list") {
    const Impl* listed = impl_named(argc > 2 ? argv[2] : "");
    if (!listed) {
      std::cerr << "--list NAME: name one of this runner's " << impls.size() << " implementations\n";
      return 2;
    }
    json names = json::array();
    for (const auto& [exercise, fn] : listed->launchers()) names.push_back(exercise);
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

  FILE* commands = ::fdopen(protocol::kCommandFd, "r");
  if (!commands) {
    std::cerr << "a runner is started by its lab binary (labN), which talks to it on fds 3 and 4\n";
    return 2;
  }
  // The open problem, for the implementation that first runs on it; each other implementation of a runner of several
  // gets a Problem of its own over the same buffers (mapped once, by `problem`), so that what a problem keeps of an
  // implementation (lab 07's pinned_memory: its allocator's arrays) is that implementation's.
  std::unique_ptr<Problem> problem;
  std::string problem_impl;
  std::map<std::string, std::unique_ptr<Problem>> others;
  const ExerciseSpec* open_spec = nullptr;
  std::string open_shape;
  const auto forget = [&] {
    others.clear();  // before `problem`, whose mappings they use
    problem.reset();
    problem_impl.clear();
  };
  const auto problem_of = [&](const Impl& impl) -> Problem& {
    if (problem_impl.empty()) problem_impl = impl.name();
    if (impl.name() == problem_impl) return *problem;
    auto& other = others[impl.name()];
    if (!other) {
      std::vector<BufferHandle> mapped;
      for (const Buffer* b : problem->buffers()) mapped.push_back(b->alias_handle());
      map_next_buffers(std::move(mapped));
      other = open_spec->make(Shape::parse(open_shape));
      if (buffers_left_to_map() != 0) throw std::logic_error("a problem of the same exercise has other buffers");
    }
    return *other;
  };
  char* line = nullptr;
  std::size_t capacity = 0;
  while (::getline(&line, &capacity, commands) > 0) {
    json answer = {{"ok", true}};
    try {
      const json command = json::parse(line);
      const auto op = command.at("op").get<std::string>();
      // The implementation a "prepare", "run" or "finish" is for: the one this runner links, or the one it names.
      const auto chosen = [&]() -> const Impl& {
        const Impl* impl = impl_named(command.value("impl", std::string()));
        if (!impl) throw std::invalid_argument("no such implementation in this runner");
        return *impl;
      };
      // The context is made once, before the implementation's code ran; a runner whose setup failed cannot make it
      // now (threads and files are refused): it says why and ends, and the referee starts another for the next case.
      if (!s.error.empty()) {
        s.context_lost = true;  // what the setup made may be unusable too
        reply({{"ok", false}, {"error", "the runner's CUDA setup failed: " + s.error}, {"sticky", true}});
        return 110;
      }
      if (op == "open") {
        forget();
        // Device buffers come as hex IPC handles, host buffers as "fd", their descriptors already sent on fd 5.
        std::vector<BufferHandle> handles;
        std::vector<std::size_t> host_buffers;  // positions in `handles`
        for (const auto& h : command.at("handles")) {
          const auto text = h.get<std::string>();
          if (text == "fd") host_buffers.push_back(handles.size());
          handles.push_back({text == "fd" ? std::string() : protocol::unhex(text), -1});
        }
        if (!host_buffers.empty()) {
          const auto fds = protocol::receive_descriptors(protocol::kDescriptorFd, host_buffers.size());
          for (std::size_t k = 0; k < fds.size(); ++k) handles[host_buffers[k]].fd = fds[k];
        }
        map_next_buffers(std::move(handles));
        const ExerciseSpec* spec = lab().find(command.at("exercise").get<std::string>());
        if (!spec) throw std::invalid_argument("unknown exercise");
        problem = spec->make(Shape::parse(command.at("shape").get<std::string>()));
        if (buffers_left_to_map() != 0) throw std::logic_error("the referee sent more buffers than the problem has");
        open_spec = spec;
        open_shape = command.at("shape").get<std::string>();
      } else if (op == "run") {
        if (!problem) throw std::logic_error("run before open");
        const Impl& impl = chosen();
        Problem& p = problem_of(impl);
        s.start->record(s.stream->get());
        p.run(impl, s.stream->get());
        CUDA_CHECK(cudaGetLastError());
        s.stop->record(s.stream->get());
        // Once the stream is done, a host output must be written: anything missing is work on the launcher's own
        // streams that it never made the stream wait for (the referee's verify() says so, Problem::first_unjoined()).
        s.stream->synchronize();
        if (const auto unjoined = p.first_unjoined())
          answer["unjoined"] = json::array({unjoined->buffer, unjoined->element});
        // Everything the launcher started, on any stream, ends before the answer: the referee checks the output
        // right after it.
        CUDA_CHECK(cudaDeviceSynchronize());
        answer["ms"] = s.stop->elapsed_ms_since(*s.start);
      } else if (op == "prepare") {  // outside the referee's clock around "run"
        if (!problem) throw std::logic_error("prepare before open");
        const Impl& impl = chosen();
        problem_of(impl).before_run(impl);
        CUDA_CHECK(cudaDeviceSynchronize());
      } else if (op == "finish") {  // likewise
        if (!problem) throw std::logic_error("finish before open");
        const Impl& impl = chosen();
        Problem& p = problem_of(impl);
        p.after_run(impl);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!mutation.empty()) runner::mutate_outputs(p, mutation);
      } else if (op == "close") {
        forget();
      } else {
        throw std::invalid_argument("unknown op '" + op + "'");
      }
    } catch (const CudaError& e) {
      answer = {{"ok", false}, {"error", e.what()}, {"sticky", e.sticky()}};
      if (e.sticky()) {
        s.context_lost = true;
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
