#pragma once
/// @file launcher.hpp
/// @brief How an implementation file (student.cu, stub.cu, solution.cu, a known-wrong fixture) makes its
/// launchers known: `REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);` at file scope.
///
/// Every implementation of a lab defines launchers with the same names, so each file keeps its kernels and launchers
/// in an anonymous namespace and registers them under the implementation name that the build gives the file
/// (HARNESS_IMPL: student, reference, baseline, wrong_<fixture>). Student, reference and baseline are then linked into
/// one binary and timed in one process, and swapping in another student's file recompiles only that file.
#include <harness/cuda_check.hpp>

#include <any>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace harness {

/// One implementation of a lab: its launchers by exercise name.
class Impl {
 public:
  /// An implementation called `name` ("student", "reference", "wrong_zeros", ...), with no launchers yet.
  explicit Impl(std::string name = {}) : name_(std::move(name)) {}
  /// Its name.
  [[nodiscard]] const std::string& name() const { return name_; }
  /// True when it has a launcher for `exercise`.
  [[nodiscard]] bool has(std::string_view exercise) const { return launchers_.find(exercise) != launchers_.end(); }

  /// The launcher of `exercise`, of the contract type `Fn`. Throws MissingLauncher if there is none, and
  /// std::logic_error if it was registered with another signature (a course bug: REGISTER_LAUNCHER type-checks).
  template <class Fn>
  [[nodiscard]] Fn launcher(std::string_view exercise) const;

  /// Called by REGISTER_LAUNCHER.
  void add(std::string exercise, std::any fn);
  /// Every launcher, by exercise name.
  [[nodiscard]] const std::map<std::string, std::any, std::less<>>& launchers() const { return launchers_; }

 private:
  std::string name_;
  std::map<std::string, std::any, std::less<>> launchers_;
};

/// The implementation has no launcher for the exercise (exit code kBadSpec).
class MissingLauncher : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The implementations linked into this binary, by name. Filled before main() by REGISTER_LAUNCHER.
std::map<std::string, Impl, std::less<>>& implementations();

/// Registers `fn` as `impl`'s launcher for `exercise` at static-initialization time.
template <class Fn>
struct LauncherRegistrar {
  /// Adds `fn` to implementation `impl` (created on first use).
  LauncherRegistrar(const char* impl, const char* exercise, Fn fn) {
    auto& map = implementations();
    auto it = map.try_emplace(impl, impl).first;
    it->second.add(exercise, std::any(fn));
  }
};

template <class Fn>
Fn Impl::launcher(std::string_view exercise) const {
  auto it = launchers_.find(exercise);
  if (it == launchers_.end())
    throw MissingLauncher("implementation '" + name_ + "' has no launcher for exercise '" + std::string(exercise) +
                          "'");
  if (const Fn* fn = std::any_cast<Fn>(&it->second)) return *fn;
  throw std::logic_error("launcher '" + std::string(exercise) + "' of '" + name_ + "' has the wrong signature");
}

}  // namespace harness

/// @cond INTERNAL
#define HARNESS_CONCAT_(a, b) a##b
#define HARNESS_CONCAT(a, b) HARNESS_CONCAT_(a, b)
#define HARNESS_STRINGIFY_(x) #x
#define HARNESS_STRINGIFY(x) HARNESS_STRINGIFY_(x)

#ifndef HARNESS_IMPL
#define HARNESS_IMPL unnamed_implementation_compile_it_through_add_lab
#endif
/// @endcond

/// Registers `fn` as this file's launcher for `exercise`. `Signature` is the exercise's launcher type from the lab's
/// contract header: a launcher with another signature is a compile error here, not a crash at run time.
#define REGISTER_LAUNCHER(exercise, Signature, fn)                                              \
  static const ::harness::LauncherRegistrar<Signature> HARNESS_CONCAT(harness_launcher_, __LINE__) { \
    HARNESS_STRINGIFY(HARNESS_IMPL), exercise, fn                                               \
  }
