#include <harness/problem.hpp>

#include "device_verify.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>
#include <stdexcept>

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
constexpr std::uint32_t kPoisonWord = 0x7FFFFFFFu;  // NaN; INT_MAX
std::uint32_t guard_word(Buffer::Role role) {
  switch (role) {
    case Buffer::Role::input: return kInputGuardWord;
    case Buffer::Role::output: return kOutputGuardWord;
    case Buffer::Role::scratch: return kScratchGuardWord;
  }
  return kOutputGuardWord;
}
/// Byte `offset` of an allocation filled with `word` from its start (little-endian).
constexpr unsigned char pattern_byte(std::uint32_t word, std::size_t offset) {
  return static_cast<unsigned char>(word >> (8 * (offset % 4)));
}
/// detail::fill_words on host memory: `bytes` at `p` (4-byte aligned) filled with `word`, here and now.
void fill_host_words(void* p, std::size_t bytes, std::uint32_t word) {
  auto* words = static_cast<std::uint32_t*>(p);
  std::fill_n(words, bytes / 4, word);
  auto* tail = static_cast<unsigned char*>(p) + bytes / 4 * 4;
  for (std::size_t k = 0; k < bytes % 4; ++k) tail[k] = pattern_byte(word, k);
}
}  // namespace

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

bool& host_only() {
  static bool on = false;
  return on;
}
}  // namespace

void set_host_only(bool on) { host_only() = on; }

namespace {
double& input_device_total() {
  static double total = 0;
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

void map_next_buffers(std::vector<BufferHandle> handles) {
  for (const auto& h : handles_to_map())  // left by a problem that failed half-way: nothing will map them
    if (h.fd >= 0) ::close(h.fd);
  handles_to_map() = std::move(handles);
}
std::size_t buffers_left_to_map() { return handles_to_map().size(); }

Buffer::Buffer(Problem& owner, Role role, std::string name, std::size_t bytes, Memory memory)
    : role_(role), name_(std::move(name)), bytes_(bytes), memory_(memory) {
  const std::size_t whole = bytes + 2 * kGuardBytes;
  auto& handles = handles_to_map();
  if (!handles.empty()) {  // runner side: the referee's allocation, guards already set
    BufferHandle h = std::move(handles.front());
    handles.erase(handles.begin());
    if ((h.fd >= 0) != (memory == Memory::host)) {
      if (h.fd >= 0) ::close(h.fd);
      throw std::invalid_argument("buffer '" + name_ + "': the referee's buffer is in other memory");
    }
    if (memory == Memory::host) {
      host_ = SharedHostMemory::adopt(h.fd, whole, !host_only());
    } else {
      cudaIpcMemHandle_t handle;
      if (h.ipc.size() != sizeof handle) throw std::invalid_argument("malformed CUDA IPC handle");
      std::memcpy(&handle, h.ipc.data(), sizeof handle);
      CUDA_CHECK(cudaIpcOpenMemHandle(&mapped_, handle, cudaIpcMemLazyEnablePeerAccess));
    }
  } else if (memory == Memory::host) {  // made even in host_only mode: host memory needs no GPU
    host_ = SharedHostMemory(whole, !host_only());
    fill_host_words(host_.get(), whole, guard_word(role));
  } else if (!host_only()) {
    storage_ = DeviceBuffer<unsigned char>(whole);
    detail::fill_words(storage_.get(), storage_.bytes(), guard_word(role), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());  // the fill is asynchronous: finish before any stream can touch it
  }
  owner.buffers_.push_back(this);
}

Buffer::~Buffer() {
  if (mapped_) CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(mapped_));
}

std::string Buffer::ipc_handle() const {
  if (memory_ == Memory::host) throw std::logic_error("buffer '" + name_ + "' is host memory: it has no IPC handle");
  cudaIpcMemHandle_t handle;
  CUDA_CHECK(cudaIpcGetMemHandle(&handle, storage_.get()));
  return {reinterpret_cast<const char*>(&handle), sizeof handle};
}

void* Buffer::raw_data() const {
  void* base = memory_ == Memory::host ? host_.get() : mapped_ ? mapped_ : storage_.get();
  return static_cast<unsigned char*>(base) + kGuardBytes;
}

void Buffer::poison(cudaStream_t stream) {
  if (memory_ == Memory::host)
    fill_host_words(raw_data(), bytes_, kPoisonWord);
  else
    detail::fill_words(raw_data(), bytes_, kPoisonWord, stream);
}

bool Buffer::guards_intact() const {
  std::vector<unsigned char> guard(kGuardBytes);
  // `offset`: where the guard starts in the allocation, which was filled with the pattern from its first byte.
  const auto intact = [&](std::size_t offset) {
    for (std::size_t k = 0; k < guard.size(); ++k)
      if (guard[k] != pattern_byte(guard_word(role_), offset + k)) return false;
    return true;
  };
  const auto* data = static_cast<const unsigned char*>(raw_data());
  const auto read = [&](const unsigned char* from) {
    if (memory_ == Memory::host)
      std::memcpy(guard.data(), from, kGuardBytes);
    else
      CUDA_CHECK(cudaMemcpy(guard.data(), from, kGuardBytes, cudaMemcpyDeviceToHost));
  };
  read(data - kGuardBytes);
  if (!intact(0)) return false;
  read(data + bytes_);
  return intact(kGuardBytes + bytes_);
}

void Buffer::download(void* host) const {
  if (memory_ == Memory::host)
    std::memcpy(host, raw_data(), bytes_);
  else
    CUDA_CHECK(cudaMemcpy(host, raw_data(), bytes_, cudaMemcpyDeviceToHost));
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
void Input<T>::verify(bool check_contents, std::vector<std::string>& problems) const {
  if (!guards_intact()) problems.push_back("out-of-bounds write: something wrote just outside input '" + name() + "'");
  if (!check_contents) return;
  std::vector<T> copy;
  const T* now = static_cast<const T*>(raw_data());  // shared host memory is compared where it is
  if (memory() != Memory::host) {
    copy.resize(host_.size());
    download(copy.data());
    now = copy.data();
  }
  if (std::memcmp(now, host_.data(), host_.size() * sizeof(T)) != 0)
    problems.push_back("input '" + name() + "' was modified; inputs are read-only");
}

template <class T>
void Output<T>::verify(bool check_contents, std::vector<std::string>& problems) const {
  if (!guards_intact())
    problems.push_back("out-of-bounds write: something wrote just outside output '" + name() + "' (" +
                       std::to_string(count_) + " elements)");
  if (!check_contents) return;
  const std::size_t checked = sampled_.empty() ? count_ : sampled_.size();
  if (reference_.size() != checked)
    throw std::logic_error("output '" + name() + "' has no reference of the right size (course bug)");
  Comparison c;
  if (memory() == Memory::host && sampled_.empty()) {
    // Shared host memory (lab 07's arrays) is compared where it is: a copy of 2^26 elements first cost more than the
    // comparison, three times in every `time` run.
    c = compare(static_cast<const T*>(raw_data()), reference_.data(), count_, tolerance_);
  } else {
    std::vector<T> got(count_);
    download(got.data());
    c = compare_host(got);
  }
  if (!c.ok())
    problems.push_back(sampled_.empty() ? c.describe("output '" + name() + "'", tolerance_)
                                        : c.describe("output '" + name() + "' (sampled)", tolerance_, &sampled_));
}

namespace {
/// Position `k` of the kTimedSamples a timed run is checked at, among `count` elements: all of them when few.
std::size_t sample_position(std::uint64_t salt, std::size_t k, std::size_t count) {
  return count <= Buffer::kTimedSamples ? k : static_cast<std::size_t>(hash64(salt, k) % count);
}
}  // namespace

template <class T>
void Input<T>::verify_sample(std::uint64_t salt, std::vector<std::string>& problems) const {
  if (memory() != Memory::host) return Buffer::verify_sample(salt, problems);
  if (!guards_intact()) problems.push_back("out-of-bounds write: something wrote just outside input '" + name() + "'");
  const T* now = static_cast<const T*>(raw_data());
  for (std::size_t k = 0; k < std::min(host_.size(), kTimedSamples); ++k) {
    const std::size_t i = sample_position(salt, k, host_.size());
    if (std::memcmp(&now[i], &host_[i], sizeof(T)) != 0) {
      problems.push_back("input '" + name() + "' was modified during a timed run (first seen at [" +
                         std::to_string(i) + "]); inputs are read-only");
      return;
    }
  }
}

template <class T>
void Output<T>::verify_sample(std::uint64_t salt, std::vector<std::string>& problems) const {
  if (memory() != Memory::host || !sampled_.empty()) return Buffer::verify_sample(salt, problems);
  if (!guards_intact())
    problems.push_back("out-of-bounds write: something wrote just outside output '" + name() + "' (" +
                       std::to_string(count_) + " elements)");
  if (reference_.size() != count_)
    throw std::logic_error("output '" + name() + "' has no reference of the right size (course bug)");
  const T* values = static_cast<const T*>(raw_data());
  const std::size_t n = std::min(count_, kTimedSamples);
  std::vector<T> got(n);
  std::vector<double> expected(n);
  std::vector<std::size_t> where(n);
  Tolerance tolerance{{}, tolerance_.rtol};
  for (std::size_t k = 0; k < n; ++k) {
    where[k] = sample_position(salt, k, count_);
    got[k] = values[where[k]];
    expected[k] = reference_[where[k]];
    tolerance.atol.push_back(tolerance_.atol_at(where[k]));
  }
  const Comparison c = compare(got.data(), expected.data(), n, tolerance);
  if (!c.ok()) problems.push_back(c.describe("output '" + name() + "' (random positions of a timed run)", tolerance,
                                             &where));
}

template <class T>
Comparison Output<T>::compare_host(const std::vector<T>& got) const {
  const std::size_t checked = sampled_.empty() ? count_ : sampled_.size();
  if (reference_.size() != checked || got.size() != count_)
    throw std::logic_error("output '" + name() + "': reference or values of the wrong size (course bug)");
  if (sampled_.empty()) return compare(got.data(), reference_.data(), count_, tolerance_);
  std::vector<T> picked(checked);  // gather the samples; mismatches are reported by their index in the output
  for (std::size_t k = 0; k < checked; ++k) picked[k] = got.at(sampled_[k]);
  return compare(picked.data(), reference_.data(), checked, tolerance_);
}

template <class T>
void Scratch<T>::verify(bool /*check_contents*/, std::vector<std::string>& problems) const {
  if (!guards_intact())
    problems.push_back("out-of-bounds write: something wrote just outside scratch '" + name() + "'");
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
    if (!on_device()) return;
    const InputDeviceTimer timer;
    random_on_device(recipe, recipe.seed, static_cast<float*>(raw_data()), host_.size());
    pristine_ = DeviceBuffer<T>(host_.size());
    CUDA_CHECK(cudaMemcpy(pristine_.get(), data(), host_.size() * sizeof(T), cudaMemcpyDeviceToDevice));
  } else {
    throw std::logic_error("random values are floats (course bug)");
  }
}

template <class T>
void Input<T>::refresh(std::uint64_t salt) {
  if (!recipe_) throw std::logic_error("input '" + name() + "' has no recipe to refresh from (course bug)");
  if constexpr (std::is_same_v<T, float>) {
    random_on_device(*recipe_, hash64(recipe_->seed, salt), static_cast<float*>(raw_data()), host_.size());
    if (pristine_.size() != host_.size()) pristine_ = DeviceBuffer<T>(host_.size());
    CUDA_CHECK(cudaMemcpy(pristine_.get(), data(), host_.size() * sizeof(T), cudaMemcpyDeviceToDevice));
  }
}

template <class T>
void Input<T>::verify_on_device(std::vector<std::string>& problems) const {
  if (memory() == Memory::host) return verify(true, problems);  // nothing to gain from the GPU
  if (!guards_intact()) problems.push_back("out-of-bounds write: something wrote just outside input '" + name() + "'");
  if (pristine_.size() != host_.size()) {
    pristine_ = DeviceBuffer<T>(host_.size());
    CUDA_CHECK(cudaMemcpy(pristine_.get(), host_.data(), host_.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  if (detail::differing_words(data(), pristine_.get(), host_.size() * sizeof(T)).count > 0)
    problems.push_back("input '" + name() + "' was modified; inputs are read-only");
}

template <class T>
void Output<T>::verify_on_device(std::vector<std::string>& problems) const {
  if (memory() == Memory::host) return verify(true, problems);  // nothing to gain from the GPU
  if (!guards_intact())
    problems.push_back("out-of-bounds write: something wrote just outside output '" + name() + "' (" +
                       std::to_string(count_) + " elements)");
  const std::size_t checked = sampled_.empty() ? count_ : sampled_.size();
  if (reference_.size() != checked)
    throw std::logic_error("output '" + name() + "' has no reference of the right size (course bug)");
  if (!device_) {
    device_ = std::make_unique<DeviceReference>();
    const auto upload_vector = [](const auto& host, auto& buffer) {
      using V = typename std::decay_t<decltype(host)>::value_type;
      buffer = DeviceBuffer<V>(host.size());
      CUDA_CHECK(cudaMemcpy(buffer.get(), host.data(), host.size() * sizeof(V), cudaMemcpyHostToDevice));
    };
    upload_vector(reference_, device_->reference);
    upload_vector(tolerance_.atol, device_->atol);
    if (!sampled_.empty()) upload_vector(sampled_, device_->indices);
  }
  const auto m = detail::compare_on_device(data(), device_->reference.get(), device_->indices.get(),
                                           device_->atol.get(), tolerance_.atol.size() > 1, tolerance_.rtol, checked);
  if (m.count == 0) return;
  const std::size_t at = sampled_.empty() ? m.first : sampled_[m.first];
  T got{};
  CUDA_CHECK(cudaMemcpy(&got, data() + at, sizeof(T), cudaMemcpyDeviceToHost));
  std::ostringstream os;
  os.precision(9);
  os << "output '" << name() << "'" << (sampled_.empty() ? "" : " (sampled)") << ": " << m.count << " of " << checked
     << " elements differ; first at [" << at << "]: got " << static_cast<double>(got) << ", expected "
     << reference_[m.first];
  problems.push_back(os.str());
}

template <class T>
void Output<T>::save(std::size_t slot) {
  if (saved_.size() <= slot) saved_.resize(slot + 1);
  if (saved_[slot].size() != count_) saved_[slot] = DeviceBuffer<T>(count_);
  CUDA_CHECK(cudaMemcpy(saved_[slot].get(), data(), count_ * sizeof(T), cudaMemcpyDefault));  // device or host
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

template <class T>
void Output<T>::compare_saved(std::size_t slot, std::size_t against, std::vector<std::string>& problems) const {
  if (std::max(slot, against) >= saved_.size()) throw std::logic_error("compare_saved: empty slot (course bug)");
  // Both are float results of the same inputs, each within the tolerance of the exact answer: twice the tolerance.
  const double atol = 2.0 * *std::max_element(tolerance_.atol.begin(), tolerance_.atol.end());
  const double rtol = 2.0 * tolerance_.rtol;
  const auto m = detail::compare_arrays_on_device(saved_[slot].get(), saved_[against].get(), atol, rtol, count_);
  if (m.count == 0) return;
  T got{}, expected{};
  CUDA_CHECK(cudaMemcpy(&got, saved_[slot].get() + m.first, sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&expected, saved_[against].get() + m.first, sizeof(T), cudaMemcpyDeviceToHost));
  std::ostringstream os;
  os.precision(9);
  os << "output '" << name() << "': " << m.count << " of " << count_ << " elements differ from the reference's on the "
     << "same inputs; first at [" << m.first << "]: got " << static_cast<double>(got) << ", the reference "
     << static_cast<double>(expected) << " (tolerance " << atol + rtol * std::fabs(static_cast<double>(expected))
     << ")";
  problems.push_back(os.str());
}

template <class T>
void Scratch<T>::verify_on_device(std::vector<std::string>& problems) const {
  verify(false, problems);
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

namespace {
Verdict verdict_of(const std::vector<std::string>& problems) {
  Verdict v;
  v.ok = problems.empty();
  for (const auto& p : problems) v.message += (v.message.empty() ? "" : "\n") + p;
  return v;
}
}  // namespace

Verdict Problem::verify(bool check_contents) const {
  if (!host_only()) CUDA_CHECK(cudaDeviceSynchronize());  // host only: a CPU test of buffers in host memory
  std::vector<std::string> problems;
  if (unjoined_ && unjoined_->buffer < buffers_.size()) {
    const std::string at = buffers_[unjoined_->buffer]->name() + "[" + std::to_string(unjoined_->element) + "]";
    problems.push_back(at + " was not written when the harness's stream had finished: either it is never written, "
                       "or work on your own streams is not ordered before `stream` (record an event at the end of "
                       "each of your streams and make `stream` wait on it)");
  }
  for (const Buffer* b : buffers_) b->verify(check_contents, problems);
  return verdict_of(problems);
}

bool Problem::checks_on_device() const {
  return std::none_of(buffers_.begin(), buffers_.end(), [](const Buffer* b) { return b->memory() == Memory::host; });
}

std::optional<Problem::Unjoined> Problem::first_unjoined() const {
  for (std::size_t k = 0; k < buffers_.size(); ++k)
    if (const auto i = buffers_[k]->first_unwritten_sample()) return Unjoined{k, *i};
  return std::nullopt;
}

Verdict Problem::verify_on_device() const {
  if (!checks_on_device()) return verify(true);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::string> problems;
  for (const Buffer* b : buffers_) b->verify_on_device(problems);
  return verdict_of(problems);
}

bool Problem::refreshable() const {
  return checks_on_device() && std::all_of(buffers_.begin(), buffers_.end(), [](const Buffer* b) { return b->refreshable(); });
}

void Problem::refresh_inputs(std::uint64_t salt) {
  for (Buffer* b : buffers_) b->refresh(salt);
}

void Problem::save_outputs(std::size_t slot) {
  CUDA_CHECK(cudaDeviceSynchronize());
  for (Buffer* b : buffers_) b->save(slot);
}

Verdict Problem::compare_saved(std::size_t slot, std::size_t against) const {
  std::vector<std::string> problems;
  for (const Buffer* b : buffers_) b->compare_saved(slot, against, problems);
  return verdict_of(problems);
}

Verdict Problem::verify_unchanged() const {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::string> problems;
  for (const Buffer* b : buffers_) b->verify_unchanged(problems);
  return verdict_of(problems);
}

Verdict Problem::verify_sample(std::uint64_t salt) const {
  std::vector<std::string> problems;
  for (const Buffer* b : buffers_) b->verify_sample(salt, problems);
  return verdict_of(problems);
}

bool Problem::sampled_check() const {
  return std::any_of(buffers_.begin(), buffers_.end(), [](const Buffer* b) { return b->sampled_check(); });
}

// ---- ceilings ----

namespace {
class CopyCeiling final : public CeilingOp {
 public:
  explicit CopyCeiling(double bytes_moved)
      : half_(std::max<std::size_t>(static_cast<std::size_t>(bytes_moved / 2), 1 << 20)), src_(half_), dst_(half_) {
    CUDA_CHECK(cudaMemset(src_.get(), 1, half_));
  }
  void run(cudaStream_t s) override {
    CUDA_CHECK(cudaMemcpyAsync(dst_.get(), src_.get(), half_, cudaMemcpyDeviceToDevice, s));
  }
  [[nodiscard]] double amount() const override { return 2.0 * static_cast<double>(half_); }
  [[nodiscard]] std::string what() const override { return "device-to-device copy"; }

 private:
  std::size_t half_;
  DeviceBuffer<unsigned char> src_, dst_;
};
}  // namespace

std::unique_ptr<CeilingOp> copy_ceiling(double bytes_moved) { return std::make_unique<CopyCeiling>(bytes_moved); }

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
