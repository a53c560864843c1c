#pragma once
/// @file problem.hpp
/// @brief The exercise contract: a Problem is one instance of an exercise at one shape, with its inputs, its outputs
/// (in device memory, or host memory shared with the runner) and their CPU reference; an ExerciseSpec says how to make
/// one, at which shapes to test it and at which shape to time it.
///
/// A lab's `exercises.cpp` subclasses Problem once per exercise: generate() fills inputs from a seed and computes the
/// expected outputs in double precision on the CPU, run() calls one implementation's launcher, work() counts the
/// bytes and flops the exercise cannot avoid. Everything else (poisoning outputs, guard zones against out-of-bounds
/// writes, checking that inputs were not modified, comparing) is the harness's, the same for every lab.
///
/// Both sides of the grading boundary build the same Problems: the referee to make inputs and check outputs, a runner
/// to map the referee's buffers and call its launcher. This header and harness_common hold what both need; the
/// checks (the members marked "Referee:") are defined in harness_referee, which no runner links (docs/harness.md).
#include <harness/device.hpp>
#include <harness/launcher.hpp>
#include <harness/random.hpp>
#include <harness/tolerance.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace harness {

/// The size of one instance: one to three extents, such as {n}, {rows, cols} or {m, n, k}.
struct Shape {
  std::vector<std::int64_t> dims;  ///< the extents, outermost first
  Shape() = default;
  /// Shape{1025} or Shape{rows, cols}.
  Shape(std::initializer_list<std::int64_t> d) : dims(d) {}
  /// From a vector of extents.
  explicit Shape(std::vector<std::int64_t> d) : dims(std::move(d)) {}
  /// Extent `i`; throws std::out_of_range past the rank.
  [[nodiscard]] std::int64_t operator[](std::size_t i) const { return dims.at(i); }
  /// "1025", "1024x33".
  [[nodiscard]] std::string str() const;
  /// Parses "1025" or "1024x33"; throws std::invalid_argument.
  static Shape parse(std::string_view text);
  // Spelled out (not `= default`) so the header also compiles as CUDA C++17, for lab support kernels.
  /// Same extents.
  friend bool operator==(const Shape& a, const Shape& b) { return a.dims == b.dims; }
};

/// Every pair (a, b) of `extents`, for 2D exercises: edge values in both dimensions at once.
std::vector<Shape> shapes_2d(const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols);
/// One 1D shape per extent.
std::vector<Shape> shapes_1d(const std::vector<std::int64_t>& extents);

/// The least an exercise must do, whatever the kernel: each input read once, each output written once, each
/// necessary operation done once. Rates and % of ceiling are computed from this, never from what a kernel happens
/// to move.
struct Work {
  double bytes = 0;  ///< bytes read plus bytes written
  double flops = 0;  ///< floating-point operations
};

/// What limits an exercise, and so which rate is reported against which ceiling.
enum class Bound {
  memory,  ///< rate in GB/s; the ceiling is a copy unless the exercise gives one
  compute  ///< rate in GFLOP/s; the exercise gives the ceiling
};

class Problem;
struct Comparison;  // compare.hpp (referee)

/// Where a Buffer's storage lives.
enum class Memory {
  device,  ///< device memory (cudaMalloc); a runner maps it by its CUDA IPC handle
  /// host memory the referee shares with its runners (SharedHostMemory: a memfd both map and page-lock), for
  /// exercises about host arrays (lab 07's pipelines); checked on the host
  host
};

/// The element type of a Buffer: what the referee's checks read it as.
enum class Element {
  f32,  ///< float
  i32   ///< std::int32_t
};

/// The Element of `T` (float or std::int32_t).
template <class T>
constexpr Element element_of() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>, "buffers hold float or int32");
  return std::is_same_v<T, float> ? Element::f32 : Element::i32;
}

struct BufferHandle;

/// A buffer with guard zones on both sides, owned by a Problem: device memory, or host memory shared with the runner.
/// Base of Input, Output and Scratch, which the referee's checks tell apart by role() and element().
class Buffer {
 public:
  /// Inputs are checked for modification; outputs are poisoned before every run and compared after it; scratch is
  /// poisoned before and only its guard zones are checked after.
  enum class Role {
    input,   ///< must be unchanged after the run
    output,  ///< poisoned before, compared after
    scratch  ///< poisoned before, contents are the launcher's business
  };
  /// Allocates `bytes` plus guard zones in `memory` and registers the buffer with `owner` (on the runner side: maps
  /// the referee's next buffer instead, map_next_buffers()).
  Buffer(Problem& owner, Role role, Element element, std::string name, std::size_t bytes,
         Memory memory = Memory::device);
  virtual ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  [[nodiscard]] const std::string& name() const { return name_; }  ///< for messages: "x", "y"
  [[nodiscard]] Role role() const { return role_; }                ///< input, output or scratch
  [[nodiscard]] Element element() const { return element_; }       ///< float or int32
  [[nodiscard]] Memory memory() const { return memory_; }          ///< device or shared host memory
  [[nodiscard]] std::size_t bytes() const { return bytes_; }       ///< the data's size, guards left out
  /// Fills the buffer with 0x7FFFFFFF words (NaN as a float, INT_MAX as an int32) so an element the kernel never
  /// writes cannot pass: on `stream` for device memory, here and now for host memory.
  void poison(cudaStream_t stream);
  /// Device memory: the CUDA IPC handle of the whole allocation (guards included), for a runner process to map
  /// (runner.hpp).
  [[nodiscard]] std::string ipc_handle() const;
  /// Host memory: the descriptor of the shared memory (guards included), for a runner process to map (runner.hpp).
  [[nodiscard]] int shared_fd() const { return host_.fd(); }
  /// Runner side: this buffer's memory as this process has it mapped, for another Problem over the same buffers
  /// (BufferHandle::alias).
  [[nodiscard]] BufferHandle alias_handle() const;
  /// Elements verify_sample() looks at: a run that skips a fraction f of an output is caught with probability
  /// 1 - (1 - f)^65536, certain above f = 1e-4.
  static constexpr std::size_t kTimedSamples = std::size_t{1} << 16;
  /// The guard zones' 32-bit word for buffers of `role`: a NaN no GPU arithmetic makes, different per role.
  static std::uint32_t guard_word(Role role);
  /// Bytes of guard on each side of the data.
  static std::size_t guard_bytes();
  /// The word outputs and scratch hold until a kernel writes them (NaN as a float, INT_MAX as an int32).
  static constexpr std::uint32_t kPoisonWord = 0x7FFFFFFFu;

 protected:
  [[nodiscard]] void* raw_data() const;  ///< start of the data, after the guard
  /// Copies `host` into the data and waits until it has landed.
  void upload(const void* host);
  /// False in host-only mode (set_host_only): no device memory, values stay on the host.
  [[nodiscard]] bool on_device() const { return storage_.get() != nullptr || mapped_ != nullptr; }
  /// Referee, through Problem::to_device() (which takes only problems of device memory alone): the device memory a
  /// buffer made in host-only mode did not get, guards set as the constructor sets them. An Input also puts its
  /// values there.
  virtual void to_device();
  friend struct BufferAccess;  // the referee's checks (harness_referee)
  friend class Problem;        // to_device()

 private:
  void allocate_device();  // device memory, from the pool where it keeps this size, guards set
  Role role_;
  Element element_;
  std::string name_;
  std::size_t bytes_;
  Memory memory_;
  DeviceBuffer<unsigned char> storage_;  // device memory: empty when it is another process's, mapped by IPC
  mutable std::string ipc_;              // its IPC handle, once asked for (kept with the memory)
  void* mapped_ = nullptr;               // that mapping (runner side), closed on destruction unless kept
  SharedHostMemory host_;                // host memory: made here (referee) or adopted (runner)
  void* shared_ = nullptr;               // host memory adopted and kept mapped by this process (runner side)
  bool aliased_ = false;                 // mapped_ or shared_ is another Buffer's mapping (BufferHandle::alias)
};

/// CPU tests: Buffers made while this is on get no device memory and inputs stay on the host, so that a Problem's
/// generate() computes its inputs and references without a GPU (tests/labs/lab_mutations.cpp). Buffers in host
/// memory get their shared memory, not page-locked. No CUDA call may run then.
void set_host_only(bool on);
/// Whether set_host_only() is on.
[[nodiscard]] bool host_only();

/// Seconds this process has spent, so far, putting inputs on the GPU (uploads, values made again on the GPU from their
/// recipe, pristine copies), all Buffers together: `labN time` reports it as the device part of its "generate" phase,
/// the rest being the lab's host work (its inputs and CPU reference).
double input_device_seconds();

/// How a runner maps one of the referee's buffers.
struct BufferHandle {
  std::string ipc;        ///< device memory: the CUDA IPC handle (cudaIpcMemHandle_t's bytes)
  int fd = -1;            ///< host memory: a descriptor of the shared memory, taken over (closed once mapped)
  void* alias = nullptr;  ///< or: memory this process has mapped for another Problem (Buffer::alias_handle()), used
                          ///< as it is: neither mapped again nor unmapped by this buffer
};

/// Runner side of the grading boundary: the next Buffers constructed (in construction order) map these handles of
/// the referee's allocations instead of allocating their own. The referee and the runner build the same Problem at
/// the same shape, so the k-th buffer of one is the k-th of the other (in the same memory: a mismatch throws).
void map_next_buffers(std::vector<BufferHandle> handles);
/// Handles given to map_next_buffers() that no Buffer has taken yet (0 once a Problem has taken all of its own).
std::size_t buffers_left_to_map();

/// An input array: uploaded from the host copy, which is kept to check that the kernel did not modify it.
template <class T>
class Input : public Buffer {
 public:
  /// `count` elements called `name`, owned by `owner`, in `memory`.
  Input(Problem& owner, std::string name, std::size_t count, Memory memory = Memory::device)
      : Buffer(owner, Role::input, element_of<T>(), std::move(name), count * sizeof(T), memory) {}
  /// Uploads `host` and keeps it to check, after each run, that the kernel did not write to the input.
  void set(std::vector<T> host) {
    host_ = std::move(host);
    upload(host_.data());
    pristine_ = {};  // made again from the new values when a device check needs it
    recipe_.reset();
  }
  /// Random values: kept on the host (for the CPU reference and the checks), made again on the GPU from their recipe
  /// rather than uploaded (the same values bit for bit; 2^28 floats from pageable memory took a second, twice with
  /// the pristine copy), and the recipe kept so that timed runs can get fresh inputs of the same kind.
  template <class U = T, std::enable_if_t<std::is_same_v<U, float>, int> = 0>  // random values are floats
  void set(RandomValues values) {
    set_random(std::move(values));
  }
  /// The data: a device pointer, or for host memory a host pointer (page-locked where a GPU is).
  [[nodiscard]] const T* data() const { return static_cast<const T*>(raw_data()); }
  [[nodiscard]] const std::vector<T>& host() const { return host_; }  ///< the values uploaded
  /// True when they came with a RandomRecipe: fresh values of the same kind can be made on the GPU.
  [[nodiscard]] bool refreshable() const { return recipe_.has_value(); }

  // Referee: defined in harness_referee (checks.cpp), which no runner links.
  /// Referee: appends a line to `problems` for each thing wrong after a run: a guard zone written, and with
  /// `check_contents` values that differ from host().
  void verify(bool check_contents, std::vector<std::string>& problems) const;
  /// Referee: the same check on the GPU, against a pristine device copy of the values.
  void verify_on_device(std::vector<std::string>& problems) const;
  /// Referee: a timed run's check of an input in host memory: guards, and the values at kTimedSamples positions
  /// drawn from `salt` (device memory: guards only).
  void verify_sample(std::uint64_t salt, std::vector<std::string>& problems) const;
  /// Referee: new values of the same kind, made on the GPU from the recipe's seed mixed with `salt`.
  void refresh(std::uint64_t salt);

 private:
  /// Buffer::to_device(), then the values set() or set_random() kept on the host: uploaded, or made on the GPU from
  /// their recipe, with their pristine copy.
  void to_device() override;
  void set_random(RandomValues values);
  void random_to_device();  // the recipe's values into the device memory, and their pristine copy
  std::vector<T> host_;
  std::optional<RandomRecipe> recipe_;
  mutable DeviceBuffer<T> pristine_;  // a device copy of the values, compared with the input after each timed run
};

/// An output array with its CPU reference and tolerance.
template <class T>
class Output : public Buffer {
 public:
  /// `count` elements called `name`, owned by `owner`, in `memory`.
  Output(Problem& owner, std::string name, std::size_t count, Memory memory = Memory::device)
      : Buffer(owner, Role::output, element_of<T>(), std::move(name), count * sizeof(T), memory), count_(count) {}
  /// Sets the CPU reference of every element and the tolerance.
  void expect(std::vector<double> reference, Tolerance tolerance) {
    reference_ = std::move(reference);
    tolerance_ = std::move(tolerance);
    sampled_.clear();
    device_.reset();
  }
  /// Checks only the elements at `indices` (reference[k] belongs to indices[k]; a per-element atol follows the same
  /// order): for shapes whose full CPU reference would take minutes, such as a 4096^3 matmul. Poisoning still
  /// catches unwritten elements among the samples; choose samples that cover every tile and edge.
  void expect_at(std::vector<std::size_t> indices, std::vector<double> reference, Tolerance tolerance) {
    sampled_ = std::move(indices);
    reference_ = std::move(reference);
    tolerance_ = std::move(tolerance);
    device_.reset();
  }
  /// The data: a device pointer, or for host memory a host pointer (page-locked where a GPU is).
  [[nodiscard]] T* data() const { return static_cast<T*>(raw_data()); }
  [[nodiscard]] std::size_t size() const { return count_; }  ///< elements
  /// The reference: one value per element, or per sample position when sampled() is not empty.
  [[nodiscard]] const std::vector<double>& reference() const { return reference_; }
  /// The positions compared (empty: every element).
  [[nodiscard]] const std::vector<std::size_t>& sampled() const { return sampled_; }
  /// The tolerance the reference is compared with (mismatch_hint.hpp classifies with the same one).
  [[nodiscard]] const Tolerance& tolerance() const { return tolerance_; }
  /// True when the CPU reference covers only sampled positions (expect_at).
  [[nodiscard]] bool sampled_check() const { return !sampled_.empty(); }
  /// Outputs in host memory: the first of 65 evenly spread elements that still holds the poison word, read right now
  /// (Problem::first_unjoined(), on the runner's side). Device memory: none.
  [[nodiscard]] std::optional<std::int64_t> first_unwritten_sample() const;

  // Referee: defined in harness_referee (checks.cpp), which no runner links.
  /// Referee: appends a line to `problems` for each thing wrong after a run: a guard zone written, and with
  /// `check_contents` values outside the tolerance of the reference.
  void verify(bool check_contents, std::vector<std::string>& problems) const;
  /// Referee: the same check on the GPU, against a device copy of the reference.
  void verify_on_device(std::vector<std::string>& problems) const;
  /// Referee: a timed run's check of an output in host memory: guards, and the values at kTimedSamples positions
  /// drawn from `salt` (device memory: guards only).
  void verify_sample(std::uint64_t salt, std::vector<std::string>& problems) const;
  /// Referee: what verify() decides of `values` (size() elements, as a kernel would leave them), on the host: the
  /// output's reference, sample positions and tolerance, and the one comparison routine. CPU tests feed it wrong
  /// answers.
  [[nodiscard]] Comparison compare_host(const std::vector<T>& values) const;
  /// Referee: copies the current contents into keeping slot `slot` (on the GPU).
  void save(std::size_t slot);
  /// Referee: appends a line to `problems` when slot `slot` differs from slot `against` by more than twice the
  /// output's tolerance (both are float results of the same inputs, each within the tolerance of the exact one).
  void compare_saved(std::size_t slot, std::size_t against, std::vector<std::string>& problems) const;

 private:
  /// The reference, tolerance and sample positions on the device, uploaded once per expect() (referee).
  struct DeviceReference {
    DeviceBuffer<double> reference, atol;
    DeviceBuffer<std::size_t> indices;
  };
  std::size_t count_;
  std::vector<double> reference_;
  Tolerance tolerance_;
  std::vector<std::size_t> sampled_;  // empty: every element
  mutable std::unique_ptr<DeviceReference> device_;
  std::vector<DeviceBuffer<T>> saved_;  // save()'s slots
};

/// Device memory a Problem hands its launcher to work in (a worklist and its counter, partial sums): poisoned before
/// every checked run, so a launcher that expects zeros there fails, and guarded against out-of-bounds writes, but
/// never compared, since what a launcher leaves there (the order of an atomically filled worklist) is its own
/// business. During timing, each call finds what the previous one left.
template <class T>
class Scratch : public Buffer {
 public:
  /// `count` elements called `name`, owned by `owner`, in `memory`.
  Scratch(Problem& owner, std::string name, std::size_t count, Memory memory = Memory::device)
      : Buffer(owner, Role::scratch, element_of<T>(), std::move(name), count * sizeof(T), memory) {}
  /// The data: a device pointer, or for host memory a host pointer (page-locked where a GPU is).
  [[nodiscard]] T* data() const { return static_cast<T*>(raw_data()); }
};

/// The result of checking one run.
struct Verdict {
  bool ok = true;       ///< nothing wrong
  std::string message;  ///< empty when ok; otherwise one line per problem
};

/// One instance of an exercise. Subclasses hold Input and Output members constructed with `*this`.
class Problem {
 public:
  /// An instance at `shape`; subclasses allocate their Input and Output members.
  explicit Problem(Shape shape) : shape_(std::move(shape)) {}
  virtual ~Problem() = default;
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  /// Fills the inputs from `seed` and sets every output's CPU reference (double precision).
  virtual void generate(std::uint64_t seed) = 0;
  /// Launches `impl`'s launcher for this exercise on `stream`. Must not synchronize.
  virtual void run(const Impl& impl, cudaStream_t stream) = 0;
  /// Runner side, before the timed interval around run(): untimed set-up that belongs to the implementation (lab 07's
  /// pinned_memory copies the input into the arrays the implementation's allocator made). Default: nothing. A Problem
  /// serves one implementation: a runner of several makes each its own over the same buffers (runner/src/main.cpp).
  virtual void before_run(const Impl& /*impl*/) {}
  /// Runner side, after the device is idle again: untimed work that gives the referee what run() made (copying it
  /// into an Output). Default: nothing.
  virtual void after_run(const Impl& /*impl*/) {}
  /// The unavoidable bytes and flops at this shape.
  [[nodiscard]] virtual Work work() const = 0;

  [[nodiscard]] const Shape& shape() const { return shape_; }  ///< the shape it was made for
  /// Poisons every output and scratch buffer, and forgets an earlier run's note_unjoined().
  void poison(cudaStream_t stream);
  /// Every buffer, in construction order.
  [[nodiscard]] const std::vector<Buffer*>& buffers() const { return buffers_; }

  /// A host output found unwritten once the harness's stream had finished: buffers()[buffer] at `element`.
  struct Unjoined {
    std::size_t buffer = 0;    ///< index in buffers()
    std::int64_t element = 0;  ///< the element still poisoned
  };
  /// Runner side, once the stream run() was given has finished and before the device-wide synchronize: the first
  /// sampled element of a host output still poisoned, which means work the launcher left on streams of its own that
  /// it never made the harness's stream wait for (or an element it never writes). Default: every host output's
  /// first_unwritten_sample(). Problems whose outputs are written after the run (after_run()) override it.
  [[nodiscard]] virtual std::optional<Unjoined> first_unjoined() const;
  /// Referee side: what the runner reported of the last run (first_unjoined()); verify() turns it into a failure.
  void note_unjoined(const Unjoined& unjoined) { unjoined_ = unjoined; }
  /// True when some output's CPU reference covers only sampled positions: `labN check` then also compares every
  /// element with the reference implementation's output on the same inputs.
  [[nodiscard]] bool sampled_check() const;
  /// True when every input came with a RandomRecipe (random_ints, random_floats) and no buffer is in host memory:
  /// then timed runs get new inputs every round (refresh_inputs) and each implementation's output is compared with
  /// the reference's output of the same round (save_outputs, compare_saved).
  [[nodiscard]] bool refreshable() const;
  /// True when verify_on_device() checks everything verify(true) does: when no buffer is in host memory.
  [[nodiscard]] bool checks_on_device() const;
  /// True when the problem was made in host-only mode (set_host_only) and every buffer is in device memory: then its
  /// generate() can run before the GPU is its to use, and to_device() puts it there afterwards (`labN time
  /// --check-seeds` does the host work of its first timed exercise before its turn). Host memory is page-locked when
  /// it is made, which needs the GPU.
  [[nodiscard]] bool can_move_to_device() const;
  /// The host memory generate() keeps: a copy of every input and a double a element of every output's reference
  /// (at most; a sampled reference keeps less).
  [[nodiscard]] std::size_t host_bytes() const;
  /// Referee: every buffer's device memory and every input's values on the GPU, as generate() would have put them
  /// there had the problem not been made host-only. Throws std::logic_error unless can_move_to_device().
  void to_device();

  // Referee: defined in harness_referee (checks.cpp), which no runner links.
  /// Referee: checks guards of every buffer and, when `check_contents`, that outputs match the reference and inputs
  /// are unchanged, and that the last run's host outputs were written when the runner's stream finished
  /// (note_unjoined()). Synchronizes the device first.
  [[nodiscard]] Verdict verify(bool check_contents = true) const;
  /// Referee: verify(true) on the GPU, for timed runs at large shapes; problems that do not checks_on_device() are
  /// checked by verify().
  [[nodiscard]] Verdict verify_on_device() const;
  /// Referee: new inputs of the same kind, from `salt`, on the GPU. The CPU reference no longer applies until
  /// generate().
  void refresh_inputs(std::uint64_t salt);
  /// Referee: keeps every output's current contents in slot `slot`.
  void save_outputs(std::size_t slot);
  /// Referee: slot `slot` of every output against slot `against` (twice the tolerance).
  [[nodiscard]] Verdict compare_saved(std::size_t slot, std::size_t against) const;
  /// Referee: guards intact and inputs unchanged, checked on the GPU: what a run must leave as it found it.
  [[nodiscard]] Verdict verify_unchanged() const;
  /// Referee: a timed run of a problem checked on the host (checks_on_device() false): every buffer's guards, and
  /// host inputs and outputs at kTimedSamples positions drawn from `salt`.
  [[nodiscard]] Verdict verify_sample(std::uint64_t salt) const;

 private:
  friend class Buffer;
  Shape shape_;
  std::vector<Buffer*> buffers_;
  std::optional<Unjoined> unjoined_;
};

/// Everything both sides need to know about one exercise. What only the referee times beside it (its ceiling, its
/// peers, its metrics) a lab registers in its support/ folder (measures.hpp), which no runner links.
struct ExerciseSpec {
  std::string name;                ///< the key of launchers, manifest entries and --exercise: "scale"
  std::string title;               ///< one line for people: "Scale a vector"
  std::vector<Shape> test_shapes;  ///< correctness cases (each with every seed): edge sizes first
  Shape timed_shape;               ///< the size timed for the grade: large enough to be far above launch overhead
  Bound bound = Bound::memory;  ///< which rate and ceiling apply
  /// Makes an instance at a shape (inputs not yet generated).
  std::function<std::unique_ptr<Problem>(const Shape&)> make;
};

/// This binary's lab: its id ("01_coalescing") and its exercises in registration (teaching) order.
struct Lab {
  std::string id;                       ///< the lab's folder name
  std::vector<ExerciseSpec> exercises;  ///< in teaching order
  /// The exercise called `name`, or nullptr.
  [[nodiscard]] const ExerciseSpec* find(std::string_view name) const;
};
/// This binary's lab, filled before main() by REGISTER_EXERCISE.
Lab& lab();

/// Registers an exercise at static-initialization time. Use through REGISTER_EXERCISE.
struct ExerciseRegistrar {
  /// Adds `spec` to lab() and records the lab's id.
  ExerciseRegistrar(ExerciseSpec spec, const char* lab_id);
};

}  // namespace harness

/// Registers an exercise: `REGISTER_EXERCISE({.name = "scale", ...});` at file scope in the lab's exercises.cpp.
/// The lab id comes from the build (HARNESS_LAB, the lab's folder name).
#define REGISTER_EXERCISE(...)                                                          \
  static const ::harness::ExerciseRegistrar HARNESS_CONCAT(harness_exercise_, __LINE__) { \
    ::harness::ExerciseSpec __VA_ARGS__, HARNESS_STRINGIFY(HARNESS_LAB)                   \
  }
