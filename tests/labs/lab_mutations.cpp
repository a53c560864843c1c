// The checker mutation suite (issue 13): a check is only as good as the wrong answers it rejects. For every exercise
// of the lab, at every test shape and at the timed shape where its CPU reference is cheap, the right answer is taken
// from the CPU reference and mutated in the generic ways a wrong kernel goes wrong; each mutation is fed to the same
// comparison the lab uses (Output::compare_host: its reference, sample positions and tolerance), which must reject
// it. Built into every lab's CPU test binary (labN_cpu_tests); runs without a GPU (harness::set_host_only).
#include <harness/mismatch_hint.hpp>
#include <harness/problem.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using harness::Output;
using harness::Shape;

/// Problems made here own no device memory (buffers in host memory get theirs, not page-locked).
struct HostOnly {
  HostOnly() { harness::set_host_only(true); }
  ~HostOnly() { harness::set_host_only(false); }
};

/// The output's right answer as a kernel would write it: the reference at every position (sampled outputs: at the
/// sampled positions, and the reference of the nearest sample elsewhere, which no check looks at).
template <class T>
std::vector<T> right_answer(const Output<T>& out) {
  std::vector<T> v(out.size());
  const auto& ref = out.reference();
  const auto& at = out.sampled();
  if (at.empty()) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(ref[i]);
  } else {
    for (std::size_t k = 0; k < at.size(); ++k) v[at[k]] = static_cast<T>(ref[k]);
  }
  return v;
}

/// The outputs of a problem made at `shape` and generated from `seed`, by position (nullptr for non-float/int ones).
struct Made {
  std::unique_ptr<harness::Problem> problem;
  template <class T>
  const Output<T>* output(std::size_t k) const {
    std::size_t seen = 0;
    for (const auto* b : problem->buffers())
      if (b->role() == harness::Buffer::Role::output && seen++ == k) return dynamic_cast<const Output<T>*>(b);
    return nullptr;
  }
};

Made make(const harness::ExerciseSpec& spec, const Shape& shape, std::uint64_t seed) {
  Made m{spec.make(shape)};
  m.problem->generate(seed);
  return m;
}

bool integer_valued(const std::vector<double>& ref) {
  for (double r : ref)
    if (!std::isfinite(r) || r != std::round(r)) return false;
  return true;
}

/// The mutations of one output: name -> wrong answer (absent where a mutation does not apply, e.g. shifting a
/// constant array). `stale` is the right answer for another seed, `smaller` for a smaller shape.
template <class T>
std::map<std::string, std::vector<T>> mutations(const Output<T>& out, const std::vector<T>& right,
                                                const std::vector<T>* stale, const std::vector<T>* smaller) {
  std::map<std::string, std::vector<T>> m;
  const std::size_t n = right.size(), mid = n / 2;
  const auto add = [&](const std::string& name, std::vector<T> v) {
    if (v != right) m.emplace(name, std::move(v));
  };
  add("all zeros", std::vector<T>(n, T(0)));
  add("a constant", std::vector<T>(n, right[0]));
  {  // right only where a sampling check would look (every 64th element and the last), off by 1 elsewhere
    auto v = right;
    for (std::size_t i = 0; i < n; ++i)
      if (i % 64 != 0 && i + 1 != n) v[i] = static_cast<T>(v[i] + T(1));
    add("right only at sampled positions", v);
  }
  {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = right[(i + 1) % n];
    add("shifted by one element", v);
  }
  if (n % 256 != 0 && n > 256) {  // the tail past the last full block of 256 left unwritten (zero)
    auto v = right;
    for (std::size_t i = n / 256 * 256; i < n; ++i) v[i] = T(0);
    add("tail past the last full block missing", v);
  }
  {  // the smallest change the inputs allow: 1 where every answer is an integer, else one ulp where exact
    auto v = right;
    if (integer_valued(out.reference())) {
      v[mid] = static_cast<T>(v[mid] + T(1));
      add("one element off by one", v);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    auto v = right;
    v[mid] = std::numeric_limits<T>::quiet_NaN();
    m.emplace("one NaN", v);
  }
  if (stale) add("the answer of another seed", *stale);
  if (smaller) {
    std::vector<T> v(n, T(0));
    for (std::size_t i = 0; i < std::min(n, smaller->size()); ++i) v[i] = (*smaller)[i];
    add("the right answer at a smaller size", v);
  }
  return m;
}

/// Half the first extent (at least 1): the shape a kernel that stops half-way has solved.
Shape halved(const Shape& s) {
  Shape h = s;
  h.dims[0] = std::max<std::int64_t>(1, s.dims[0] / 2);
  return h;
}

/// Every mutation of every output of one problem must be rejected; returns the ones that were not.
template <class T>
std::vector<std::string> accepted_mutations(const harness::ExerciseSpec& spec, const Shape& shape, const Made& made,
                                            std::size_t k) {
  std::vector<std::string> passed;
  const Output<T>* out = made.output<T>(k);
  if (!out) return passed;
  const auto right = right_answer(*out);
  if (!out->compare_host(right).ok()) return {"(the right answer itself fails: reference or tolerance broken)"};
  const Made other = make(spec, shape, 2);
  const auto stale = right_answer(*other.output<T>(k));
  std::optional<std::vector<T>> smaller;
  if (halved(shape) != shape) {
    try {
      smaller = right_answer(*make(spec, halved(shape), 1).output<T>(k));
    } catch (const std::exception&) {  // not a valid shape for this exercise: no such mutation
    }
  }
  // Where the CPU reference is sampled, `check` also compares every element with the reference implementation's
  // output on the GPU (check.cpp): a mutation that differs from the right answer only between the samples is that
  // comparison's to catch (lab 02's wrong_unsampled_nan fixture shows it does), not this one's.
  const auto only_between_samples = [&](const std::vector<T>& wrong) {
    if (out->sampled().empty()) return false;
    for (std::size_t at : out->sampled())
      if (!(wrong[at] == right[at])) return false;  // NaN != NaN: a NaN at a sample is not "between"
    return true;
  };
  for (const auto& [name, wrong] : mutations(*out, right, &stale, smaller ? &*smaller : nullptr))
    if (out->compare_host(wrong).ok() && !only_between_samples(wrong)) passed.push_back(name);
  return passed;
}

std::int64_t elements(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s.dims) n *= d;
  return n;
}

/// Test shapes above this many elements are left out: every mutation here is the same at any size, and lab 07's
/// 2^26 + 5 (256 MiB per array, several copies per mutation) took a minute of a CI machine's time.
constexpr std::int64_t kLargestMutatedTestShape = std::int64_t{1} << 25;

/// Shapes mutated on the CPU: every test shape up to kLargestMutatedTestShape elements, and the timed shape where its
/// extents multiply to at most 2^28 (its outputs are mutated only where they are small: sums and sums of rows, where
/// loose tolerances hide).
std::vector<Shape> mutated_shapes(const harness::ExerciseSpec& spec) {
  std::vector<Shape> shapes;
  for (const Shape& s : spec.test_shapes)
    if (elements(s) <= kLargestMutatedTestShape) shapes.push_back(s);
  if (elements(spec.timed_shape) <= (std::int64_t{1} << 28)) shapes.push_back(spec.timed_shape);
  return shapes;
}

constexpr std::size_t kLargestTimedOutput = std::size_t{1} << 20;

}  // namespace

TEST_CASE("every mutation of a right answer is rejected by the lab's check", "[lab][mutations]") {
  HostOnly host_only;
  std::size_t checked = 0;
  std::vector<std::string> not_on_host;
  for (const auto& spec : harness::lab().exercises) {
    for (const Shape& shape : mutated_shapes(spec)) {
      Made made;
      try {
        made = make(spec, shape, 1);
      } catch (const std::exception& e) {  // a problem that needs the GPU to exist: none should
        not_on_host.push_back(spec.name + " at " + shape.str() + ": " + e.what());
        break;
      }
      std::size_t outputs = 0, largest = 0;
      for (const auto* b : made.problem->buffers())
        if (b->role() == harness::Buffer::Role::output) {
          ++outputs;
          if (const auto* o = dynamic_cast<const Output<float>*>(b)) largest = std::max(largest, o->size());
          if (const auto* o = dynamic_cast<const Output<std::int32_t>*>(b)) largest = std::max(largest, o->size());
        }
      if (shape == spec.timed_shape && largest > kLargestTimedOutput) continue;
      for (std::size_t k = 0; k < outputs; ++k) {
        auto passed = accepted_mutations<float>(spec, shape, made, k);
        const auto ints = accepted_mutations<std::int32_t>(spec, shape, made, k);
        passed.insert(passed.end(), ints.begin(), ints.end());
        for (const auto& name : passed)
          FAIL_CHECK("lab " << harness::lab().id << ", exercise " << spec.name << ", shape " << shape.str()
                                << ", output " << k << ": the mutation '" << name << "' passes the check");
        ++checked;
      }
    }
  }
  for (const auto& why : not_on_host) FAIL_CHECK("cannot be made on the host: " << why);
  REQUIRE(checked > 0);
}

// The hints of a failed check (harness/mismatch_hint.hpp) on this lab's own references and shapes: a zeroed output, an
// output shifted by one element and a tail left at zero must each get the hint that names them, whatever the values.
TEST_CASE("the mismatch hint names zeros, a shift by one and a missing tail on the lab's own outputs",
          "[lab][mutations][hint]") {
  using harness::MismatchKind;
  HostOnly host_only;
  std::size_t checked = 0;
  for (const auto& spec : harness::lab().exercises) {
    for (const Shape& shape : spec.test_shapes) {
      if (elements(shape) > kLargestMutatedTestShape) continue;
      Made made;
      try {
        made = make(spec, shape, 1);
      } catch (const std::exception&) {  // needs the GPU: the mutation test above says so
        break;
      }
      for (std::size_t k = 0; k < made.problem->buffers().size(); ++k) {
        const Output<float>* out = made.output<float>(k);
        if (!out) continue;
        const auto& ref = out->reference();
        const std::size_t n = out->size();
        if (!out->sampled().empty() || n < 4 ||
            !std::all_of(ref.begin(), ref.end(), [](double r) { return std::isfinite(r); }))
          continue;
        const auto right = right_answer(*out);
        const auto kind = [&](const std::vector<float>& v) {
          return harness::classify_mismatch(v.data(), ref.data(), n, out->tolerance(), shape.dims).kind;
        };
        CAPTURE(spec.name, shape.str(), k);
        if (std::vector<float> zeros(n, 0.0f); !out->compare_host(zeros).ok())
          CHECK(kind(zeros) == MismatchKind::kAllZeros);
        std::vector<float> shifted(n);
        for (std::size_t i = 0; i < n; ++i) shifted[i] = right[(i + 1) % n];
        if (out->compare_host(shifted).failures >= 3) CHECK(kind(shifted) == MismatchKind::kShifted);
        if (n % 256 != 0 && n > 256) {
          auto tail = right;
          for (std::size_t i = n / 256 * 256; i < n; ++i) tail[i] = 0.0f;
          if (!out->compare_host(tail).ok()) {
            const auto got = kind(tail);
            INFO("classified as " << harness::to_string(got));
            CHECK((got == MismatchKind::kTail || got == MismatchKind::kEdgeTiles));
          }
        }
        ++checked;
      }
    }
  }
  if (checked == 0)
    SKIP("no output of this lab is an array of 4 or more elements with a reference for each (a single sum) that can "
         "be made without a GPU");
}
