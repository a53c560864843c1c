#pragma once
/// @file static_check.hpp
/// @brief The build-time static check of a student's compiled submission (`check-submission`).
///
/// Student code runs in the process that times it, so whatever it can call, define or include is a way to grade
/// itself. Before the lab is built, the check reads what a static look can see of the submission: the symbols its
/// object defines and calls (`objdump -t`), the calls and system-call instructions of its host code
/// (`objdump -dr`), the headers it includes (nvcc's dependency output) and its device code (PTX from the same
/// compiler), and refuses, naming the symbol, header or instruction and the rule, anything outside the lab's rules.
///
/// The default is strict: a small allowlist of CUDA runtime calls, the C++ runtime, and C library memory, string,
/// math and printing functions. A lab widens it in its manifest (grader::SubmissionRules); lab 07 allows its own
/// streams, events and pinned memory. What only a run can show (a race, a cached result, work left on the legacy
/// default stream) is left to the checks on the GPU.
///
/// Every function here is pure: it takes the text a tool printed, so each rule is tested on captured output
/// (tests/grader/test_static_check.cpp). check_submission_main.cpp runs the tools.

#include <string>
#include <string_view>
#include <vector>

#include "grader/manifest.hpp"

namespace grader::static_check {

/// One refusal: what the submission does and the rule it breaks.
struct Finding {
  std::string rule;  ///< the rule's name, e.g. "streams" (rule_reason() explains it)
  std::string what;  ///< what was seen, e.g. "calls 'cudaStreamCreate'"
  bool operator==(const Finding&) const = default;
};

/// What the checks need to know besides the tool output. Paths are canonical, as the dependency list is read.
struct Context {
  std::string lab_id;                    ///< the lab folder's name, e.g. "01_coalescing"
  std::string source_name;               ///< the submission's file name, e.g. "student.cu" (nvcc names its
                                         ///< anonymous namespace after it)
  std::string source;                    ///< the submission's file
  std::string contract_dir;              ///< the lab's contract folder (cmake/Contract.cmake): its only include folder
  std::vector<std::string> contract_headers;  ///< the lab's headers in it ("coalescing.hpp"), which a quoted include
                                              ///< may also find beside the submission in the lab's folder
  std::string lab_dir;                   ///< the lab's folder
  std::vector<std::string> lab_headers;  ///< the lab's own header names ("coalescing.hpp", "cpu_reference.hpp", ...)
  std::vector<std::string> system_dirs;  ///< the compiler's own include folders (gcc -v's search list, nvcc's)
  std::vector<std::string> course_files;  ///< files the course ships with this implementation (lab 04's baseline
                                          ///< includes its solution.cu): allowed besides the contract
  SubmissionRules rules;                 ///< what the lab's manifest allows beyond the default
};

/// True when `text` matches `pattern`, in which `*` matches any run of characters (none included).
bool glob_match(std::string_view pattern, std::string_view text);

/// A symbol of the object file, from one line of `objdump -t`.
struct Symbol {
  std::string name;     ///< as in the object (mangled)
  std::string section;  ///< "*UND*" for a symbol the object uses but does not define
  bool global = false;  ///< visible to the linker (global or unique), as opposed to local to the file
  bool weak = false;    ///< a weak definition or reference
  bool indirect = false;  ///< an indirect function (GNU ifunc): its resolver runs while the program is loaded

  /// True for a symbol this object defines.
  [[nodiscard]] bool defined() const { return section != "*UND*"; }
};

/// The symbol table printed by `objdump -t`; lines that are not symbols are skipped.
std::vector<Symbol> parse_symbol_table(std::string_view text);

/// One function of the host code, from `objdump -dr`.
struct HostFunction {
  std::string name;                       ///< the symbol that labels it (mangled)
  std::vector<std::string> references;    ///< symbols its relocations name, in order
  std::vector<std::string> instructions;  ///< its instructions ("mov    $0x1,%edi"), in order
  std::vector<std::string> system_calls;  ///< its `syscall`, `sysenter`, `int $0x80` or `svc` instructions
};

/// The disassembly with relocations printed by `objdump -dr`.
std::vector<HostFunction> parse_disassembly(std::string_view text);

/// One relocation: a place in a section of the object that names a symbol.
struct Relocation {
  std::string section;  ///< e.g. ".text", ".data.rel.ro"
  std::string target;   ///< the symbol named (mangled), without its addend
};

/// Every section's relocations, as `objdump -r` prints them (data sections included, which -dr leaves out).
std::vector<Relocation> parse_relocations(std::string_view text);

/// The prerequisites of a make-style dependency file (`nvcc -MD -MF`), in order, with escapes undone.
std::vector<std::string> parse_depfile(std::string_view text);

/// One instruction of the device code, from PTX.
struct PtxInstruction {
  std::string opcode;    ///< with its modifiers, e.g. "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
  std::string function;  ///< the .entry or .func it is in (mangled)
};

/// Device code as PTX shows it.
struct PtxCode {
  std::vector<std::string> functions;        ///< every .entry and .func defined or declared (mangled)
  std::vector<PtxInstruction> instructions;  ///< every instruction, in order
};

/// Reads PTX text (`nvcc -ptx`).
PtxCode parse_ptx(std::string_view text);

/// The demangled form of a symbol (C names and names that do not demangle come back as they are).
std::string demangle(std::string_view name);

/// The entity a demangled name denotes: no return type, parameters, clone suffix or ABI tag, and no
/// "vtable for "-style prefix ("harness::median(std::vector<double>)" -> "harness::median").
std::string entity_of(std::string_view demangled);

/// The symbol rules: what the object calls (the allowlist, the denied API families, the harness, other
/// implementations) and what it defines (runtime, C library and harness names it must not shadow).
std::vector<Finding> check_symbols(const std::vector<Symbol>& symbols, const Context& context);

/// The host-code rules: raw system-call instructions, the launcher registry used outside REGISTER_LAUNCHER, and
/// calls to exit() other than the exit(1) nvcc puts in the host copy of every __device__ function.
std::vector<Finding> check_host_code(const std::vector<HostFunction>& functions, const Context& context);

/// The rules for data: a table of pointers that names the launcher registry outside
/// REGISTER_LAUNCHER's constructor, or exit (code is check_host_code()'s business).
std::vector<Finding> check_relocations(const std::vector<Relocation>& relocations, const Context& context);

/// The header rules: library headers the lab does not allow, copies of the course's headers, the course's
/// harness/launcher.hpp missing (REGISTER_LAUNCHER must be the course's), and any file read that is neither the
/// submission, its lab's contract nor the compiler's own headers (a course source, another student's file).
std::vector<Finding> check_headers(const std::vector<std::string>& dependencies, const Context& context);

/// The compiler's own include folders, from the search list that `gcc -v` prints (through nvcc: `nvcc -E -x cu
/// -Xcompiler -v`): the lines between "#include <...> search starts here:" and "End of search list.".
std::vector<std::string> parse_search_list(std::string_view text);

/// One section of the object, from `objdump -h`.
struct Section {
  std::string name;  ///< ".text", ".init_array.00101", ...
};

/// The section headers printed by `objdump -h`.
std::vector<Section> parse_sections(std::string_view text);

/// The startup rule: code that would run before the runner has confined itself (sandbox.hpp), in sections that run
/// ahead of the runner's own setup (.preinit_array, .init, prioritized .init_array or .ctors) or as indirect
/// functions, whose resolvers the dynamic loader runs before any initializer.
std::vector<Finding> check_startup(const std::vector<Section>& sections, const std::vector<Symbol>& symbols);

/// The device-code rules: tensor-core and persisting-L2 instructions, and library kernels (CUB, Thrust).
std::vector<Finding> check_device_code(const PtxCode& ptx, const Context& context);

/// The file-system paths a file's bytes spell out ("/proc/self/cmdline"): refused even where no call is visible.
std::vector<Finding> check_strings(std::string_view object_bytes, const Context& context);

/// Why a rule exists, completing "lab 01 ..." (e.g. "allows no streams of your own: ...").
std::string_view rule_reason(std::string_view rule);

/// One line per finding: "student.cu: refused: calls 'x' (rule 'r': lab 01 allows ...; see
/// labs/01_coalescing/README.md#rules)". `source` is the name to start the line with.
std::string format_finding(const Finding& finding, const Context& context, std::string_view source);

}  // namespace grader::static_check
