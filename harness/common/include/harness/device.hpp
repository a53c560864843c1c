#pragma once
/// @file device.hpp
/// @brief Move-only RAII owners for device memory, events and streams, and what the harness needs to know of the GPU.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace harness {

/// Where a DeviceBuffer's memory comes from: cudaMalloc, or the device's stream-ordered pool where the process asked
/// for it (pool_device_memory()). Memory another process maps (a CUDA IPC handle) is always cudaMalloc's, and so is a
/// buffer larger than any test shape's (a timed shape's).
enum class DeviceMemory { kAny, kShareable };

/// From now on, this process's DeviceBuffers (but shareable ones) come from the device's default memory pool, which
/// keeps what they free for the next: a referee allocates and frees scratch for every case (a pristine copy of each
/// input, each output's reference on the GPU, the comparisons' counters), and each cudaMalloc and cudaFree of it is a
/// call to the driver's resource manager, whose lock is the host's, so on a host of several GPUs every worker waited
/// for every other's. Called by the lab binaries (the referee), not by runners: a runner's allocations stay as they are.
void pool_device_memory();

/// Owns `count` elements of device memory; freed on destruction. Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `count` elements (uninitialized): cudaMalloc, or the pool (pool_device_memory()) unless `memory` is
  /// kShareable. Throws CudaError.
  explicit DeviceBuffer(std::size_t count, DeviceMemory memory = DeviceMemory::kAny);
  ~DeviceBuffer();
  /// Takes over `other`'s memory.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)),
        count_(std::exchange(other.count_, 0)),
        pooled_(std::exchange(other.pooled_, false)) {}
  /// Frees this memory and takes over `other`'s.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  [[nodiscard]] T* get() const noexcept { return ptr_; }                        ///< the device pointer
  [[nodiscard]] std::size_t size() const noexcept { return count_; }            ///< elements
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }  ///< bytes
  /// Exchanges the two buffers.
  void swap(DeviceBuffer& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    std::swap(pooled_, other.pooled_);
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  bool pooled_ = false;  // from the pool: freed into it
};

/// Owns `count` elements of page-locked host memory (cudaMallocHost), which copies can overlap with kernels.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  /// Allocates `count` page-locked elements (uninitialized). Throws CudaError.
  explicit PinnedBuffer(std::size_t count);
  ~PinnedBuffer();
  /// Takes over `other`'s memory.
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  /// Exchanges this memory with `other`'s (freed with `other`).
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  [[nodiscard]] T* get() const noexcept { return ptr_; }                        ///< the host pointer
  [[nodiscard]] std::size_t size() const noexcept { return count_; }            ///< elements
  [[nodiscard]] T& operator[](std::size_t i) const noexcept { return ptr_[i]; }  ///< element `i`

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Owns host memory that two processes share: the referee makes it (a memfd, sealed against resizing, mapped
/// MAP_SHARED) and hands its descriptor to a runner, which maps the same pages (runner.hpp). Both page-lock their
/// mapping with cudaHostRegister, so copies from and to it run at pinned speed, as from cudaMallocHost memory.
/// Unregistered and unmapped on destruction. Move-only.
class SharedHostMemory {
 public:
  SharedHostMemory() = default;
  /// Makes `bytes` of shared memory (zeros), page-locked when `pin` (CPU tests, without a GPU, pass false).
  /// Throws std::system_error (memfd, mmap) or CudaError (cudaHostRegister).
  SharedHostMemory(std::size_t bytes, bool pin);
  /// Maps the memory another process made, received as descriptor `fd`, which is closed once mapped (the mapping
  /// keeps the memory). Throws std::invalid_argument when it is not `bytes` long.
  static SharedHostMemory adopt(int fd, std::size_t bytes, bool pin);
  ~SharedHostMemory();
  /// Takes over `other`'s mapping.
  SharedHostMemory(SharedHostMemory&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)),
        fd_(std::exchange(other.fd_, -1)),
        pinned_(std::exchange(other.pinned_, false)) {}
  /// Releases this mapping and takes over `other`'s.
  SharedHostMemory& operator=(SharedHostMemory&& other) noexcept {
    SharedHostMemory(std::move(other)).swap(*this);
    return *this;
  }
  SharedHostMemory(const SharedHostMemory&) = delete;
  SharedHostMemory& operator=(const SharedHostMemory&) = delete;
  [[nodiscard]] void* get() const noexcept { return ptr_; }            ///< the host pointer
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }  ///< the length asked for
  /// The descriptor to hand to another process (close-on-exec here); -1 on the side that adopted it.
  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// Whether it is page-locked (registered with CUDA).
  [[nodiscard]] bool pinned() const noexcept { return pinned_; }
  /// Exchanges the two mappings.
  void swap(SharedHostMemory& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(bytes_, other.bytes_);
    std::swap(fd_, other.fd_);
    std::swap(pinned_, other.pinned_);
  }

 private:
  void map(int fd, std::size_t bytes, bool pin);
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int fd_ = -1;
  bool pinned_ = false;
};

/// Owns a cudaStream_t, ordered after earlier work on the legacy default stream (a blocking stream). Move-only.
class Stream {
 public:
  /// Creates the stream. Throws CudaError.
  Stream();
  ~Stream();
  /// Takes over `other`'s stream.
  Stream(Stream&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
  /// Exchanges the two streams.
  Stream& operator=(Stream&& other) noexcept {
    std::swap(s_, other.s_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return s_; }  ///< the raw handle
  /// Waits for all work on the stream; throws CudaError on failure (including errors from earlier kernels).
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

/// Owns a cudaEvent_t with timing enabled. Move-only.
class Event {
 public:
  /// Creates the event. Throws CudaError.
  Event();
  ~Event();
  /// Takes over `other`'s event.
  Event(Event&& other) noexcept : e_(std::exchange(other.e_, nullptr)) {}
  /// Exchanges the two events.
  Event& operator=(Event&& other) noexcept {
    std::swap(e_, other.e_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return e_; }  ///< the raw handle
  /// Records the event on `stream`.
  void record(cudaStream_t stream) const;
  /// Milliseconds from `start` to this event; both must have completed.
  [[nodiscard]] float elapsed_ms_since(const Event& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

/// What the harness reads off the current device.
struct DeviceInfo {
  std::string name;                ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0;                ///< compute capability, major
  int cc_minor = 0;                ///< compute capability, minor
  int sms = 0;                     ///< multiprocessor count
  std::size_t l2_bytes = 0;        ///< L2 cache size
  std::size_t memory_bytes = 0;    ///< global memory
  std::string driver;              ///< kernel driver version from /proc/driver/nvidia/version, or "unknown"
  int cuda_driver = 0;             ///< cudaDriverGetVersion, e.g. 13000
  int cuda_runtime = 0;            ///< cudaRuntimeGetVersion
};

/// Number of visible CUDA devices; 0 (never an exception) when there is no driver or no GPU.
/// `why`, if given, receives the runtime's explanation when the answer is 0.
int device_count(std::string* why = nullptr) noexcept;
/// Properties of the current device. Throws CudaError.
DeviceInfo device_info();
/// "13.0" from 13000.
std::string cuda_version_string(int version);

/// @cond INTERNAL
// ---- implementation of the templates ----
void* device_malloc(std::size_t bytes, DeviceMemory memory, bool& pooled);
void device_free(void* ptr, bool pooled) noexcept;
void* pinned_malloc(std::size_t bytes);
void pinned_free(void* ptr) noexcept;

template <class T>
PinnedBuffer<T>::PinnedBuffer(std::size_t count)
    : ptr_(static_cast<T*>(pinned_malloc(count * sizeof(T)))), count_(count) {}
template <class T>
PinnedBuffer<T>::~PinnedBuffer() {
  pinned_free(ptr_);
}
/// @endcond

template <class T>
DeviceBuffer<T>::DeviceBuffer(std::size_t count, DeviceMemory memory)
    : ptr_(static_cast<T*>(device_malloc(count * sizeof(T), memory, pooled_))), count_(count) {}
template <class T>
DeviceBuffer<T>::~DeviceBuffer() {
  device_free(ptr_, pooled_);
}

}  // namespace harness
