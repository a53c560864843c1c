// What does a CUDA process do after its setup, and how fast does an idle GPU answer? Two measurements for the
// runners' second sandbox stage (docs/threat-model.md), run by scripts/gpu-check.sh's experiments phase and, under
// compute-sanitizer and ncu, by profile.sh:
//
// 1. A runner's life after setup. A child process, made like a runner (CUDA context, stream and events from a
//    constructor that runs before the program's other static initializers), puts up a seccomp filter and then does,
//    one step at a time, what a runner and a launcher do: open the parent's buffers by CUDA IPC handle, page-lock a
//    memfd the parent sent, launch kernels (the first launch of each loads it), make streams, events, pinned memory,
//    memory-pool allocations, a host callback, a device printf, ... For each step: the CUDA result, the threads that
//    appeared (from /proc/self/task) and the executable mappings that appeared (from /proc/self/maps).
//    Mode `log`: the filter traps open, openat, openat2 and creat and every mapping or protection change with
//    PROT_EXEC, records the call (and the path), and makes it on the program's behalf: what the step needs, listed.
//    Mode `enforce`: the filter refuses those calls and every clone (threads too): which steps still work.
// 2. The idle probe: an empty kernel launched by the parent and waited for (host clock, spinning), 2000 times on an
//    idle GPU, then while a child process keeps the GPU busy (one long kernel; kernels of 50 us back to back; a full
//    grid): how far apart "idle" and "busy" lie, for a check before every timed run.
//
// Output: one JSON object on stdout. Build: nvcc -O3 -std=c++17 -arch=sm_90 bench.cu -o bench (x86-64 Linux).
#include <cuda_runtime.h>

#include <dirent.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

// A system call made from one known instruction, which the log filter lets through: the SIGSYS handler makes the
// trapped calls on the program's behalf here, and the probe reads /proc through it without logging itself.
extern "C" long lockdown_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
extern "C" char lockdown_syscall_after[];
asm(R"(
  .text
  .globl lockdown_syscall
  .type lockdown_syscall, @function
lockdown_syscall:
  mov %rdi, %rax
  mov %rsi, %rdi
  mov %rdx, %rsi
  mov %rcx, %rdx
  mov %r8, %r10
  mov %r9, %r8
  mov 8(%rsp), %r9
  syscall
  .globl lockdown_syscall_after
lockdown_syscall_after:
  ret
)");

namespace {

__global__ void touch(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * 2.0f + 1.0f;
}
__global__ void other_kernel(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}
__global__ void says_hello() {
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("device printf from the probe\n");
}
__global__ void empty() {}
/// Spins until the global timer has moved `ns` nanoseconds.
__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

const char* name_of(cudaError_t e) { return e == cudaSuccess ? "ok" : cudaGetErrorName(e); }

// ---- the child: a runner's life after setup ----

struct Trapped {
  int step;
  long nr;
  long prot;
  char path[120];
};
Trapped g_trapped[1024];
std::atomic<int> g_trapped_count{0};
std::atomic<int> g_step{-1};

void on_sigsys(int, siginfo_t* info, void* context) {
  auto* r = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  const long nr = info->si_syscall;
  const int k = g_trapped_count.fetch_add(1);
  if (k < 1024) {
    Trapped& t = g_trapped[k];
    t.step = g_step.load();
    t.nr = nr;
    t.prot = (nr == SYS_mmap || nr == SYS_mprotect || nr == SYS_pkey_mprotect) ? r[REG_RDX] : 0;
    const char* path = nullptr;
    if (nr == SYS_open || nr == SYS_creat) path = reinterpret_cast<const char*>(r[REG_RDI]);
    if (nr == SYS_openat || nr == SYS_openat2) path = reinterpret_cast<const char*>(r[REG_RSI]);
    std::size_t n = 0;
    for (; path && n + 1 < sizeof t.path && path[n]; ++n) t.path[n] = path[n];
    t.path[n] = 0;
  }
  r[REG_RAX] = lockdown_syscall(nr, r[REG_RDI], r[REG_RSI], r[REG_RDX], r[REG_R10], r[REG_R8], r[REG_R9]);
}

sock_filter stmt(std::uint16_t code, std::uint32_t k) { return sock_filter BPF_STMT(code, k); }
sock_filter jump(std::uint16_t code, std::uint32_t k, std::uint8_t t, std::uint8_t f) {
  return sock_filter BPF_JUMP(code, k, t, f);
}

/// The filter of mode `log` (trap, the handler makes the call) or `enforce` (refuse; every clone refused too).
bool install_filter(bool enforce) {
  const std::uint32_t verdict = enforce ? (SECCOMP_RET_ERRNO | EPERM) : SECCOMP_RET_TRAP;
  const auto ip = reinterpret_cast<std::uint64_t>(lockdown_syscall_after);
  const std::uint32_t ip_at = offsetof(seccomp_data, instruction_pointer);
  std::vector<sock_filter> p = {
      stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)), jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      // The probe's own instruction: allowed (log mode only; the enforce mode has no handler to call it).
      stmt(BPF_LD | BPF_W | BPF_ABS, ip_at), jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(ip), 0, 3),
      stmt(BPF_LD | BPF_W | BPF_ABS, ip_at + 4), jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(ip >> 32), 0, 1),
      stmt(BPF_RET | BPF_K, enforce ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW),
      stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))};
  for (std::uint32_t nr : {SYS_open, SYS_openat, SYS_openat2, SYS_creat})
    p.insert(p.end(), {jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1), stmt(BPF_RET | BPF_K, verdict)});
  for (std::uint32_t nr : {SYS_mmap, SYS_mprotect, SYS_pkey_mprotect})
    p.insert(p.end(), {jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4),
                       stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[2])),
                       jump(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1), stmt(BPF_RET | BPF_K, verdict),
                       stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)});
  if (enforce) {
    p.insert(p.end(), {jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 1), stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)});
    p.insert(p.end(), {jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1), stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS)});
  }
  p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  if (!enforce) {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, nullptr) != 0) return false;
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  sock_fprog prog{static_cast<unsigned short>(p.size()), p.data()};
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0;
}

/// The whole of a small /proc file, read through the probe's own instruction (not logged, not refused in log mode).
std::string read_proc(const char* path) {
  const long fd = lockdown_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) return {};
  std::string text;
  char buffer[4096];
  for (long n; (n = lockdown_syscall(SYS_read, fd, reinterpret_cast<long>(buffer), sizeof buffer, 0, 0, 0)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  lockdown_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
  return text;
}

/// "tid:name" of every thread of this process.
std::set<std::string> threads() {
  std::set<std::string> out;
  const long fd = lockdown_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/task"),
                                   O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) return out;
  alignas(8) char buffer[8192];
  for (long n; (n = lockdown_syscall(SYS_getdents64, fd, reinterpret_cast<long>(buffer), sizeof buffer, 0, 0, 0)) > 0;)
    for (long at = 0; at < n;) {
      auto* d = reinterpret_cast<dirent64*>(buffer + at);
      at += d->d_reclen;
      if (d->d_name[0] == '.') continue;
      std::string comm = read_proc(("/proc/self/task/" + std::string(d->d_name) + "/comm").c_str());
      while (!comm.empty() && comm.back() == '\n') comm.pop_back();
      out.insert(std::string(d->d_name) + ":" + comm);
    }
  lockdown_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
  return out;
}

/// The executable mappings: "start-end path" lines of /proc/self/maps with x in their permissions.
std::set<std::string> exec_maps() {
  std::set<std::string> out;
  const std::string maps = read_proc("/proc/self/maps");
  for (std::size_t at = 0; at < maps.size();) {
    std::size_t end = maps.find('\n', at);
    if (end == std::string::npos) end = maps.size();
    const std::string line = maps.substr(at, end - at);
    at = end + 1;
    const auto space = line.find(' ');
    if (space == std::string::npos || line.size() < space + 4 || line[space + 3] != 'x') continue;
    const auto path = line.find('/');
    const auto bracket = line.find('[');
    out.insert(line.substr(0, space) + " " +
               (path != std::string::npos ? line.substr(path) : bracket != std::string::npos ? line.substr(bracket) : ""));
  }
  return out;
}

std::string json_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    s += (i ? ", \"" : "\"");
    for (char c : items[i]) s += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    s += "\"";
  }
  return s + "]";
}

template <class Set>
std::vector<std::string> added(const Set& before, const Set& after) {
  std::vector<std::string> out;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(out));
  return out;
}

// The runner's setup, made from a constructor that runs before the program's other static initializers (as the
// runners' own stage-2 constructor does), only in a child started as `bench --child MODE`.
cudaStream_t g_stream = nullptr;
cudaEvent_t g_start = nullptr, g_stop = nullptr;
cudaError_t g_setup = cudaErrorUnknown;
std::set<std::string> g_threads_at_setup, g_maps_at_setup;

__attribute__((constructor(101))) void runner_setup(int argc, char** argv, char**) {
  if (argc < 3 || std::strcmp(argv[1], "--child") != 0) return;
  cudaSetDeviceFlags(cudaDeviceScheduleSpin);
  g_setup = cudaFree(nullptr);
  if (g_setup == cudaSuccess) g_setup = cudaStreamCreate(&g_stream);
  if (g_setup == cudaSuccess) g_setup = cudaEventCreate(&g_start);
  if (g_setup == cudaSuccess) g_setup = cudaEventCreate(&g_stop);
}

void host_callback(void* flag) { *static_cast<int*>(flag) = 1; }

int child(const std::string& mode) {
  const bool enforce = mode == "enforce";
  // fd 3: the socket with the parent's IPC handle and memfd; fd 4: where the JSON goes.
  cudaIpcMemHandle_t handle{};
  int memfd = -1;
  {
    char control[CMSG_SPACE(sizeof(int))] = {};
    iovec iov{&handle, sizeof handle};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    if (recvmsg(3, &m, 0) != static_cast<ssize_t>(sizeof handle)) return 2;
    if (cmsghdr* h = CMSG_FIRSTHDR(&m)) std::memcpy(&memfd, CMSG_DATA(h), sizeof memfd);
  }
  g_threads_at_setup = threads();
  g_maps_at_setup = exec_maps();
  const bool installed = install_filter(enforce);
  std::string out = "{\"mode\": \"" + mode + "\", \"setup\": \"" + name_of(g_setup) +
                    "\", \"filter\": " + (installed ? "true" : "false") +
                    ", \"threads_at_setup\": " + json_list({g_threads_at_setup.begin(), g_threads_at_setup.end()}) +
                    ", \"exec_maps_at_setup\": " + std::to_string(g_maps_at_setup.size()) + ", \"steps\": [";

  constexpr int n = 1 << 20;
  constexpr std::size_t host_bytes = 16u << 20;
  float* d = nullptr;
  void* host = nullptr;
  float* pinned = nullptr;
  cudaStream_t own = nullptr;
  cudaEvent_t own_event = nullptr;
  std::vector<float> pageable(n);
  int flag = 0;
  struct Step {
    const char* name;
    cudaError_t (*run)(void*);
  };
  struct State {
    cudaIpcMemHandle_t* handle;
    int memfd;
    float** d;
    void** host;
    float** pinned;
    cudaStream_t* own;
    cudaEvent_t* own_event;
    float* pageable;
    int* flag;
  } s{&handle, memfd, &d, &host, &pinned, &own, &own_event, pageable.data(), &flag};
  const Step steps[] = {
      {"ipc_open", [](void* v) {
         auto* s = static_cast<State*>(v);
         return cudaIpcOpenMemHandle(reinterpret_cast<void**>(s->d), *s->handle, cudaIpcMemLazyEnablePeerAccess);
       }},
      {"first_launch", [](void* v) {
         auto* s = static_cast<State*>(v);
         cudaEventRecord(g_start, g_stream);
         touch<<<n / 256, 256, 0, g_stream>>>(*s->d, n);
         cudaEventRecord(g_stop, g_stream);
         const cudaError_t e = cudaGetLastError();
         return e != cudaSuccess ? e : cudaStreamSynchronize(g_stream);
       }},
      {"launch_again", [](void* v) {
         touch<<<n / 256, 256, 0, g_stream>>>(*static_cast<State*>(v)->d, n);
         const cudaError_t e = cudaGetLastError();
         return e != cudaSuccess ? e : cudaStreamSynchronize(g_stream);
       }},
      {"event_elapsed", [](void*) {
         float ms = 0;
         return cudaEventElapsedTime(&ms, g_start, g_stop);
       }},
      {"another_kernel", [](void* v) {
         other_kernel<<<n / 256, 256, 0, g_stream>>>(*static_cast<State*>(v)->d, n);
         const cudaError_t e = cudaGetLastError();
         return e != cudaSuccess ? e : cudaStreamSynchronize(g_stream);
       }},
      {"host_register", [](void* v) {
         auto* s = static_cast<State*>(v);
         *s->host = mmap(nullptr, host_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->memfd, 0);
         if (*s->host == MAP_FAILED) return cudaErrorMemoryAllocation;
         return cudaHostRegister(*s->host, host_bytes, cudaHostRegisterDefault);
       }},
      {"copy_to_registered", [](void* v) {
         auto* s = static_cast<State*>(v);
         cudaMemcpyAsync(*s->host, *s->d, host_bytes / 4, cudaMemcpyDeviceToHost, g_stream);
         return cudaStreamSynchronize(g_stream);
       }},
      {"copy_to_pageable", [](void* v) {
         auto* s = static_cast<State*>(v);
         cudaMemcpyAsync(s->pageable, *s->d, n * sizeof(float), cudaMemcpyDeviceToHost, g_stream);
         return cudaStreamSynchronize(g_stream);
       }},
      {"stream_create", [](void* v) {
         return cudaStreamCreateWithFlags(static_cast<State*>(v)->own, cudaStreamNonBlocking);
       }},
      {"event_create", [](void* v) {
         return cudaEventCreateWithFlags(static_cast<State*>(v)->own_event, cudaEventDisableTiming);
       }},
      {"stream_wait_event", [](void* v) {
         auto* s = static_cast<State*>(v);
         cudaEventRecord(*s->own_event, *s->own);
         cudaStreamWaitEvent(g_stream, *s->own_event, 0);
         return cudaStreamSynchronize(g_stream);
       }},
      {"malloc_host", [](void* v) {
         auto* s = static_cast<State*>(v);
         const cudaError_t e = cudaMallocHost(reinterpret_cast<void**>(s->pinned), host_bytes);
         return e != cudaSuccess ? e : cudaFreeHost(*s->pinned);
       }},
      {"malloc_free", [](void*) {
         void* p = nullptr;
         const cudaError_t e = cudaMalloc(&p, 64u << 20);
         return e != cudaSuccess ? e : cudaFree(p);
       }},
      {"malloc_async", [](void*) {
         void* p = nullptr;
         const cudaError_t e = cudaMallocAsync(&p, 64u << 20, g_stream);
         if (e != cudaSuccess) return e;
         cudaFreeAsync(p, g_stream);
         return cudaStreamSynchronize(g_stream);
       }},
      {"host_func", [](void* v) {
         const cudaError_t e = cudaLaunchHostFunc(g_stream, host_callback, static_cast<State*>(v)->flag);
         return e != cudaSuccess ? e : cudaStreamSynchronize(g_stream);
       }},
      {"func_attribute", [](void*) {
         return cudaFuncSetAttribute(touch, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
       }},
      {"occupancy", [](void*) {
         int blocks = 0;
         return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, touch, 256, 0);
       }},
      {"device_properties", [](void*) {
         cudaDeviceProp p{};
         return cudaGetDeviceProperties(&p, 0);
       }},
      {"mem_get_info", [](void*) {
         std::size_t f = 0, t = 0;
         return cudaMemGetInfo(&f, &t);
       }},
      {"device_printf", [](void*) {
         says_hello<<<1, 32, 0, g_stream>>>();
         const cudaError_t e = cudaGetLastError();
         return e != cudaSuccess ? e : cudaStreamSynchronize(g_stream);
       }},
      {"device_synchronize", [](void*) { return cudaDeviceSynchronize(); }},
      {"host_unregister", [](void* v) { return cudaHostUnregister(*static_cast<State*>(v)->host); }},
      {"ipc_close", [](void* v) { return cudaIpcCloseMemHandle(*static_cast<State*>(v)->d); }},
      {"stream_destroy", [](void* v) { return cudaStreamDestroy(*static_cast<State*>(v)->own); }},
      {"thread_create", [](void*) {
         // What a submission's own thread would meet: the C library's pthread_create, refused or not.
         pthread_t t;
         const int rc = pthread_create(&t, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
         if (rc == 0) pthread_join(t, nullptr);
         return rc == 0 ? cudaSuccess : cudaErrorNotPermitted;
       }},
      {"file_open", [](void*) {
         const int fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
         if (fd >= 0) close(fd);
         return fd >= 0 ? cudaSuccess : cudaErrorNotPermitted;
       }},
  };
  std::set<std::string> t_before = threads(), m_before = exec_maps();
  for (std::size_t k = 0; k < sizeof steps / sizeof steps[0]; ++k) {
    g_step = static_cast<int>(k);
    const auto began = std::chrono::steady_clock::now();
    const cudaError_t e = steps[k].run(&s);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    g_step = -1;
    const auto t_after = threads();
    const auto m_after = exec_maps();
    std::vector<std::string> calls;
    for (int i = 0; i < std::min(g_trapped_count.load(), 1024); ++i)
      if (g_trapped[i].step == static_cast<int>(k)) {
        const Trapped& t = g_trapped[i];
        const char* call = t.nr == SYS_open ? "open" : t.nr == SYS_openat ? "openat" : t.nr == SYS_openat2 ? "openat2"
                           : t.nr == SYS_creat ? "creat" : t.nr == SYS_mmap ? "mmap+exec" : "mprotect+exec";
        calls.push_back(std::string(call) + (t.path[0] ? std::string(" ") + t.path : ""));
      }
    char line[256];
    std::snprintf(line, sizeof line, "%s\n  {\"step\": \"%s\", \"result\": \"%s\", \"ms\": %.3f, ", k ? "," : "",
                  steps[k].name, name_of(e), ms);
    out += line;
    out += "\"new_threads\": " + json_list(added(t_before, t_after)) +
           ", \"new_exec_maps\": " + json_list(added(m_before, m_after)) + ", \"trapped\": " + json_list(calls) + "}";
    t_before = t_after;
    m_before = m_after;
  }
  // Calls trapped outside any step (a CUDA thread of its own, between steps).
  std::vector<std::string> elsewhere;
  for (int i = 0; i < std::min(g_trapped_count.load(), 1024); ++i)
    if (g_trapped[i].step < 0) elsewhere.push_back(std::to_string(g_trapped[i].nr) + " " + g_trapped[i].path);
  out += "\n ], \"trapped_between_steps\": " + json_list(elsewhere) + "}";
  const auto written = write(4, out.data(), out.size());
  return written == static_cast<ssize_t>(out.size()) ? 0 : 3;
}

// ---- the parent ----

/// Runs `self --child MODE` with the buffers' handle and memfd; returns its JSON (or an error object).
std::string run_child(const char* self, const char* mode, const cudaIpcMemHandle_t& handle, int memfd) {
  int sockets[2], results[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets) != 0 || pipe(results) != 0) return "{\"error\": \"pipes\"}";
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(sockets[1], 3);
    dup2(results[1], 4);
    dup2(2, 1);  // the device printf: stdout carries the JSON alone
    execl(self, self, "--child", mode, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(sockets[1]);
  close(results[1]);
  char control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{const_cast<cudaIpcMemHandle_t*>(&handle), sizeof handle};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  cmsghdr* h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(h), &memfd, sizeof memfd);
  sendmsg(sockets[0], &m, 0);
  std::string text;
  char buffer[4096];
  for (ssize_t r; (r = read(results[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(r));
  int status = 0;
  waitpid(pid, &status, 0);
  close(sockets[0]);
  close(results[0]);
  if (text.empty())
    return "{\"mode\": \"" + std::string(mode) + "\", \"error\": \"no output; status " + std::to_string(status) + "\"}";
  return text;
}

/// Percentiles of `v` (microseconds) as JSON.
std::string percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) { return v.empty() ? 0.0 : v[static_cast<std::size_t>(q * (v.size() - 1))]; };
  char s[256];
  std::snprintf(s, sizeof s, "{\"n\": %zu, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f, "
                "\"min_us\": %.1f}", v.size(), at(0.5), at(0.9), at(0.99), at(1.0), at(0.0));
  return s;
}

/// `count` idle probes on `stream`: an empty kernel, waited for; host microseconds each.
std::vector<double> probes(cudaStream_t stream, int count, double max_seconds) {
  std::vector<double> us;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
  for (int i = 0; i < count && std::chrono::steady_clock::now() < end; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    empty<<<1, 32, 0, stream>>>();
    cudaStreamSynchronize(stream);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  return us;
}

/// A process of its own keeping the GPU busy (`bench --busy KIND`) while this one probes.
std::string busy_probe(const char* self, const char* kind, cudaStream_t stream) {
  int ready[2];
  if (pipe(ready) != 0) return "null";
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(ready[1], 4);
    execl(self, self, "--busy", kind, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  char byte = 0;
  const bool started = read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  std::vector<double> us = started ? probes(stream, 100000, 0.8) : std::vector<double>{};
  int status = 0;
  waitpid(pid, &status, 0);
  return percentiles(us);
}

int busy(const std::string& kind) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  spin<<<1, 32, 0, s>>>(1000);
  cudaStreamSynchronize(s);
  const char byte = 1;
  const auto written = write(4, &byte, 1);
  (void)written;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (kind == "long") {
    spin<<<1, 32, 0, s>>>(1'200'000'000ull);  // 1.2 s, one block
  } else if (kind == "full") {
    spin<<<sms * 8, 256, 0, s>>>(1'200'000'000ull);  // 1.2 s, every SM
  } else {
    for (int i = 0; i < 24000; ++i) spin<<<1, 32, 0, s>>>(50'000ull);  // 50 us kernels back to back, 1.2 s
  }
  cudaStreamSynchronize(s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return child(argv[2]);
  if (argc == 3 && std::strcmp(argv[1], "--busy") == 0) return busy(argv[2]);
  const bool tool = std::getenv("CUDA_INJECTION64_PATH") != nullptr;
  // Buffers before any child starts, as the referee makes them: device memory with an IPC handle, a memfd.
  cudaSetDeviceFlags(cudaDeviceScheduleSpin);
  float* d = nullptr;
  cudaMalloc(&d, (1 << 20) * sizeof(float));
  cudaMemset(d, 0, (1 << 20) * sizeof(float));
  cudaIpcMemHandle_t handle{};
  cudaIpcGetMemHandle(&handle, d);
  const int memfd = static_cast<int>(syscall(SYS_memfd_create, "probe", 0));
  if (memfd < 0 || ftruncate(memfd, 16 << 20) != 0) return 1;
  cudaDeviceSynchronize();

  std::string out = "{\"tool_attached\": " + std::string(tool ? "true" : "false");
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  out += ", \"gpu\": \"" + std::string(prop.name) + "\"";
  out += ",\n \"log\": " + run_child(argv[0], "log", handle, memfd);
  out += ",\n \"enforce\": " + run_child(argv[0], "enforce", handle, memfd);
  if (!tool) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    probes(s, 100, 1.0);  // warm
    out += ",\n \"probe_idle\": " + percentiles(probes(s, 2000, 2.0));
    for (const char* kind : {"long", "short", "full"})
      out += ",\n \"probe_busy_" + std::string(kind) + "\": " + busy_probe(argv[0], kind, s);
    out += ",\n \"probe_idle_after\": " + percentiles(probes(s, 2000, 2.0));
  }
  out += "\n}\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}
