// Which part of the runner's stage-1 sandbox (harness/sandbox.hpp, SandboxPart) does the CUDA driver need? Each line:
// a child that installs some parts, then starts CUDA (cudaFree(0), a stream, an IPC handle of its own allocation) and
// says what failed. Run on the GPU machine; build: nvcc -std=c++17 -Iharness/common/include -Iharness/runner/include
// experiments/sandbox_probe/probe.cpp harness/runner/src/sandbox.cpp harness/common/src/protocol.cpp -o /tmp/probe
#include <harness/sandbox.hpp>

#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

const char* step(cudaError_t e) { return e == cudaSuccess ? "ok" : cudaGetErrorName(e); }

void try_parts(unsigned parts, const char* label) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const auto state = harness::install_runner_sandbox(parts);
    const cudaError_t init = cudaFree(nullptr);
    cudaStream_t s = nullptr;
    const cudaError_t stream = cudaStreamCreate(&s);
    void* p = nullptr;
    const cudaError_t alloc = cudaMalloc(&p, 1 << 20);
    cudaIpcMemHandle_t h{};
    const cudaError_t ipc = alloc == cudaSuccess ? cudaIpcGetMemHandle(&h, p) : alloc;
    std::printf("%-22s parts=0x%02x seccomp=%d landlock=%d  init=%s stream=%s malloc=%s ipc=%s %s\n", label, parts,
                state.seccomp, state.landlock_abi, step(init), step(stream), step(alloc), step(ipc),
                state.problem.c_str());
    std::fflush(stdout);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) std::printf("%-22s parts=0x%02x died (status %d)\n", label, parts, status);
}

}  // namespace

int main() {
  using namespace harness;
  const std::vector<std::pair<unsigned, const char*>> parts = {
      {kSandboxWrites, "writes"},   {kSandboxProcesses, "processes"}, {kSandboxExec, "exec"},
      {kSandboxTracing, "tracing"}, {kSandboxSignals, "signals"},     {kSandboxPidfds, "pidfds"}};
  try_parts(0, "none");
  try_parts(kSandboxAll, "all");
  for (const auto& [bit, name] : parts) try_parts(bit, (std::string("only ") + name).c_str());
  for (const auto& [bit, name] : parts) try_parts(kSandboxAll & ~bit, (std::string("all but ") + name).c_str());
}
