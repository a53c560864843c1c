// Experiment (issues 29, 31): what a CUDA process's start costs, part by part, and whether any setting of the
// process makes it cheaper. experiments/context_contention found that a host makes CUDA contexts one at a time (about
// four a second, whatever the number of GPUs), so every process grading starts is paid for by every worker of the
// host; a cheaper context would pay on every GPU count at once.
// For each variant, rounds of K processes started at once on GPU 0 (K = 1 three times, K = 8 twice), each reporting
// its clock marks (CLOCK_MONOTONIC): exec (fork to main), init (cuInit), context (the primary context made current:
// cudaFree(0)), work (a stream, two events, 1 MiB from the default pool, as a runner's setup does) and exit (last
// mark to reaped: the context's teardown). Variants: the default; only cuInit (no context); the context, then
// cudaDeviceReset() before exit; CUDA_DEVICE_MAX_CONNECTIONS=1 (one hardware work queue instead of 8);
// CUDA_MODULE_LOADING=EAGER (every kernel of the program loaded with the context); CUDA_DISABLE_UNIFIED_MEMORY=1
// (read by the driver, not documented: a context registered with the unified-memory driver, whose calls grew most
// with several workers in experiments/driver_lock, might skip that). Whether the driver honoured that last variable is
// told apart by one process more with it set, which tries cudaMallocManaged: `managed_with_uvm_disabled` (a managed
// allocation that fails says it did; no lab's code allocates managed memory).
// Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu -lcuda && ./bench > context_cost.json
#include <cuda.h>
#include <cuda_runtime.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "../cuda_check.cuh"

namespace {

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }

// The child of `managed_with_uvm_disabled`: "ok", or the error of a managed allocation, on fd 3.
int managed_child() {
  void* p = nullptr;
  const cudaError_t e = cudaMallocManaged(&p, 1 << 20);
  const std::string said = e == cudaSuccess ? "ok" : cudaGetErrorString(e);
  if (e == cudaSuccess) cudaFree(p);
  return write(3, said.data(), said.size()) == static_cast<ssize_t>(said.size()) ? 0 : 1;
}

// The child: "main init context work end" on fd 3.
int child(const std::string& variant) {
  if (variant == "managed_with_uvm_disabled") return managed_child();
  double marks[5] = {now_s(), 0, 0, 0, 0};
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  marks[1] = now_s();
  if (variant != "cuinit_only") {
    CHECK(cudaFree(nullptr));
    marks[2] = now_s();
    cudaStream_t s;
    cudaEvent_t a, b;
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    int* p = nullptr;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&p), 1 << 20, s));
    CHECK(cudaEventRecord(a, s));
    touch<<<1, 32, 0, s>>>(p);
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamSynchronize(s));
    marks[3] = now_s();
    if (variant == "reset_before_exit") CHECK(cudaDeviceReset());
  } else {
    marks[2] = marks[3] = marks[1];
  }
  marks[4] = now_s();
  char line[160];
  const int n = std::snprintf(line, sizeof line, "%.6f %.6f %.6f %.6f %.6f\n", marks[0], marks[1], marks[2], marks[3],
                              marks[4]);
  return write(3, line, static_cast<std::size_t>(n)) == n ? 0 : 1;
}

struct Process {
  pid_t pid = -1;
  int fd = -1;
  double fork_s = 0, reaped_s = 0;
  bool ok = false;
};

Process start(const std::string& variant, const std::string& self) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  Process p;
  p.fork_s = now_s();
  p.pid = fork();
  if (p.pid == 0) {
    dup2(fds[1], 3);
    close(fds[0]);
    if (fds[1] != 3) close(fds[1]);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    if (variant == "max_connections_1") setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
    if (variant == "module_loading_eager") setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    if (variant == "uvm_disabled" || variant == "managed_with_uvm_disabled")
      setenv("CUDA_DISABLE_UNIFIED_MEMORY", "1", 1);
    execl(self.c_str(), "bench", "child", variant.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  p.fd = fds[0];
  return p;
}

void round_of(const std::string& variant, int k, const std::string& self, bool first) {
  std::vector<Process> ps;
  const double t0 = now_s();
  for (int i = 0; i < k; ++i) ps.push_back(start(variant, self));
  for (std::size_t left = ps.size(); left > 0;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    const double t = now_s();
    for (auto& p : ps)
      if (p.pid == pid) {
        p.reaped_s = t;
        p.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        --left;
      }
  }
  const double wall = now_s() - t0;
  std::map<std::string, double> mean;
  int n = 0, failed = 0;
  for (auto& p : ps) {
    char buf[256] = {0};
    double m[5];
    const ssize_t got = read(p.fd, buf, sizeof buf - 1);
    close(p.fd);
    if (!p.ok || got <= 0 || std::sscanf(buf, "%lf %lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3], &m[4]) != 5) {
      ++failed;
      continue;
    }
    ++n;
    mean["exec"] += m[0] - p.fork_s;
    mean["init"] += m[1] - m[0];
    mean["context"] += m[2] - m[1];
    mean["work"] += m[3] - m[2];
    mean["teardown_call"] += m[4] - m[3];
    mean["exit"] += p.reaped_s - m[4];
    mean["process"] += p.reaped_s - p.fork_s;
  }
  std::printf("%s    {\"variant\": \"%s\", \"processes\": %d, \"wall_s\": %.4f, \"processes_per_s\": %.3f, "
              "\"failed\": %d",
              first ? "" : ",\n", variant.c_str(), k, wall, k / wall, failed);
  for (const auto& [name, v] : mean) std::printf(", \"%s_s\": %.4f", name.c_str(), v / (n > 0 ? n : 1));
  std::printf("}");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "child") == 0) return child(argv[2]);
  char self[4096] = {0};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  CHECK(cudaDeviceReset());
  std::printf("{\n  \"gpu\": \"%s\", \"cpus\": %ld,\n  \"rounds\": [\n", prop.name, sysconf(_SC_NPROCESSORS_ONLN));
  bool first = true;
  for (const char* variant : {"default", "cuinit_only", "reset_before_exit", "max_connections_1",
                              "module_loading_eager", "uvm_disabled", "default"})
    for (const int k : {1, 1, 1, 8, 8}) {
      round_of(variant, k, self, first);
      first = false;
    }
  Process managed = start("managed_with_uvm_disabled", self);
  int status = 0;
  waitpid(managed.pid, &status, 0);
  char said[256] = {0};
  const ssize_t got = read(managed.fd, said, sizeof said - 1);
  close(managed.fd);
  std::string text = got > 0 ? std::string(said, static_cast<std::size_t>(got)) : "no answer";
  for (char& c : text)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = ' ';
  std::printf("\n  ],\n  \"managed_with_uvm_disabled\": \"%s\"\n}\n", text.c_str());
  return 0;
}
