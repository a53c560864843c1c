#pragma once
/// @file measures.hpp
/// @brief What the referee times beside an exercise's implementations: its ceiling, its peers and its metrics.
///
/// A lab registers these in its `support/` folder with REGISTER_MEASURES, next to the kernels they run. That folder
/// is linked into the lab binary (the referee) only, never into a runner: a submission's process holds neither the
/// ceiling's code nor the libraries it calls (lab 05's cuBLAS). An exercise without measures is timed against the
/// device-to-device copy of its work().bytes.
#include <harness/problem.hpp>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

/// Something timed as a ceiling: it does `amount()` bytes (memory-bound) or flops (compute-bound) per run.
class CeilingOp {
 public:
  virtual ~CeilingOp() = default;
  /// Enqueues one run on `stream`.
  virtual void run(cudaStream_t stream) = 0;
  /// Bytes or flops per run: the rate's numerator.
  [[nodiscard]] virtual double amount() const = 0;
  /// One line for people: "device-to-device copy".
  [[nodiscard]] virtual std::string what() const = 0;
};

/// The memory ceiling: cudaMemcpyAsync device to device of `bytes_moved / 2` bytes (it reads and writes them).
std::unique_ptr<CeilingOp> copy_ceiling(double bytes_moved);

/// Something else timed beside student, reference and baseline on the same problem, in the same rounds: a library
/// (cub::DeviceReduce::Sum, cuBLAS) or an earlier stage's reference, so the student sees where they stand.
struct Peer {
  std::string name;                                 ///< shown in reports: "cub::DeviceReduce::Sum"
  std::function<void(Problem&, cudaStream_t)> run;  ///< enqueues one run on the problem's data
};

/// Median milliseconds of every contender of a timed run, by name ("student", "reference", "baseline", "ceiling",
/// and each peer's name).
using Medians = std::map<std::string, double, std::less<>>;

/// The referee's side of one exercise.
struct Measures {
  /// The ceiling at a shape. Empty: the device-to-device copy of work().bytes (memory-bound exercises).
  std::function<std::unique_ptr<CeilingOp>(const Shape&)> ceiling;
  /// Extra contenders timed in the same rounds; reported, not graded.
  std::vector<Peer> peers;
  /// Extra numbers computed from the medians (for example an overlap fraction); reported as `metrics` in the time
  /// JSON, each with its standard error in `metric_errors` (metric_errors()). An exercise whose manifest says
  /// `"graded_by"` a metric earns its performance points by it (grader/formula.hpp).
  std::function<std::map<std::string, double>(const Medians&)> metrics;
};

/// Each metric's standard error: `metrics` evaluated with one contender's median moved by its own log error
/// (`log_errors`, harness::median_log_error(); a contender without one is exact), one contender at a time, the
/// changes added in quadrature. First-order propagation: the medians are independent, and their errors small beside
/// the metrics' scales. A metric that is not finite at the moved medians has an infinite error.
std::map<std::string, double> metric_errors(const std::function<std::map<std::string, double>(const Medians&)>& metrics,
                                            const Medians& medians, const Medians& log_errors);

/// The buffer called `name` of `problem`, as the type `B` it was made as (Input<float>, Output<std::int32_t>, ...):
/// for peers, which run on a problem's data from outside its class. Throws std::logic_error when it has none (a
/// course bug).
template <class B>
B& buffer_named(Problem& problem, std::string_view name) {
  for (Buffer* b : problem.buffers())
    if (b->name() == name)
      if (auto* typed = dynamic_cast<B*>(b)) return *typed;
  throw std::logic_error("the problem has no buffer '" + std::string(name) + "' of that type (course bug)");
}

/// The measures registered for exercise `name`, or empty ones.
const Measures& measures_of(std::string_view name);

/// Registers an exercise's measures at static-initialization time. Use through REGISTER_MEASURES.
struct MeasuresRegistrar {
  /// Records `measures` for exercise `exercise` (once: a second registration is a course bug).
  MeasuresRegistrar(const char* exercise, Measures measures);
};

}  // namespace harness

/// Registers what the referee times beside an exercise: `REGISTER_MEASURES("transpose", {.ceiling = ...});` at file
/// scope in a file of the lab's support/ folder.
#define REGISTER_MEASURES(exercise, ...)                                                      \
  static const ::harness::MeasuresRegistrar HARNESS_CONCAT(harness_measures_, __LINE__) { \
    exercise, ::harness::Measures __VA_ARGS__                                                \
  }
