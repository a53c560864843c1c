// The referee's checks of a run (the members problem.hpp marks "Referee:"): guard zones, inputs unchanged, outputs
// against their CPU reference (on the host or on the GPU), fresh inputs and kept outputs of timed rounds. No runner
// links this file: a submission's process holds the buffers' storage, never the code that judges them.
#include <harness/compare.hpp>
#include <harness/cuda_check.hpp>
#include <harness/problem.hpp>

#include "device_verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace harness {

/// What the checks need of a Buffer beyond its public face: where its data is, and its guard zones.
struct BufferAccess {
  static const unsigned char* data(const Buffer& b) { return static_cast<const unsigned char*>(b.raw_data()); }

  /// False if anything wrote into the guard zones before or after the data.
  static bool guards_intact(const Buffer& b) {
    const std::size_t guard_bytes = Buffer::guard_bytes();
    const std::uint32_t word = Buffer::guard_word(b.role());
    std::vector<unsigned char> guard(guard_bytes);
    // `offset`: where the guard starts in the allocation, which was filled with the pattern from its first byte.
    const auto intact = [&](std::size_t offset) {
      for (std::size_t k = 0; k < guard.size(); ++k)
        if (guard[k] != static_cast<unsigned char>(word >> (8 * ((offset + k) % 4)))) return false;
      return true;
    };
    const auto read = [&](const unsigned char* from) {
      if (b.memory() == Memory::host)
        std::memcpy(guard.data(), from, guard_bytes);
      else
        CUDA_CHECK(cudaMemcpy(guard.data(), from, guard_bytes, cudaMemcpyDeviceToHost));
    };
    read(data(b) - guard_bytes);
    if (!intact(0)) return false;
    read(data(b) + b.bytes());
    return intact(guard_bytes + b.bytes());
  }

  /// Copies the data to `host` (synchronous).
  static void download(const Buffer& b, void* host) {
    if (b.memory() == Memory::host)
      std::memcpy(host, data(b), b.bytes());
    else
      CUDA_CHECK(cudaMemcpy(host, data(b), b.bytes(), cudaMemcpyDeviceToHost));
  }
};

namespace {

std::string out_of_bounds(const Buffer& b) {
  const char* role = b.role() == Buffer::Role::input ? "input" : b.role() == Buffer::Role::output ? "output" : "scratch";
  return "out-of-bounds write: something wrote just outside " + std::string(role) + " '" + b.name() + "'";
}

/// Position `k` of the kTimedSamples a timed run is checked at, among `count` elements: all of them when few.
std::size_t sample_position(std::uint64_t salt, std::size_t k, std::size_t count) {
  return count <= Buffer::kTimedSamples ? k : static_cast<std::size_t>(hash64(salt, k) % count);
}

template <class T, template <class> class Of>
constexpr bool is_a = std::is_same_v<T, Of<float>> || std::is_same_v<T, Of<std::int32_t>>;

/// Calls `f` with `b` as what it is: Input, Output or Scratch of float or int32 (role() and element() say which).
template <class B, class F>
void visit(B& b, F&& f) {
  constexpr bool mutable_buffer = !std::is_const_v<B>;
  const auto as = [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    using Typed = std::conditional_t<mutable_buffer, T, const T>;
    f(static_cast<Typed&>(b));
  };
  const bool f32 = b.element() == Element::f32;
  switch (b.role()) {
    case Buffer::Role::input:
      return f32 ? as(static_cast<Input<float>*>(nullptr)) : as(static_cast<Input<std::int32_t>*>(nullptr));
    case Buffer::Role::output:
      return f32 ? as(static_cast<Output<float>*>(nullptr)) : as(static_cast<Output<std::int32_t>*>(nullptr));
    case Buffer::Role::scratch:
      return f32 ? as(static_cast<Scratch<float>*>(nullptr)) : as(static_cast<Scratch<std::int32_t>*>(nullptr));
  }
}

/// Adds to `problems` what `check(buffer, problems)` finds in each input and output of `buffers`; a scratch buffer's
/// contents are its own, so only its guard zones are checked.
template <class F>
void check_each(const std::vector<Buffer*>& buffers, std::vector<std::string>& problems, F&& check) {
  for (const Buffer* b : buffers)
    visit(*b, [&](const auto& x) {
      if constexpr (is_a<std::decay_t<decltype(x)>, Scratch>) {
        if (!BufferAccess::guards_intact(x)) problems.push_back(out_of_bounds(x));
      } else {
        check(x, problems);
      }
    });
}

Verdict verdict_of(const std::vector<std::string>& problems) {
  Verdict v;
  v.ok = problems.empty();
  for (const auto& p : problems) v.message += (v.message.empty() ? "" : "\n") + p;
  return v;
}

}  // namespace

// ---- Input ----

template <class T>
void Input<T>::verify(bool check_contents, std::vector<std::string>& problems) const {
  if (!BufferAccess::guards_intact(*this)) problems.push_back(out_of_bounds(*this));
  if (!check_contents) return;
  std::vector<T> copy;
  const T* now = data();  // shared host memory is compared where it is
  if (memory() != Memory::host) {
    copy.resize(host_.size());
    BufferAccess::download(*this, copy.data());
    now = copy.data();
  }
  if (std::memcmp(now, host_.data(), host_.size() * sizeof(T)) != 0)
    problems.push_back("input '" + name() + "' was modified; inputs are read-only");
}

template <class T>
void Input<T>::verify_on_device(std::vector<std::string>& problems) const {
  if (memory() == Memory::host) return verify(true, problems);  // nothing to gain from the GPU
  if (!BufferAccess::guards_intact(*this)) problems.push_back(out_of_bounds(*this));
  if (pristine_.size() != host_.size()) {
    pristine_ = DeviceBuffer<T>(host_.size());
    CUDA_CHECK(cudaMemcpy(pristine_.get(), host_.data(), host_.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  if (detail::differing_words(data(), pristine_.get(), host_.size() * sizeof(T)).count > 0)
    problems.push_back("input '" + name() + "' was modified; inputs are read-only");
}

template <class T>
void Input<T>::verify_sample(std::uint64_t salt, std::vector<std::string>& problems) const {
  if (!BufferAccess::guards_intact(*this)) problems.push_back(out_of_bounds(*this));
  if (memory() != Memory::host) return;  // device memory: its guards; its values are the GPU checks' business
  const T* now = data();
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
void Input<T>::refresh(std::uint64_t salt) {
  if (!recipe_) throw std::logic_error("input '" + name() + "' has no recipe to refresh from (course bug)");
  if constexpr (std::is_same_v<T, float>) {
    random_on_device(*recipe_, hash64(recipe_->seed, salt), static_cast<float*>(raw_data()), host_.size());
    if (pristine_.size() != host_.size()) pristine_ = DeviceBuffer<T>(host_.size());
    CUDA_CHECK(cudaMemcpy(pristine_.get(), data(), host_.size() * sizeof(T), cudaMemcpyDeviceToDevice));
  }
}

// ---- Output ----

template <class T>
void Output<T>::verify(bool check_contents, std::vector<std::string>& problems) const {
  if (!BufferAccess::guards_intact(*this))
    problems.push_back(out_of_bounds(*this) + " (" + std::to_string(count_) + " elements)");
  if (!check_contents) return;
  const std::size_t checked = sampled_.empty() ? count_ : sampled_.size();
  if (reference_.size() != checked)
    throw std::logic_error("output '" + name() + "' has no reference of the right size (course bug)");
  Comparison c;
  if (memory() == Memory::host && sampled_.empty()) {
    // Shared host memory (lab 07's arrays) is compared where it is: a copy of 2^26 elements first cost more than the
    // comparison, three times in every `time` run.
    c = compare(data(), reference_.data(), count_, tolerance_);
  } else {
    std::vector<T> got(count_);
    BufferAccess::download(*this, got.data());
    c = compare_host(got);
  }
  if (!c.ok())
    problems.push_back(sampled_.empty() ? c.describe("output '" + name() + "'", tolerance_)
                                        : c.describe("output '" + name() + "' (sampled)", tolerance_, &sampled_));
}

template <class T>
void Output<T>::verify_on_device(std::vector<std::string>& problems) const {
  if (memory() == Memory::host) return verify(true, problems);  // nothing to gain from the GPU
  if (!BufferAccess::guards_intact(*this))
    problems.push_back(out_of_bounds(*this) + " (" + std::to_string(count_) + " elements)");
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
void Output<T>::verify_sample(std::uint64_t salt, std::vector<std::string>& problems) const {
  if (!BufferAccess::guards_intact(*this))
    problems.push_back(out_of_bounds(*this) + " (" + std::to_string(count_) + " elements)");
  // Device outputs and sampled references: compared in full with the reference implementation's (compare_saved).
  if (memory() != Memory::host || !sampled_.empty()) return;
  if (reference_.size() != count_)
    throw std::logic_error("output '" + name() + "' has no reference of the right size (course bug)");
  const T* values = data();
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
  if (!c.ok())
    problems.push_back(c.describe("output '" + name() + "' (random positions of a timed run)", tolerance, &where));
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
void Output<T>::save(std::size_t slot) {
  if (saved_.size() <= slot) saved_.resize(slot + 1);
  if (saved_[slot].size() != count_) saved_[slot] = DeviceBuffer<T>(count_);
  CUDA_CHECK(cudaMemcpy(saved_[slot].get(), data(), count_ * sizeof(T), cudaMemcpyDefault));  // device or host
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

// ---- Problem ----

Verdict Problem::verify(bool check_contents) const {
  if (!host_only()) CUDA_CHECK(cudaDeviceSynchronize());  // host only: a CPU test of buffers in host memory
  std::vector<std::string> problems;
  if (unjoined_ && unjoined_->buffer < buffers_.size()) {
    const std::string at = buffers_[unjoined_->buffer]->name() + "[" + std::to_string(unjoined_->element) + "]";
    problems.push_back(at + " was not written when the harness's stream had finished: either it is never written, "
                       "or work on your own streams is not ordered before `stream` (record an event at the end of "
                       "each of your streams and make `stream` wait on it)");
  }
  check_each(buffers_, problems, [&](const auto& x, auto& found) { x.verify(check_contents, found); });
  return verdict_of(problems);
}

Verdict Problem::verify_on_device() const {
  if (!checks_on_device()) return verify(true);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::string> problems;
  check_each(buffers_, problems, [](const auto& x, auto& found) { x.verify_on_device(found); });
  return verdict_of(problems);
}

void Problem::refresh_inputs(std::uint64_t salt) {
  for (Buffer* b : buffers_)
    visit(*b, [&](auto& x) {
      if constexpr (is_a<std::decay_t<decltype(x)>, Input>) x.refresh(salt);
    });
}

void Problem::save_outputs(std::size_t slot) {
  CUDA_CHECK(cudaDeviceSynchronize());
  for (Buffer* b : buffers_)
    visit(*b, [&](auto& x) {
      if constexpr (is_a<std::decay_t<decltype(x)>, Output>) x.save(slot);
    });
}

Verdict Problem::compare_saved(std::size_t slot, std::size_t against) const {
  std::vector<std::string> problems;
  for (const Buffer* b : buffers_)
    visit(*b, [&](const auto& x) {
      if constexpr (is_a<std::decay_t<decltype(x)>, Output>) x.compare_saved(slot, against, problems);
    });
  return verdict_of(problems);
}

Verdict Problem::verify_unchanged() const {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::string> problems;
  // An input is checked whole against its fill; an output only for its guard zones (its contents are the answer).
  check_each(buffers_, problems, [](const auto& x, auto& found) {
    if constexpr (is_a<std::decay_t<decltype(x)>, Input>) {
      x.verify_on_device(found);
    } else {
      x.verify(false, found);
    }
  });
  return verdict_of(problems);
}

Verdict Problem::verify_sample(std::uint64_t salt) const {
  std::vector<std::string> problems;
  check_each(buffers_, problems, [&](const auto& x, auto& found) { x.verify_sample(salt, found); });
  return verdict_of(problems);
}

// The referee's members of the buffer templates, for the two element types (the rest is in harness_common).
#define HARNESS_REFEREE_MEMBERS(T)                                                                                  \
  template void Input<T>::verify(bool, std::vector<std::string>&) const;                                           \
  template void Input<T>::verify_on_device(std::vector<std::string>&) const;                                       \
  template void Input<T>::verify_sample(std::uint64_t, std::vector<std::string>&) const;                           \
  template void Input<T>::refresh(std::uint64_t);                                                                  \
  template void Output<T>::verify(bool, std::vector<std::string>&) const;                                          \
  template void Output<T>::verify_on_device(std::vector<std::string>&) const;                                      \
  template void Output<T>::verify_sample(std::uint64_t, std::vector<std::string>&) const;                          \
  template Comparison Output<T>::compare_host(const std::vector<T>&) const;                                        \
  template void Output<T>::save(std::size_t);                                                                      \
  template void Output<T>::compare_saved(std::size_t, std::size_t, std::vector<std::string>&) const;
HARNESS_REFEREE_MEMBERS(float)
HARNESS_REFEREE_MEMBERS(std::int32_t)
#undef HARNESS_REFEREE_MEMBERS

}  // namespace harness
