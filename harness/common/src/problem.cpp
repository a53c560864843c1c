// What both sides of the grading boundary need of a Problem (problem.hpp): shapes, the buffers' storage (made by the
// referee or mapped by a runner), poisoning, the inputs' values, and the registry. The checks are the referee's
// (harness/referee/src/checks.cpp).
#include <harness/problem.hpp>

#include "fill_words.hpp"

#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <tuple>
#include <utility>

namespace harness {

namespace {
// 64 KiB of guard on each side: more than any block (1024 threads x 16 bytes x 4 vectors) can overrun by, and a
// multiple of 256 so the data stays as aligned as cudaMalloc's own pointers (float4 loads need 16 bytes).
constexpr std::size_t kGuardBytes = 64 * 1024;
// What a kernel reads outside its arrays, and what an output holds until the kernel writes it: 32-bit words that are
// NaNs as floats (they survive every sum and product; 0 * NaN is NaN) and about 2^31 as int32s (any sum that takes
// one in is off by two billion, or overflows). A read past the end must change the answer visibly: the old guard byte
// 0xA5 read as -2.9e-16f, which vanished in float sums of integer-valued inputs and in `x * 0` masks.
// The guards are NaNs with payloads no GPU arithmetic makes (NVIDIA GPUs return the canonical NaN 0x7FFFFFFF), so a
// kernel writing `alpha * x[i]` past the end of y, with x[i] a guard NaN, still changes y's guard; and inputs,
// outputs and scratch have different guard words, so a copy from one guard zone into another does too (lab 07's
// pipelines copy a device scratch array into a host output: one element too many would carry the scratch's guard).
constexpr std::uint32_t kInputGuardWord = 0x7FC1A5A5u;
constexpr std::uint32_t kOutputGuardWord = 0x7FC2A5A5u;
constexpr std::uint32_t kScratchGuardWord = 0x7FC3A5A5u;
/// detail::fill_words on host memory: `bytes` at `p` (4-byte aligned) filled with `word`, here and now.
void fill_host_words(void* p, std::size_t bytes, std::uint32_t word) {
  auto* words = static_cast<std::uint32_t*>(p);
  std::fill_n(words, bytes / 4, word);
  auto* tail = static_cast<unsigned char*>(p) + bytes / 4 * 4;
  for (std::size_t k = 0; k < bytes % 4; ++k) tail[k] = static_cast<unsigned char>(word >> (8 * k));
}
}  // namespace

std::uint32_t Buffer::guard_word(Role role) {
  switch (role) {
    case Role::input: return kInputGuardWord;
    case Role::output: return kOutputGuardWord;
    case Role::scratch: return kScratchGuardWord;
  }
  return kOutputGuardWord;
}

std::size_t Buffer::guard_bytes() { return kGuardBytes; }

std::string Shape::str() const {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s.push_back('x');
    s.append(std::to_string(dims[i]));
  }
  return s;
}

Shape Shape::parse(std::string_view text) {
  Shape s;
  while (true) {
    const auto x = text.find('x');
    const auto part = text.substr(0, x);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 1)
      throw std::invalid_argument("bad shape '" + std::string(text) + "': expected N or NxM with positive integers");
    s.dims.push_back(v);
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  return s;
}

std::vector<Shape> shapes_1d(const std::vector<std::int64_t>& extents) {
  std::vector<Shape> out;
  for (auto e : extents) out.push_back({e});
  return out;
}

std::vector<Shape> shapes_2d(const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols) {
  std::vector<Shape> out;
  for (auto r : rows)
    for (auto c : cols) out.push_back({r, c});
  return out;
}

// ---- Buffer ----

namespace {
std::vector<BufferHandle>& handles_to_map() {
  static std::vector<BufferHandle> handles;  // consumed from the front
  return handles;
}

bool& host_only_flag() {
  static bool on = false;
  return on;
}
}  // namespace

void set_host_only(bool on) { host_only_flag() = on; }
bool host_only() { return host_only_flag(); }

namespace {
// Atomic: `labN check` makes the next case's Problem on a second thread, and after a case Catch2 skipped makes this
// case's on the calling thread meanwhile: both add to this total.
std::atomic<double>& input_device_total() {
  static std::atomic<double> total = 0;
  return total;
}
/// Adds the seconds from its construction to its destruction to input_device_seconds().
struct InputDeviceTimer {
  std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
  ~InputDeviceTimer() {
    input_device_total() += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  }
};
}  // namespace

double input_device_seconds() { return input_device_total(); }

namespace {
// A buffer the size of a test shape's (at most kKeptBytes, guards included) keeps its memory when its Problem ends, for
// the next buffer of exactly that size, and a runner keeps such memory mapped: a check run makes a Problem for every
// case, hundreds a lab, and each allocation, IPC export, mapping, page-locking, unmapping and free is a call into the
// driver, which the host's processes take turns in, so that every grading worker of a host waits on the others'. Exact
// sizes only, so that memory keeps the bounds of the buffer it serves (compute-sanitizer's memcheck checks accesses
// against the allocation); every buffer is filled with its guard word when made and poisoned or set before a run.
// Kept memory is never freed before the process ends: a runner may still have it mapped, and freeing memory another
// process has mapped is undefined. Every test shape of the course fits the limit, the largest (lab 07's 2^26 + 5
// floats, its remainder at the timed size) with a megabyte of room: a shape above the limit made, page-locked and
// freed its memory again in every case (each seed of each of lab 07's exercises, 256 MiB a buffer, in what is a
// student's longest check run). Timed shapes of 2^28 elements are far above it: their memory goes as before; smaller
// timed shapes (lab 05's matrices, lab 07's 2^26 floats) are kept for the run's next exercise of that size.
constexpr std::size_t kKeptBytes = (std::size_t{257} << 20) + 2 * kGuardBytes;
bool kept(std::size_t bytes) { return bytes + 2 * kGuardBytes <= kKeptBytes; }

// Memory kept by the process that made it (the referee), by what a buffer needs of it (size, guards included, and for
// host memory whether it is page-locked), and a runner's mappings of memory the referee keeps, by what names it (device
// memory: its IPC handle; shared host memory: the file behind the new descriptor each case brings, which the runner's
// mapping keeps from being reused). Leaked on purpose (the process's end frees them with the CUDA context): no free
// may run after the CUDA runtime has shut down. Locked: `labN check` makes the next case's Problem on a second thread
// while this case's ends.
template <class Key, class Memory>
class Kept {
 public:
  static Kept& here() {
    static auto* kept = new Kept;
    return *kept;
  }
  /// Memory kept under `key` (taken out), or an empty Memory.
  Memory take(const Key& key) {
    const std::lock_guard lock(mutex_);
    const auto it = held_.find(key);
    if (it == held_.end()) return {};
    Memory m = std::move(it->second);
    held_.erase(it);
    return m;
  }
  void give(const Key& key, Memory m) {
    const std::lock_guard lock(mutex_);
    held_.emplace(key, std::move(m));
  }
  /// Memory under `key`, left where it is (a runner's mappings), or nullptr.
  Memory* find(const Key& key) {
    const std::lock_guard lock(mutex_);
    const auto it = held_.find(key);
    return it == held_.end() ? nullptr : &it->second;
  }

 private:
  std::mutex mutex_;
  std::multimap<Key, Memory> held_;  // nodes: what find() returns stays valid while others come and go
};
struct KeptDevice {
  DeviceBuffer<unsigned char> storage;
  std::string ipc;  // its IPC handle, once a runner was given it
};
using KeptDeviceMemory = Kept<std::size_t, KeptDevice>;
using KeptHostMemory = Kept<std::pair<std::size_t, bool>, SharedHostMemory>;
using MappedDeviceMemory = Kept<std::string, void*>;
using MappedHostMemory = Kept<std::tuple<dev_t, ino_t, bool>, SharedHostMemory>;
}  // namespace

void map_next_buffers(std::vector<BufferHandle> handles) {
  for (const auto& h : handles_to_map())  // left by a problem that failed half-way: nothing will map them
    if (h.fd >= 0) ::close(h.fd);
  handles_to_map() = std::move(handles);
}
std::size_t buffers_left_to_map() { return handles_to_map().size(); }

Buffer::Buffer(Problem& owner, Role role, Element element, std::string name, std::size_t bytes, Memory memory)
    : role_(role), element_(element), name_(std::move(name)), bytes_(bytes), memory_(memory) {
  const std::size_t whole = bytes + 2 * kGuardBytes;
  auto& handles = handles_to_map();
  if (!handles.empty() && handles.front().alias) {  // runner side: another Problem's mapping of this buffer
    (memory == Memory::host ? shared_ : mapped_) = handles.front().alias;
    aliased_ = true;
    handles.erase(handles.begin());
  } else if (!handles.empty()) {  // runner side: the referee's allocation, guards already set
    BufferHandle h = std::move(handles.front());
    handles.erase(handles.begin());
    if ((h.fd >= 0) != (memory == Memory::host)) {
      if (h.fd >= 0) ::close(h.fd);
      throw std::invalid_argument("buffer '" + name_ + "': the referee's buffer is in other memory");
    }
    if (memory == Memory::host) {
      const bool pin = !host_only_flag();
      struct stat st {};
      const bool keep = kept(bytes) && ::fstat(h.fd, &st) == 0;
      const auto file = std::tuple{st.st_dev, st.st_ino, pin};
      if (const SharedHostMemory* m = keep ? MappedHostMemory::here().find(file) : nullptr) {
        ::close(h.fd);
        if (m->bytes() != whole) throw std::invalid_argument("buffer '" + name_ + "': the referee's buffer changed size");
        shared_ = m->get();
      } else if (keep) {
        auto mapping = SharedHostMemory::adopt(h.fd, whole, pin);
        shared_ = mapping.get();
        MappedHostMemory::here().give(file, std::move(mapping));
      } else {
        host_ = SharedHostMemory::adopt(h.fd, whole, pin);
      }
    } else {
      cudaIpcMemHandle_t handle;
      if (h.ipc.size() != sizeof handle) throw std::invalid_argument("malformed CUDA IPC handle");
      if (void* const* m = kept(bytes) ? MappedDeviceMemory::here().find(h.ipc) : nullptr) {
        mapped_ = *m;
      } else {
        std::memcpy(&handle, h.ipc.data(), sizeof handle);
        CUDA_CHECK(cudaIpcOpenMemHandle(&mapped_, handle, cudaIpcMemLazyEnablePeerAccess));
        if (kept(bytes)) MappedDeviceMemory::here().give(h.ipc, mapped_);
      }
    }
  } else if (memory == Memory::host) {  // made even in host_only mode: host memory needs no GPU
    if (kept(bytes)) host_ = KeptHostMemory::here().take({whole, !host_only_flag()});
    if (!host_.get()) host_ = SharedHostMemory(whole, !host_only_flag());
    fill_host_words(host_.get(), whole, guard_word(role));
  } else if (!host_only_flag()) {
    allocate_device();
  }
  owner.buffers_.push_back(this);
}

void Buffer::allocate_device() {
  const std::size_t whole = bytes_ + 2 * kGuardBytes;
  if (kept(bytes_)) {
    KeptDevice k = KeptDeviceMemory::here().take(whole);
    storage_ = std::move(k.storage);
    ipc_ = std::move(k.ipc);
  }
  if (!storage_.get()) storage_ = DeviceBuffer<unsigned char>(whole, DeviceMemory::kShareable);  // for runners
  detail::fill_words(storage_.get(), storage_.bytes(), guard_word(role_), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());  // the fill is asynchronous: finish before any stream can touch it
}

void Buffer::to_device() {
  if (!on_device()) allocate_device();
}

Buffer::~Buffer() {
  if (!kept(bytes_)) {
    if (mapped_ && !aliased_) CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(mapped_));
    return;
  }
  // Kept (referee side): for the next buffer of this size. Mappings (runner side) stay in Mapped.
  // Each key is read before its memory is moved out (a function's arguments are made in no set order).
  if (storage_.get()) {
    const std::size_t size = storage_.bytes();
    KeptDeviceMemory::here().give(size, {std::move(storage_), std::move(ipc_)});
  }
  if (host_.get() && host_.fd() >= 0) {
    const std::pair key{host_.bytes(), host_.pinned()};
    KeptHostMemory::here().give(key, std::move(host_));
  }
}

BufferHandle Buffer::alias_handle() const {
  return {.alias = static_cast<unsigned char*>(raw_data()) - kGuardBytes};
}

std::string Buffer::ipc_handle() const {
  if (memory_ == Memory::host) throw std::logic_error("buffer '" + name_ + "' is host memory: it has no IPC handle");
  if (ipc_.empty()) {
    cudaIpcMemHandle_t handle;
    CUDA_CHECK(cudaIpcGetMemHandle(&handle, storage_.get()));
    ipc_.assign(reinterpret_cast<const char*>(&handle), sizeof handle);
  }
  return ipc_;
}

void* Buffer::raw_data() const {
  void* base = memory_ == Memory::host ? (shared_ ? shared_ : host_.get()) : mapped_ ? mapped_ : storage_.get();
  return static_cast<unsigned char*>(base) + kGuardBytes;
}

void Buffer::poison(cudaStream_t stream) {
  if (memory_ == Memory::host)
    fill_host_words(raw_data(), bytes_, kPoisonWord);
  else
    detail::fill_words(raw_data(), bytes_, kPoisonWord, stream);
}

void Buffer::upload(const void* host) {
  if (memory_ == Memory::host) {  // shared host memory, made even in host-only mode
    std::memcpy(raw_data(), host, bytes_);
    return;
  }
  if (!on_device()) return;  // host only (set_host_only): the values stay on the host
  const InputDeviceTimer timer;
  CUDA_CHECK(cudaMemcpy(raw_data(), host, bytes_, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the DMA has landed; a kernel launched next on another stream
  // would read a half-written input (seen on an H200: wrong sums at 4099 elements). Wait for it.
  CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
void Input<T>::set_random(RandomValues values) {
  if constexpr (std::is_same_v<T, float>) {
    const RandomRecipe recipe = values.recipe;
    host_ = std::move(values);
    recipe_ = recipe;
    pristine_ = {};
    if (memory() == Memory::host) {  // filled here: the values are on the host already, no GPU needed
      upload(host_.data());
      return;
    }
    if (on_device()) random_to_device();
  } else {
    throw std::logic_error("random values are floats (course bug)");
  }
}

template <class T>
void Input<T>::random_to_device() {
  if constexpr (std::is_same_v<T, float>) {
    const InputDeviceTimer timer;
    random_on_device(*recipe_, recipe_->seed, static_cast<float*>(raw_data()), host_.size());
    pristine_ = DeviceBuffer<T>(host_.size());
    CUDA_CHECK(cudaMemcpy(pristine_.get(), data(), host_.size() * sizeof(T), cudaMemcpyDeviceToDevice));
  }
}

template <class T>
void Input<T>::to_device() {
  if (on_device()) return;
  Buffer::to_device();
  // What set() or set_random() would have put there, had the buffer had its device memory then.
  if (recipe_) random_to_device();
  else if (!host_.empty()) upload(host_.data());
}

template <class T>
std::optional<std::int64_t> Output<T>::first_unwritten_sample() const {
  if (memory() != Memory::host || count_ == 0) return std::nullopt;
  static_assert(sizeof(T) == sizeof kPoisonWord, "poison is one word per element");
  const auto* words = static_cast<const std::uint32_t*>(raw_data());
  const auto n = static_cast<std::int64_t>(count_);
  for (std::int64_t q = 0; q <= 64; ++q) {
    const std::int64_t i = q * (n - 1) / 64;
    std::uint32_t w;
    std::memcpy(&w, words + i, sizeof w);  // the word as it is now: a DMA may still be writing it
    if (w == kPoisonWord) return i;
  }
  return std::nullopt;
}

template class Input<float>;
template class Input<std::int32_t>;
template class Output<float>;
template class Output<std::int32_t>;
template class Scratch<float>;
template class Scratch<std::int32_t>;

// ---- Problem ----

void Problem::poison(cudaStream_t stream) {
  unjoined_.reset();
  for (Buffer* b : buffers_)
    if (b->role() != Buffer::Role::input) b->poison(stream);
}

bool Problem::can_move_to_device() const {
  return checks_on_device() && std::none_of(buffers_.begin(), buffers_.end(), [](const Buffer* b) {
           return b->on_device();
         });
}

std::size_t Problem::host_bytes() const {
  std::size_t bytes = 0;
  for (const Buffer* b : buffers_)
    if (b->role() == Buffer::Role::input) bytes += b->bytes();
    else if (b->role() == Buffer::Role::output) bytes += b->bytes() / sizeof(float) * sizeof(double);  // a double each
  return bytes;
}

void Problem::to_device() {
  if (!can_move_to_device()) throw std::logic_error("to_device(): a problem made host-only, in device memory only");
  for (Buffer* b : buffers_) b->to_device();
}

bool Problem::checks_on_device() const {
  return std::none_of(buffers_.begin(), buffers_.end(), [](const Buffer* b) { return b->memory() == Memory::host; });
}

std::optional<Problem::Unjoined> Problem::first_unjoined() const {
  for (std::size_t k = 0; k < buffers_.size(); ++k) {
    const Buffer* b = buffers_[k];
    if (b->role() != Buffer::Role::output) continue;
    const auto i = b->element() == Element::f32 ? static_cast<const Output<float>*>(b)->first_unwritten_sample()
                                                : static_cast<const Output<std::int32_t>*>(b)->first_unwritten_sample();
    if (i) return Unjoined{k, *i};
  }
  return std::nullopt;
}

bool Problem::refreshable() const {
  const auto refreshable = [](const Buffer* b) {
    if (b->role() != Buffer::Role::input) return true;
    return b->element() == Element::f32 ? static_cast<const Input<float>*>(b)->refreshable()
                                        : static_cast<const Input<std::int32_t>*>(b)->refreshable();
  };
  return checks_on_device() && std::all_of(buffers_.begin(), buffers_.end(), refreshable);
}

bool Problem::sampled_check() const {
  const auto sampled = [](const Buffer* b) {
    if (b->role() != Buffer::Role::output) return false;
    return b->element() == Element::f32 ? static_cast<const Output<float>*>(b)->sampled_check()
                                        : static_cast<const Output<std::int32_t>*>(b)->sampled_check();
  };
  return std::any_of(buffers_.begin(), buffers_.end(), sampled);
}

// ---- registry ----

const ExerciseSpec* Lab::find(std::string_view name) const {
  for (const auto& e : exercises)
    if (e.name == name) return &e;
  return nullptr;
}

Lab& lab() {
  static Lab l;
  return l;
}

ExerciseRegistrar::ExerciseRegistrar(ExerciseSpec spec, const char* lab_id) {
  lab().id = lab_id;
  if (lab().find(spec.name)) throw std::logic_error("exercise '" + spec.name + "' registered twice");
  lab().exercises.push_back(std::move(spec));
}

}  // namespace harness
