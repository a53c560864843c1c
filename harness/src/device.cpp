#include <harness/cuda_check.hpp>
#include <harness/device.hpp>

#include <fstream>
#include <regex>

namespace harness {

void* device_malloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* ptr) noexcept {
  if (ptr) CUDA_CHECK_NOTHROW(cudaFree(ptr));
}

void* pinned_malloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}

void pinned_free(void* ptr) noexcept {
  if (ptr) CUDA_CHECK_NOTHROW(cudaFreeHost(ptr));
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
