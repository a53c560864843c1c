// Experiment (issue 31): what two grading workers on two GPUs of one host share when each makes and ends CUDA
// processes as fast as grading does (a student's grading starts hundreds: every check, sanitizer and timed run is a
// referee and its runners, each with its own CUDA context).
// One "round" starts K processes per GPU at once (CUDA_VISIBLE_DEVICES=g), each making its context (cudaFree(0)),
// allocating and clearing 256 MiB as a referee's problem does, and exiting; the parent reaps them. Every process
// reports its own clock marks (CLOCK_MONOTONIC, shared by the host's processes), so a round splits into exec (fork to
// main), context, alloc and exit (last mark to reaped: the context's teardown). If the driver serializes context
// creation or teardown across GPUs, K per GPU on two GPUs takes as long per process as 2K on one; if each GPU is on its
// own, as long as K on one. Then the same with each process under compute-sanitizer memcheck (the sanitizer gate).
// Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > context_contention.json
#include <cuda_runtime.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

// The child: its clock marks on fd 3 as "main context alloc end".
int child() {
  const double main_s = now_s();
  CHECK(cudaFree(nullptr));
  const double context_s = now_s();
  void* p = nullptr;
  CHECK(cudaMalloc(&p, std::size_t{256} << 20));
  CHECK(cudaMemset(p, 0, std::size_t{256} << 20));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(p));
  const double alloc_s = now_s();
  char line[128];
  const int n = std::snprintf(line, sizeof line, "%.6f %.6f %.6f %.6f\n", main_s, context_s, alloc_s, now_s());
  if (write(3, line, static_cast<std::size_t>(n)) != n) return 1;
  return 0;  // the context is torn down at exit, as in every grading process
}

struct Process {
  pid_t pid = -1;
  int fd = -1;
  double fork_s = 0, reaped_s = 0;
  double marks[4] = {0, 0, 0, 0};
  bool ok = false;
};

// One child on GPU `gpu`, its marks read from a pipe on its fd 3; under compute-sanitizer memcheck when `sanitized`.
Process start(int gpu, bool sanitized, const std::string& self) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  Process p;
  p.fork_s = now_s();
  p.pid = fork();
  if (p.pid == 0) {
    dup2(fds[1], 3);
    close(fds[0]);
    if (fds[1] != 3) close(fds[1]);
    dup2(2, 1);  // what compute-sanitizer prints goes to stderr, not into the JSON
    setenv("CUDA_VISIBLE_DEVICES", std::to_string(gpu).c_str(), 1);
    if (sanitized)
      execlp("compute-sanitizer", "compute-sanitizer", "--tool", "memcheck", "--print-limit", "1", self.c_str(),
             "child", static_cast<char*>(nullptr));
    else
      execl(self.c_str(), "bench", "child", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  p.fd = fds[0];
  return p;
}

struct RoundResult {
  double wall = 0;
  std::map<std::string, double> mean;  // seconds a process, by phase
  int failed = 0;
};

RoundResult round_of(int gpus, int per_gpu, bool sanitized, const std::string& self) {
  std::vector<Process> ps;
  const double t0 = now_s();
  for (int k = 0; k < per_gpu; ++k)
    for (int g = 0; g < gpus; ++g) ps.push_back(start(g, sanitized, self));
  std::size_t left = ps.size();
  while (left > 0) {
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
  RoundResult r;
  r.wall = now_s() - t0;
  int n = 0;
  for (auto& p : ps) {
    char buf[256] = {0};
    const ssize_t got = read(p.fd, buf, sizeof buf - 1);
    close(p.fd);
    if (!p.ok || got <= 0 ||
        std::sscanf(buf, "%lf %lf %lf %lf", &p.marks[0], &p.marks[1], &p.marks[2], &p.marks[3]) != 4) {
      ++r.failed;
      continue;
    }
    ++n;
    r.mean["exec"] += p.marks[0] - p.fork_s;
    r.mean["context"] += p.marks[1] - p.marks[0];
    r.mean["alloc"] += p.marks[2] - p.marks[1];
    r.mean["exit"] += p.reaped_s - p.marks[3];
    r.mean["process"] += p.reaped_s - p.fork_s;
  }
  for (auto& [k, v] : r.mean) v /= std::max(n, 1);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) return child();
  char self[4096] = {0};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // The parent holds no context while the children run: cudaGetDeviceCount made one only if the runtime chose to.
  CHECK(cudaDeviceReset());
  std::printf("{\n  \"gpu\": \"%s\", \"gpus\": %d, \"cpus\": %ld,\n  \"rounds\": [\n", prop.name, devices,
              sysconf(_SC_NPROCESSORS_ONLN));
  bool first = true;
  const auto sweep = [&](bool sanitized, const std::vector<int>& per_gpus, int repeats) {
    for (int gpus = 1; gpus <= devices; gpus *= 2)  // 1, 2, 4, 8 of the host's GPUs
      for (int per_gpu : per_gpus)
        for (int rep = 0; rep < repeats; ++rep) {
          const RoundResult r = round_of(gpus, per_gpu, sanitized, self);
          std::printf("%s    {\"sanitized\": %s, \"gpus\": %d, \"per_gpu\": %d, \"wall_s\": %.4f, "
                      "\"processes_per_s\": %.3f, \"failed\": %d",
                      first ? "" : ",\n", sanitized ? "true" : "false", gpus, per_gpu, r.wall,
                      gpus * per_gpu / r.wall, r.failed);
          for (const auto& [k, v] : r.mean) std::printf(", \"%s_s\": %.4f", k.c_str(), v);
          std::printf("}");
          std::fflush(stdout);
          first = false;
        }
  };
  sweep(false, {1, 4, 8, 12}, 3);
  sweep(true, {1, 4}, 2);
  std::printf("\n  ]\n}\n");
  return 0;
}
