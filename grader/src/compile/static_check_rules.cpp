#include "static_check_rules.hpp"

#include <algorithm>
#include <utility>

namespace grader::static_check::tables {

const std::vector<Family>& denied_symbols() {
  static const std::vector<Family> families = {
      // Libraries that do an exercise's work, called through their C API.
      {"libraries", {"cublas*", "cusparse*", "cusolver*", "cufft*", "cudnn*"}},
      // CUDA runtime: what changes how the harness's timing or the reference's run would go.
      {"streams",
       {"cudaStreamCreate*", "cudaStreamDestroy", "cudaStreamQuery", "cudaStreamAddCallback", "cudaLaunchHostFunc",
        "cudaStreamAttachMemAsync", "cudaStreamCopyAttributes", "cudaDeviceGetStreamPriorityRange",
        "cudaStreamGetPriority", "cudaStreamGetFlags", "cudaStreamGetId", "cudaStreamGetDevice"}},
      {"events",
       {"cudaEventCreate*", "cudaEventDestroy", "cudaEventRecord*", "cudaEventQuery", "cudaEventElapsedTime*",
        "cudaStreamWaitEvent"}},
      // Before graphs: cudaGraphKernelNodeSetAttribute sets access windows too.
      {"l2_persistence",
       {"cudaCtxResetPersistingL2Cache", "cudaStreamSetAttribute", "cudaStreamGetAttribute",
        "cudaGraphKernelNodeSetAttribute"}},
      {"graphs",
       {"cudaStreamBeginCapture*", "cudaStreamEndCapture", "cudaStreamIsCapturing", "cudaStreamGetCaptureInfo*",
        "cudaStreamUpdateCaptureDependencies*", "cudaThreadExchangeStreamCaptureMode", "cudaGraph*", "cudaUserObject*",
        "cudaDeviceGraphMemTrim", "cudaDeviceGetGraphMemAttribute", "cudaDeviceSetGraphMemAttribute"}},
      {"launch_attributes", {"cudaLaunchKernelExC*", "cudaLaunchKernelEx"}},
      {"device_config",
       {"cudaDeviceSetLimit", "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig", "cudaSetDevice",
        "cudaSetDeviceFlags", "cudaSetValidDevices", "cudaInitDevice", "cudaDeviceReset", "cudaDeviceSetMemPool",
        "cudaMemPoolSetAttribute", "cudaMemPoolTrimTo", "cudaMemPoolSetAccess", "cudaDeviceEnablePeerAccess",
        "cudaDeviceDisablePeerAccess", "cudaThreadSetLimit", "cudaThreadSetCacheConfig", "cudaThreadExit",
        "cudaDeviceFlushGPUDirectRDMAWrites", "cudaDeviceRegisterAsyncNotification", "cudaProfilerStart",
        "cudaProfilerStop"}},
      {"synchronization",
       {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
        "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyPeer", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
        "cudaMemset", "cudaMemset2D", "cudaMemset3D"}},
      {"managed_memory",
       {"cudaMallocManaged", "cudaMemPrefetchAsync*", "cudaMemAdvise*", "cudaMemRangeGetAttribute*",
        "__cudaRegisterManagedVar"}},
      {"pinned_memory",
       {"cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister", "cudaHostUnregister",
        "cudaHostGetDevicePointer", "cudaHostGetFlags"}},
      {"ipc",
       {"cudaIpc*", "cudaMemPoolExport*", "cudaMemPoolImport*", "cudaImportExternal*", "cudaDestroyExternal*",
        "cudaExternalMemory*", "cudaSignalExternal*", "cudaWaitExternal*"}},
      // dlsym's CUDA cousins: they hand out driver functions no symbol shows.
      {"dynamic_loading",
       {"dlopen*", "dlmopen", "dlsym", "dlvsym", "dladdr*", "dlinfo", "dlclose", "dlerror", "dl_iterate_phdr",
        "__libc_dlopen*", "__libc_dlsym", "cudaGetDriverEntryPoint*", "cuGetProcAddress*"}},
      // C library and POSIX.
      {"files",
       {"open", "open64", "__open*", "openat", "openat64", "__openat*", "creat", "creat64", "fopen", "fopen64",
        "freopen", "freopen64", "fdopen", "fclose", "opendir", "fdopendir", "readdir", "readdir64", "scandir*", "read",
        "__read_chk", "pread", "pread64", "readv", "preadv*", "write", "pwrite", "pwrite64", "writev", "pwritev*",
        "close", "close_range", "dup", "dup2", "dup3", "lseek", "lseek64", "fsync", "fdatasync", "ftruncate",
        "ftruncate64", "truncate", "truncate64", "unlink", "unlinkat", "rename", "renameat*", "remove", "mkdir",
        "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod", "fchmod",
        "fchmodat", "chown", "fchown", "fchownat", "lchown", "access", "faccessat", "euidaccess", "stat", "stat64",
        "lstat", "lstat64", "fstat", "fstat64", "fstatat", "fstatat64", "__xstat*", "__lxstat*", "__fxstat*", "statx",
        "statfs", "statfs64", "fstatfs", "fstatfs64", "chdir", "fchdir", "chroot", "mkfifo", "mknod", "pipe", "pipe2",
        "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "send", "sendto", "sendmsg", "recv",
        "recvfrom", "recvmsg", "shutdown", "setsockopt", "ioctl", "fcntl", "fcntl64", "__fcntl*", "poll", "ppoll",
        "select", "pselect", "epoll_*", "inotify_*", "fanotify_*", "eventfd", "splice", "tee", "sendfile",
        "sendfile64", "copy_file_range", "getdents*", "dprintf", "vdprintf", "__dprintf_chk", "__vdprintf_chk",
        "fread", "fgets", "fscanf", "__isoc99_fscanf", "tmpfile", "tmpfile64", "tmpnam", "mkstemp", "mkstemp64",
        "mkdtemp", "mkostemp*", "realpath", "__realpath_chk", "getcwd", "std::basic_ofstream*", "std::basic_ifstream*",
        "std::basic_fstream*", "std::basic_filebuf*", "std::__basic_file*", "std::filesystem::*",
        "std::random_device*"}},
      {"processes", {"fork", "vfork", "__fork", "_Fork", "clone", "clone3", "__clone*", "execl", "execle", "execlp",
                     "execv", "execve", "execvp", "execvpe", "execveat", "fexecve", "system", "popen", "pclose",
                     "posix_spawn*", "wait", "waitpid", "wait3", "wait4", "waitid", "daemon", "setsid", "setpgid",
                     "setpgrp", "unshare", "setns", "pthread_create", "pthread_detach", "thrd_create", "std::thread*",
                     "std::jthread*"}},
      {"exit",
       {"exit", "_exit", "_Exit", "quick_exit", "at_quick_exit", "abort", "__assert_fail", "__assert_perror_fail",
        "__assert", "__cxa_finalize", "pthread_exit", "thrd_exit"}},
      {"signals", {"kill", "killpg", "tkill", "tgkill", "raise", "signal", "sigaction", "bsd_signal", "sysv_signal",
                   "__sysv_signal", "sigset", "sigprocmask", "sigsuspend", "sigwait*", "sigqueue", "sigaltstack",
                   "pthread_kill", "pthread_sigmask", "pthread_sigqueue", "alarm", "ualarm", "setitimer",
                   "timer_create", "timer_settime", "timerfd_*", "signalfd*"}},
      {"process_control",
       {"prctl", "ptrace", "setrlimit", "setrlimit64", "prlimit", "prlimit64", "seccomp", "setuid", "seteuid",
        "setreuid", "setresuid", "setgid", "setegid", "setregid", "setresgid", "capset", "personality",
        "sched_setaffinity", "sched_setscheduler", "sched_setparam", "setpriority", "nice", "pthread_setaffinity_np",
        "pthread_setschedparam", "process_vm_readv", "process_vm_writev", "pidfd_*"}},
      {"memory_mapping",
       {"mmap", "mmap64", "munmap", "mremap", "mprotect", "pkey_*", "madvise", "posix_madvise", "msync", "mlock",
        "mlock2", "mlockall", "munlock", "munlockall", "shm_open", "shm_unlink", "shmget", "shmat", "shmdt", "shmctl",
        "memfd_create", "remap_file_pages", "brk", "sbrk"}},
      {"syscalls", {"syscall"}},
  };
  return families;
}

const std::vector<std::string_view>& allowed_symbols() {
  static const std::vector<std::string_view> names = {
      // CUDA runtime: errors, device and kernel queries, kernel attributes, stream-ordered memory operations.
      "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorName", "cudaGetErrorString", "cudaGetDevice",
      "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2",
      "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaDeviceGetLimit", "cudaFuncGetAttributes",
      "cudaFuncSetAttribute", "cudaFuncSetCacheConfig", "cudaOccupancy*", "cudaMemsetAsync", "cudaMemset2DAsync",
      "cudaMemset3DAsync", "cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpyToSymbolAsync",
      "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize", "cudaMalloc", "cudaMallocPitch",
      "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaPointerGetAttributes", "cudaLaunchKernel",
      "cudaLaunchCooperativeKernel", "cudaGetKernel", "cudaGetFuncBySymbol",
      // What nvcc emits for every kernel and __device__ variable (registration, <<<...>>>).
      "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary", "__cudaRegisterFunction",
      "__cudaRegisterVar", "__cudaRegisterTexture", "__cudaRegisterSurface", "__cudaRegisterLinkedBinary*",
      "__cudaInitModule", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaLaunchKernel",
      "__cudaGetKernel",
      // The C++ runtime (what the file-, thread- and random-device families above leave of it).
      "std::*", "__gnu_cxx::*", "__cxxabiv1::*", "operator new*", "operator delete*", "__cxa_*", "_Unwind_*",
      "__gxx_personality_v0", "__dso_handle", "atexit", "__tls_get_addr", "_GLOBAL_OFFSET_TABLE_", "__stack_chk_fail",
      "__stack_chk_guard", "__libc_single_threaded", "pthread_once", "__once_proxy", "pthread_mutex_lock",
      "pthread_mutex_unlock", "__errno_location",
      // C library: memory, strings, printing to stdout and stderr, math.
      "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memcpy", "memmove", "memset", "memcmp",
      "memchr", "__memcpy_chk", "__memmove_chk", "__memset_chk", "strlen", "strnlen", "strcmp", "strncmp", "strchr",
      "strrchr", "strstr", "strcpy", "strncpy", "strcat", "strncat", "__strcpy_chk", "__strncpy_chk", "__strcat_chk",
      "strtol", "strtoll", "strtoul", "strtoull", "strtod", "strtof", "atoi", "atol", "atof", "printf", "puts",
      "putchar", "fprintf", "fputs", "fputc", "putc", "fwrite", "fflush", "snprintf", "sprintf", "vprintf", "vfprintf",
      "vsnprintf", "vsprintf", "perror", "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk",
      "__vprintf_chk", "__vfprintf_chk", "__vsnprintf_chk", "__vsprintf_chk", "stdout", "stderr", "sqrt", "sqrtf",
      "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "expm1", "expm1f", "log", "logf", "log2", "log2f", "log10",
      "log10f", "log1p", "log1pf", "pow", "powf", "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf", "round",
      "roundf", "lround", "lroundf", "llround", "llroundf", "trunc", "truncf", "rint", "rintf", "lrint", "lrintf",
      "llrint", "llrintf", "nearbyint", "nearbyintf", "fmod", "fmodf", "fmin", "fminf", "fmax", "fmaxf", "fma", "fmaf",
      "hypot", "hypotf", "ldexp", "ldexpf", "frexp", "frexpf", "modf", "modff", "nextafter", "nextafterf", "erf",
      "erff", "erfc", "erfcf", "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan",
      "atanf", "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf", "nan", "nanf"};
  return names;
}

const std::vector<std::string_view>& c_library_names() {
  static const std::vector<std::string_view> names = {"getenv", "secure_getenv", "setenv", "putenv", "unsetenv",
                                                      "clearenv", "environ", "errno", "stdin", "time", "clock",
                                                      "clock_gettime", "gettimeofday", "sleep", "usleep", "nanosleep",
                                                      "sched_yield", "rand", "srand", "random", "srandom", "getpid",
                                                      "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid",
                                                      "uname", "sysconf", "isatty", "localtime", "gmtime", "strftime",
                                                      "setjmp", "longjmp", "_setjmp", "siglongjmp", "sigsetjmp",
                                                      "qsort", "bsearch", "fseek", "ftell", "rewind", "fgetc", "getc",
                                                      "getchar", "scanf", "sscanf", "setvbuf", "setbuf", "fileno",
                                                      "main", "pthread_mutex_init", "pthread_mutex_destroy",
                                                      "pthread_join", "pthread_self", "sem_open", "sem_post",
                                                      "sem_wait", "getrlimit", "getrusage", "ioctl"};
  return names;
}

const std::vector<std::string_view>& allowed_harness_calls() {
  static const std::vector<std::string_view> names = {"harness::cuda_check", "harness::cuda_check_nothrow",
                                                      "harness::implementations", "harness::Impl::add"};
  return names;
}

const std::vector<std::string_view>& registry_entities() {
  static const std::vector<std::string_view> names = {"harness::implementations", "harness::Impl::add"};
  return names;
}

const std::vector<std::string_view>& allowed_harness_definitions() {
  // Weak copies of inline code from launcher.hpp: the registrar's constructor, and (at -O0) Impl's constructor and
  // destructor, which the registry's std::map instantiates.
  static const std::vector<std::string_view> names = {"harness::LauncherRegistrar<*>::LauncherRegistrar",
                                                      "harness::Impl::Impl", "harness::Impl::~Impl"};
  return names;
}

const std::vector<Family>& denied_headers() {
  static const std::vector<Family> families = {
      {"libraries",
       {"cub/*", "thrust/*", "cublas*.h", "cusparse*.h", "cusolver*.h", "cufft*.h", "cudnn*.h", "cutlass/*", "cute/*",
        "mma.h", "mma.hpp", "cooperative_groups/*reduce*", "cooperative_groups/*scan*", "cuda/std/numeric",
        "cuda/std/__numeric/*reduce*", "cuda/std/__numeric/*scan*", "cuda/std/__numeric/accumulate.h",
        "cuda/std/__numeric/inner_product.h", "cuda/std/__numeric/partial_sum.h", "cuda/std/__pstl/*"}},
  };
  return families;
}

const std::vector<Family>& denied_instructions() {
  static const std::vector<Family> families = {
      {"tensor_cores", {"mma", "mma.*", "wmma.*", "wgmma.*", "tcgen05.mma*", "_mma.*"}},
      {"l2_persistence", {"createpolicy*", "*L2::evict_last*"}},
  };
  return families;
}

const std::vector<std::string_view>& library_namespaces() {
  static const std::vector<std::string_view> names = {"cub", "thrust", "nvcuda", "cutlass", "cute"};
  return names;
}

std::string_view reason(std::string_view rule) {
  static const std::pair<std::string_view, std::string_view> reasons[] = {
      {"allowlist",
       "allows only the CUDA runtime calls, the C++ runtime and the C library functions (memory, strings, math, "
       "printing) on its allowlist"},
      {"streams", "allows no streams of your own: the harness times the stream it passes to your launcher"},
      {"events", "allows no events of your own: the harness times your launcher with its own events"},
      {"l2_persistence",
       "allows no persisting-L2 access windows or eviction policies: they would keep your data in L2 across the "
       "harness's cache flush"},
      {"graphs", "allows no stream capture or CUDA graphs: the harness times what your launcher enqueues"},
      {"launch_attributes",
       "allows no extended launches: cudaLaunchKernelEx attributes can set a persisting-L2 window or a priority the "
       "reference does not get"},
      {"device_config",
       "allows no device-wide settings: limits, cache configuration, device selection and resets change what the "
       "reference runs on too"},
      {"synchronization",
       "allows no synchronization in a launcher: it enqueues work on its stream and returns, and the harness "
       "synchronizes"},
      {"managed_memory", "allows no managed memory: the harness's arrays are ordinary device memory"},
      {"pinned_memory", "allows no pinned host memory of your own (lab 07 is the lab about it)"},
      {"ipc", "allows no memory or events shared with other processes"},
      {"driver_api", "allows no CUDA driver API calls: contexts, modules and launches of your own bypass the harness"},
      {"dynamic_loading", "allows no dynamic loading or symbol lookup: it reaches code no static check can see"},
      {"files", "allows no file, socket, /proc or /dev access: results travel through the harness only"},
      {"processes", "allows no processes or threads of your own"},
      {"exit", "allows no ending the process: report an error with CUDA_CHECK or an exception"},
      {"signals", "allows no signals or timers"},
      {"process_control", "allows no process control (prctl, ptrace, limits, scheduling, other processes' memory)"},
      {"memory_mapping", "allows no memory mapping or protection changes"},
      {"startup",
       "allows no code that runs before the runner confines itself (.preinit_array, .init, prioritized constructors, "
       "indirect functions): its setup and sandbox come first, then your static initializers"},
      {"includes",
       "allows no file in a compile but yours, its contract (the lab's headers your stub includes, "
       "harness/launcher.hpp, harness/cuda_check.hpp) and the compiler's own headers: a submission is one file"},
      {"syscalls", "allows no system calls of your own (syscall(), or syscall/sysenter/int $0x80/svc instructions)"},
      {"runtime_shadowing",
       "allows no definitions of CUDA runtime, C library or C++ runtime names: the link would take yours instead"},
      {"harness_shadowing",
       "allows no definitions of the harness's or the lab's names, nor copies of their headers: the link would take "
       "yours instead"},
      {"harness",
       "allows no use of the harness beyond REGISTER_LAUNCHER and CUDA_CHECK, from the course's harness/launcher.hpp"},
      {"other_implementations",
       "allows no calls into code linked beside yours (the reference, the baseline, the lab's own code)"},
      {"libraries",
       "allows no libraries that do the exercise's work (CUB, Thrust, cuBLAS, WMMA, cooperative_groups reduce and "
       "scan, libcu++ numeric algorithms)"},
      {"tensor_cores",
       "allows no tensor-core instructions: its exercises are CUDA-core kernels timed against a CUDA-core reference"},
  };
  const auto* it = std::find_if(std::begin(reasons), std::end(reasons), [&](const auto& r) { return r.first == rule; });
  return it == std::end(reasons) ? std::string_view{} : it->second;
}

}  // namespace grader::static_check::tables
