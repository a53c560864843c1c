#include <harness/cuda_check.hpp>
#include <harness/device.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <system_error>

namespace harness {

namespace {
std::atomic<bool> g_pooled{false};
std::once_flag g_pool_kept;

// The largest buffer the pool serves: every test shape's scratch (the largest, lab 07's 2^26 + 5 floats, is 256 MiB and
// 20 bytes), which a check run allocates and frees again in every case. A timed shape's buffers (2^28 floats, 1 GiB)
// are made a few times a run, and the pool maps them in pieces of its own, each a call to the resource manager: with
// every buffer pooled, a timed run's referee made half as many allocations again as with cudaMalloc's.
constexpr std::size_t kPooledBytes = std::size_t{257} << 20;
}  // namespace

void pool_device_memory() { g_pooled = true; }

// Pooled memory is allocated and freed in the order of the legacy default stream, which every blocking stream (the
// harness's Stream) waits for and is waited for by: a buffer freed is reused only after the work issued before the
// free, on any of those streams, has ended, as cudaFree's synchronization made sure. The pool keeps everything freed
// (release threshold: all of it): its default gives memory back to the driver at every synchronization, a resource
// manager's call each time again.
void* device_malloc(std::size_t bytes, DeviceMemory memory, bool& pooled) {
  void* p = nullptr;
  pooled = false;
  if (bytes == 0) return p;
  if (memory == DeviceMemory::kShareable || !g_pooled || bytes > kPooledBytes) {
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  std::call_once(g_pool_kept, [] {
    int device = 0;
    cudaMemPool_t pool;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t all = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &all));
  });
  CUDA_CHECK(cudaMallocAsync(&p, bytes, cudaStreamLegacy));
  pooled = true;
  return p;
}

void device_free(void* ptr, bool pooled) noexcept {
  if (!ptr) return;
  if (pooled)
    CUDA_CHECK_NOTHROW(cudaFreeAsync(ptr, cudaStreamLegacy));
  else
    CUDA_CHECK_NOTHROW(cudaFree(ptr));
}

void* pinned_malloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}

void pinned_free(void* ptr) noexcept {
  if (ptr) CUDA_CHECK_NOTHROW(cudaFreeHost(ptr));
}

namespace {
/// `bytes` rounded up to whole pages: what the memfd holds and what is mapped, so that no byte of the mapping lies past
/// the end of the file (a SIGBUS where touched).
std::size_t whole_pages(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }
}  // namespace

SharedHostMemory::SharedHostMemory(std::size_t bytes, bool pin) {
  const int fd = ::memfd_create("harness-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) throw_errno("memfd_create");
  // Sealed at its size: a runner that could shrink it would make the referee's next read of the mapping a SIGBUS.
  if (::ftruncate(fd, static_cast<off_t>(whole_pages(bytes))) != 0 ||
      ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    throw_errno("sizing shared host memory");
  }
  try {
    map(fd, bytes, pin);
  } catch (...) {  // no destructor runs for an object whose constructor threw
    ::close(fd);
    throw;
  }
  fd_ = fd;
}

SharedHostMemory SharedHostMemory::adopt(int fd, std::size_t bytes, bool pin) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != whole_pages(bytes)) {
    ::close(fd);
    throw std::invalid_argument("shared host memory of the wrong size: the referee's buffer is not this one");
  }
  SharedHostMemory m;
  try {
    m.map(fd, bytes, pin);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);  // the mapping keeps the memory; nothing here needs the descriptor again
  return m;
}

void SharedHostMemory::map(int fd, std::size_t bytes, bool pin) {
  const std::size_t length = whole_pages(bytes);
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw_errno("mmap of shared host memory");
  if (pin) {
    // Portable: pinned for every context; mapped: reachable from kernels at the same address (unified addressing), as
    // cudaMallocHost memory is. Both processes register the same pages.
    try {
      CUDA_CHECK(cudaHostRegister(p, length, cudaHostRegisterPortable | cudaHostRegisterMapped));
    } catch (...) {
      ::munmap(p, length);
      throw;
    }
  }
  ptr_ = p;
  bytes_ = bytes;
  pinned_ = pin;
}

SharedHostMemory::~SharedHostMemory() {
  if (ptr_) {
    if (pinned_) CUDA_CHECK_NOTHROW(cudaHostUnregister(ptr_));  // before munmap: the driver holds the pages till then
    ::munmap(ptr_, whole_pages(bytes_));
  }
  if (fd_ >= 0) ::close(fd_);
}

// A blocking stream: work issued on the legacy default stream before (setup copies, memsets in lab code) is ordered
// before work on this one, so no setup step can race a kernel.
Stream::Stream() { CUDA_CHECK(cudaStreamCreate(&s_)); }
Stream::~Stream() {
  if (s_) CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_));
}
void Stream::synchronize() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }

Event::Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
Event::~Event() {
  if (e_) CUDA_CHECK_NOTHROW(cudaEventDestroy(e_));
}
void Event::record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(e_, stream)); }
float Event::elapsed_ms_since(const Event& start) const {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
  return ms;
}

int device_count(std::string* why) noexcept {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    (void)cudaGetLastError();
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA driver reports no devices";
  return n;
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

namespace {
std::string kernel_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  std::getline(f, line);
  std::smatch m;
  static const std::regex version(R"((\d+\.\d+(\.\d+)?))");
  if (std::regex_search(line, m, version)) return m[1];
  return "unknown";
}
}  // namespace

DeviceInfo device_info() {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  DeviceInfo info;
  info.name = p.name;
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.sms = p.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  info.memory_bytes = p.totalGlobalMem;
  info.driver = kernel_driver_version();
  CUDA_CHECK(cudaDriverGetVersion(&info.cuda_driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.cuda_runtime));
  return info;
}

}  // namespace harness
