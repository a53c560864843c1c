// The static check's rules, applied to what static_check_parse.cpp read from the tools' output.
#include "grader/static_check.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "static_check_rules.hpp"

namespace grader::static_check {
namespace {

template <class Patterns>
bool any_match(const Patterns& patterns, std::string_view text) {
  return std::any_of(std::begin(patterns), std::end(patterns), [&](const auto& p) { return glob_match(p, text); });
}

// The rule of the first family with a pattern matching `text`, or "".
std::string_view family_of(const std::vector<tables::Family>& families, std::string_view text) {
  for (const auto& f : families)
    if (any_match(f.patterns, text)) return f.rule;
  return {};
}

// The first component of a mangled name's scope: "harness" for _ZN7harness6medianE..., "std" for _ZSt4cout,
// "lab07" for _ZTIN5lab0710HostMemoryE; "" for names at global scope and operators. The mangled form is read
// rather than the demangled one, which return types and declarators make hard to split reliably.
std::string first_scope(std::string_view m) {
  if (!m.starts_with("_Z")) return {};
  auto p = m.substr(2);
  for (bool again = true; again && p.size() >= 2;) {
    again = false;
    for (std::string_view special : {"TV", "TT", "TI", "TS", "TH", "TW", "GV", "GR"}) {
      if (p.starts_with(special)) {  // vtable, VTT, typeinfo, TLS helpers, guard variable, reference temporary
        p.remove_prefix(2);
        again = true;
      }
    }
    if (p.starts_with("Th") || p.starts_with("Tv")) {  // thunks: call offsets, then the function's encoding
      const int offsets = p[1] == 'h' ? 1 : 2;
      p.remove_prefix(2);
      for (int i = 0; i < offsets && p.find('_') != std::string_view::npos; ++i) p.remove_prefix(p.find('_') + 1);
      again = true;
    }
  }
  if (p.starts_with("L")) p.remove_prefix(1);                                   // internal linkage
  if (p.starts_with("Z")) return first_scope("_Z" + std::string(p.substr(1)));  // a local entity: its function's scope
  if (p.starts_with("N")) {
    p.remove_prefix(1);
    while (!p.empty() && (p.front() == 'r' || p.front() == 'V' || p.front() == 'K')) p.remove_prefix(1);
    if (!p.empty() && (p.front() == 'R' || p.front() == 'O')) p.remove_prefix(1);
  }
  if (p.size() >= 2 && p[0] == 'S' && std::string_view("tabsiod").find(p[1]) != std::string_view::npos) return "std";
  std::size_t digits = 0;
  while (digits < p.size() && std::isdigit(static_cast<unsigned char>(p[digits]))) ++digits;
  if (digits == 0 || digits > 6) return {};  // no real identifier is a million characters long
  const auto length = std::stoul(std::string(p.substr(0, digits)));
  return std::string(p.substr(digits, length));
}

bool is_lab_namespace(std::string_view scope) {
  return scope.size() > 3 && scope.starts_with("lab") && std::all_of(scope.begin() + 3, scope.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c));
         });
}

// nvcc gives a file's anonymous namespace a name that spells the file's: _GLOBAL__N__<hash>_10_student_cu_<hash>_N.
bool own_anonymous_namespace(std::string_view scope, std::string_view source_name) {
  std::string spelled;
  for (char c : source_name) spelled += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return scope.find(fmt::format("_{}_{}_", source_name.size(), spelled)) != std::string_view::npos;
}

// "(anonymous namespace)::launch_scale" rather than nvcc's "_GLOBAL__N__be74..._9369::launch_scale".
std::string readable(std::string entity) {
  for (auto at = entity.find("_GLOBAL__N_"); at != std::string::npos; at = entity.find("_GLOBAL__N_", at + 1)) {
    const auto end = entity.find("::", at);
    entity.replace(at, end == std::string::npos ? std::string::npos : end - at, "(anonymous namespace)");
  }
  return entity;
}

bool is_reserved_c_name(std::string_view name) {
  if (name.starts_with("cuda") || name.starts_with("__cuda") || name.starts_with("__nv")) return true;
  if (name.size() > 2 && name.starts_with("cu") && std::isupper(static_cast<unsigned char>(name[2]))) return true;
  if (name.size() > 1 && name[0] == '_' && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1]))))
    return true;  // reserved to the implementation by the C and C++ standards
  if (any_match(tables::allowed_symbols(), name) || any_match(tables::c_library_names(), name)) return true;
  return !family_of(tables::denied_symbols(), name).empty();
}

// The finding for an external symbol the object uses, if it is refused.
std::optional<Finding> check_use(const Symbol& s, const Context& context) {
  const std::string entity = s.name.starts_with("_Z") ? entity_of(demangle(s.name)) : s.name;
  const auto calls = fmt::format("calls '{}'", readable(entity));
  if (any_match(context.rules.allow_symbols, entity) || any_match(context.rules.allow_symbols, s.name)) return {};
  if (s.name == "exit") return {};  // judged per function: see check_host_code()
  if ((s.name.starts_with("_ZTI") || s.name.starts_with("_ZTS")) && first_scope(s.name).empty())
    return {};  // typeinfo of a fundamental type ("typeinfo for void"), which the C++ runtime defines
  if (s.name.starts_with("_Z")) {
    const auto scope = first_scope(s.name);
    if (scope.starts_with("_GLOBAL__N_"))
      return Finding{"other_implementations", calls + ", which another file's anonymous namespace defines"};
    if (scope == "harness") {
      if (any_match(tables::allowed_harness_calls(), entity)) return {};
      if (entity.starts_with("harness::Impl::launcher")) return Finding{"other_implementations", calls};
      return Finding{"harness", calls};
    }
    if (is_lab_namespace(scope)) return Finding{"other_implementations", calls};
    if (any_match(tables::library_namespaces(), scope)) return Finding{"libraries", calls};
  }
  if (const auto rule = family_of(tables::denied_symbols(), entity); !rule.empty())
    return Finding{std::string(rule), calls};
  if (any_match(tables::allowed_symbols(), entity)) return {};
  if (entity.size() > 2 && entity.starts_with("cu") && std::isupper(static_cast<unsigned char>(entity[2])))
    return Finding{"driver_api", calls};
  if (s.name.starts_with("_Z"))  // a C++ function the file does not define: someone else's code linked beside it
    return Finding{"other_implementations", calls + ", which your file does not define"};
  return Finding{"allowlist", calls};
}

// The finding for a symbol the object defines for the whole program, if it takes a name it must not.
std::optional<Finding> check_definition(const Symbol& s, const Context& context) {
  if (!s.global || s.name.starts_with("DW.ref.")) return {};  // file-local, or the unwinder's personality slot
  if (!s.name.starts_with("_Z")) {
    if (is_reserved_c_name(s.name)) return Finding{"runtime_shadowing", fmt::format("defines '{}'", s.name)};
    return {};
  }
  const std::string entity = entity_of(demangle(s.name));
  const auto defines = fmt::format("defines '{}'", readable(entity));
  // Template and inline code sits in a COMDAT section named after a symbol (".text._ZN..."); an explicit
  // __attribute__((weak)) definition sits in a plain one (".text") and would replace the real code at link time.
  const bool shared_copy = s.weak && s.section.find("._Z") != std::string::npos;
  if (s.name.starts_with("_Znw") || s.name.starts_with("_Zna") || s.name.starts_with("_Zdl") ||
      s.name.starts_with("_Zda")) {  // global operator new and delete replace the whole program's allocator
    const bool placement = s.name == "_ZnwmPv" || s.name == "_ZnamPv" || s.name == "_ZdlPvS_" || s.name == "_ZdaPvS_";
    if (shared_copy && placement) return {};
    return Finding{"runtime_shadowing", defines};
  }
  const auto scope = first_scope(s.name);
  if (scope.starts_with("_GLOBAL__N_")) {
    if (own_anonymous_namespace(scope, context.source_name)) return {};
    return Finding{"other_implementations", defines + " in another file's anonymous namespace"};
  }
  if (scope == "harness") {
    if (shared_copy && any_match(tables::allowed_harness_definitions(), entity)) return {};
    if (entity.starts_with("harness::Impl::launcher")) return Finding{"other_implementations", defines};
    return Finding{"harness_shadowing", defines};
  }
  if (is_lab_namespace(scope)) {
    if (shared_copy) return {};  // the lab's own templates, instantiated for this file (lab 03's kernels)
    return Finding{"harness_shadowing", defines};
  }
  if (scope == "std" || scope == "__gnu_cxx" || scope == "__cxxabiv1") {
    if (shared_copy) return {};
    return Finding{"runtime_shadowing", defines};
  }
  if (any_match(tables::library_namespaces(), scope)) return Finding{"libraries", defines};
  return {};
}

void add_unique(std::vector<Finding>& findings, Finding f) {
  if (std::find(findings.begin(), findings.end(), f) == findings.end()) findings.push_back(std::move(f));
}

// The paths' tails that start at a component boundary: "a/b/c.h" -> "a/b/c.h", "b/c.h", "c.h".
bool tail_matches(std::string_view pattern, std::string_view path) {
  for (std::size_t at = 0; at < path.size(); at = path.find('/', at) + 1) {
    if (glob_match(pattern, path.substr(at))) return true;
    if (path.find('/', at) == std::string_view::npos) break;
  }
  return false;
}

std::string_view file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// nvcc compiles a __device__ function's host copy to `{ volatile int ___ = 1; exit(___); }`: its only reference is
// exit and it loads the constant 1. A student's function shaped the same way exits with status 1, which the grader
// reads as a failure anyway; exit(0), the status that could pass for success, never matches.
bool device_function_copy(const HostFunction& fn) {
  return std::all_of(fn.references.begin(), fn.references.end(), [](const auto& r) { return r == "exit"; }) &&
         std::any_of(fn.instructions.begin(), fn.instructions.end(), [](const auto& i) {
           return i.find("$0x1,") != std::string::npos || i.find("#0x1") != std::string::npos;
         });
}

bool inside(std::string_view path, std::string_view dir) {
  return !dir.empty() && path.size() > dir.size() && path.starts_with(dir) &&
         (dir.ends_with('/') || path[dir.size()] == '/');
}

// The library a refused symbol belongs to, as the refusal names it: a C++ library's namespace ("cub"), else the
// prefix of the "libraries" pattern its entity matches ("cublasSgemm_v2": "cublas*" gives cublas).
std::string library_of(std::string_view name) {
  if (auto scope = first_scope(name); !scope.empty()) return scope;
  const std::string entity = name.starts_with("_Z") ? entity_of(demangle(name)) : std::string(name);
  for (const auto& family : tables::denied_symbols()) {
    if (family.rule != "libraries") continue;
    for (std::string_view pattern : family.patterns)
      if (glob_match(pattern, entity)) return std::string(pattern.substr(0, pattern.find('*')));
  }
  return entity;  // a library the tables do not name: the entity itself, never an empty name
}

}  // namespace

std::vector<Finding> check_symbols(const std::vector<Symbol>& symbols, const Context& context) {
  std::vector<Finding> findings;
  std::set<std::string> libraries;  // a library instantiates dozens of symbols: one finding per library is enough
  for (const auto& s : symbols) {
    auto f = s.defined() ? check_definition(s, context) : check_use(s, context);
    if (!f) continue;
    if (f->rule == "libraries") {
      const auto library = library_of(s.name);
      if (!libraries.insert(library).second) continue;
      f->what = fmt::format("uses {} ({} '{}')", library, s.defined() ? "defines" : "calls",
                            readable(entity_of(demangle(s.name))));
    }
    add_unique(findings, std::move(*f));
  }
  return findings;
}

std::vector<Finding> check_host_code(const std::vector<HostFunction>& functions, const Context&) {
  std::vector<Finding> findings;
  for (const auto& fn : functions) {
    const auto name = readable(entity_of(demangle(fn.name)));
    for (const auto& instruction : fn.system_calls)
      add_unique(findings, {"syscalls", fmt::format("executes '{}' in '{}'", instruction, name)});
    const bool exits = std::find(fn.references.begin(), fn.references.end(), "exit") != fn.references.end();
    if (exits && !device_function_copy(fn)) add_unique(findings, {"exit", fmt::format("calls 'exit' in '{}'", name)});
    // The registry is REGISTER_LAUNCHER's business: a launcher that reaches it can look up the reference's.
    if (glob_match("harness::LauncherRegistrar<*>::LauncherRegistrar", name)) continue;
    for (const auto& target : fn.references) {
      const auto entity = entity_of(demangle(target));
      if (any_match(tables::registry_entities(), entity))
        add_unique(findings, {"harness", fmt::format("uses the launcher registry '{}' in '{}'", entity, name)});
    }
  }
  return findings;
}

std::vector<Finding> check_relocations(const std::vector<Relocation>& relocations, const Context&) {
  std::vector<Finding> findings;
  for (const auto& r : relocations) {
    if (r.section.starts_with(".text") || r.section.starts_with(".rela.text") || r.section.starts_with(".rel.text"))
      continue;  // code: check_host_code() names the function
    if (r.target == "exit") add_unique(findings, {"exit", fmt::format("takes the address of 'exit' ({})", r.section)});
    const auto entity = entity_of(demangle(r.target));
    if (any_match(tables::registry_entities(), entity))
      add_unique(findings,
                 {"harness", fmt::format("uses the launcher registry '{}' from data ({})", entity, r.section)});
  }
  return findings;
}

std::vector<Finding> check_headers(const std::vector<std::string>& dependencies, const Context& context) {
  std::vector<Finding> findings;
  std::set<std::string_view> reported;  // one finding per pattern: the first header matching it (the one included)
  bool has_launcher = false;
  const auto launcher = context.contract_dir + "/harness/launcher.hpp";
  const auto in_contract = [&](std::string_view dep) {
    if (inside(dep, context.contract_dir)) return true;
    // A quoted include from student.cu in the lab's folder finds the lab's own copy of a contract header first.
    return std::any_of(context.contract_headers.begin(), context.contract_headers.end(),
                       [&](const auto& name) { return dep == context.lab_dir + "/" + name; });
  };
  const auto allowed = [&](const std::string& dep) {
    return dep == context.source || in_contract(dep) ||
           std::find(context.course_files.begin(), context.course_files.end(), dep) != context.course_files.end() ||
           std::any_of(context.system_dirs.begin(), context.system_dirs.end(),
                       [&](const auto& dir) { return inside(dep, dir); });
  };
  for (const auto& dep : dependencies) {
    if (dep == launcher) has_launcher = true;
    if (!std::any_of(context.rules.allow_headers.begin(), context.rules.allow_headers.end(),
                     [&](const auto& p) { return tail_matches(p, dep); })) {
      for (const auto& family : tables::denied_headers()) {
        for (const auto& pattern : family.patterns) {
          if (!reported.contains(pattern) && tail_matches(pattern, dep)) {
            reported.insert(pattern);
            add_unique(findings, {std::string(family.rule), fmt::format("includes '{}'", dep)});
          }
        }
      }
    }
    // A header of the course taken from elsewhere: a doctored launcher.hpp or contract header.
    const auto name = file_name(dep);
    const bool harness_header = name.size() < dep.size() &&
                                file_name(std::string_view(dep).substr(0, dep.size() - name.size() - 1)) == "harness";
    if (harness_header && !inside(dep, context.contract_dir))
      add_unique(findings, {"harness_shadowing", fmt::format("includes a copy of 'harness/{}' ({})", name, dep)});
    const bool lab_header =
        std::find(context.lab_headers.begin(), context.lab_headers.end(), name) != context.lab_headers.end();
    if (lab_header && !in_contract(dep) && !inside(dep, context.lab_dir))
      add_unique(findings, {"harness_shadowing", fmt::format("includes a copy of the lab's '{}' ({})", name, dep)});
    // Anything else the compile read: the course's sources beside the lab (its solutions), another student's file.
    if (!allowed(dep))
      add_unique(findings, {"includes", fmt::format("includes '{}', which is neither its lab's contract ({}) nor the "
                                                    "compiler's own headers", dep, context.contract_dir)});
  }
  if (!has_launcher)
    add_unique(findings, {"harness", "does not include the course's harness/launcher.hpp (" + launcher + ")"});
  return findings;
}

std::vector<Finding> check_startup(const std::vector<Section>& sections, const std::vector<Symbol>& symbols) {
  std::vector<Finding> findings;
  for (const auto& s : sections) {
    const std::string_view n = s.name;
    if (n.starts_with(".preinit_array") || n == ".init" || n.starts_with(".init_array.") || n.starts_with(".ctors."))
      add_unique(findings, {"startup", fmt::format("has code in '{}', which runs before the runner confines itself",
                                                   s.name)});
  }
  for (const auto& sym : symbols)
    if (sym.indirect && sym.defined())
      add_unique(findings, {"startup", fmt::format("defines the indirect function '{}', whose resolver runs while the "
                                                   "program is loaded", demangle(sym.name))});
  return findings;
}

std::vector<Finding> check_device_code(const PtxCode& ptx, const Context& context) {
  std::vector<Finding> findings;
  std::set<std::string> reported;
  for (const auto& inst : ptx.instructions) {
    if (any_match(context.rules.allow_instructions, inst.opcode)) continue;
    const auto rule = family_of(tables::denied_instructions(), inst.opcode);
    if (rule.empty() || !reported.insert(std::string(rule) + inst.function).second) continue;
    add_unique(findings, {std::string(rule), fmt::format("executes '{}' in '{}'", inst.opcode,
                                                         readable(entity_of(demangle(inst.function))))});
  }
  for (const auto& fn : ptx.functions) {
    const auto scope = first_scope(fn);
    if (any_match(tables::library_namespaces(), scope) && reported.insert(scope).second)
      add_unique(findings, {"libraries", fmt::format("runs the library code '{}'", entity_of(demangle(fn)))});
  }
  return findings;
}

std::vector<Finding> check_strings(std::string_view bytes, const Context&) {
  std::vector<Finding> findings;
  for (std::string_view root : {"/proc/", "/dev/", "/sys/"}) {
    for (auto at = bytes.find(root); at != std::string_view::npos; at = bytes.find(root, at + 1)) {
      auto end = at;
      while (end < bytes.size() && std::isgraph(static_cast<unsigned char>(bytes[end]))) ++end;
      add_unique(findings, {"files", fmt::format("contains the path '{}'", bytes.substr(at, end - at))});
    }
  }
  return findings;
}

std::string_view rule_reason(std::string_view rule) { return tables::reason(rule); }

std::string format_finding(const Finding& f, const Context& context, std::string_view source) {
  const auto digits = context.lab_id.substr(0, context.lab_id.find('_'));
  return fmt::format("{}: refused: {} (rule '{}': lab {} {}; see labs/{}/README.md#rules)", source, f.what, f.rule,
                     digits, rule_reason(f.rule), context.lab_id);
}

}  // namespace grader::static_check
