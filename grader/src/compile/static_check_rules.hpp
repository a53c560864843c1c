#pragma once
// The static check's tables: which names, headers and instructions each rule covers, and the default allowlist.
// Data only; static_check.cpp applies them. Globs use `*` for any run of characters.

#include <string_view>
#include <vector>

namespace grader::static_check::tables {

/// A rule and the globs it covers.
struct Family {
  std::string_view rule;
  std::vector<std::string_view> patterns;
};

/// External symbols refused by default, by rule, matched against C names and demangled C++ entities (no
/// parameters). Checked before the allowlist, so "std::basic_ofstream*" wins over "std::*". First match wins.
const std::vector<Family>& denied_symbols();

/// External symbols every submission may use: the CUDA runtime calls fair launchers make, nvcc's registration and
/// launch calls, the C++ runtime, and C library memory, string, math and printing functions.
const std::vector<std::string_view>& allowed_symbols();

/// C library and POSIX names a submission must not define, beyond those in the two tables above.
const std::vector<std::string_view>& c_library_names();

/// Harness entities a submission may use: CUDA_CHECK's functions, and the registry that REGISTER_LAUNCHER's
/// constructor fills (static_check.cpp checks that only that constructor reaches the registry).
const std::vector<std::string_view>& allowed_harness_calls();
/// The registry entities, which only harness::LauncherRegistrar's constructor may reach.
const std::vector<std::string_view>& registry_entities();
/// Harness entities a submission's object defines by including launcher.hpp (weak, inline or template code).
const std::vector<std::string_view>& allowed_harness_definitions();

/// Headers refused by default, matched against the tail of each included path.
const std::vector<Family>& denied_headers();

/// PTX opcodes refused by default (with their modifiers: "mma.sync.aligned...").
const std::vector<Family>& denied_instructions();

/// First components of C++ names that belong to libraries doing an exercise's work (cub::, thrust::, ...).
const std::vector<std::string_view>& library_namespaces();

/// Why each rule exists, completing "lab 01 ...". Empty for an unknown rule.
std::string_view reason(std::string_view rule);

}  // namespace grader::static_check::tables
