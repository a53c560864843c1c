// check-submission: the build's static check of one compiled submission (grader/static_check.hpp).
//
//   check-submission --object student.cu.o --source student.cu --manifest labs/01_coalescing/manifest.json
//                    --contract build/contract/01_coalescing [--course-file F ...] [--arch 90 ...] [--nvcc nvcc]
//                    [--objdump objdump] [-- the build's nvcc options for the file: -I... -D... -std=c++17]
//
// Reads the object with objdump (sections, symbols, host code, relocations), and compiles the source once more per
// architecture to PTX with the build's options, which gives the device code and, through -MD, every file the
// compiler read (both the host and the device passes); those compiles read nothing but the system's folders, the
// source and the contract (grader/confine.hpp). Prints one line per finding on stderr. Exit: 0 accepted, 1 refused,
// 2 the check could not run (a missing tool or file): a build must stop on either of the last two.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "grader/manifest.hpp"
#include "grader/process.hpp"
#include "grader/static_check.hpp"

namespace fs = std::filesystem;
namespace sc = grader::static_check;

namespace {

/// The check could not run: the message says what is missing.
struct CheckError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CheckError(fmt::format("cannot read {}", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs a tool and returns its stdout (and its stderr after it, with `with_stderr`); a tool that fails stops the
/// check (exit 2), never accepts the submission. `confine`: the files it may use (a compile of the submission).
std::string run_tool(std::vector<std::string> argv, std::optional<grader::Confinement> confine = std::nullopt,
                     bool with_stderr = false) {
  grader::ProcessOptions options;
  options.argv = std::move(argv);
  options.confine = std::move(confine);
  // A confined compile writes its temporary files where it may write.
  if (options.confine && !options.confine->write.empty())
    options.env.emplace_back("TMPDIR", options.confine->write.front().string());
  options.timeout_s = 300;
  options.capture_limit = std::size_t{512} << 20;  // objdump of a large object runs to megabytes
  const auto r = grader::run_process(options);
  if (!r.started) throw CheckError(fmt::format("cannot run {}: {}", options.argv[0], r.error));
  if (r.exit_code != 0) {
    std::string command;
    for (const auto& a : options.argv) command += (command.empty() ? "" : " ") + a;
    throw CheckError(fmt::format("'{}' failed ({}): {}", command,
                                 r.timed_out ? "timed out"
                                 : r.signal  ? grader::signal_name(r.signal)
                                             : fmt::format("exit {}", r.exit_code),
                                 r.err));
  }
  return with_stderr ? r.out + r.err : r.out;
}

/// A private scratch folder, removed with its contents at scope exit.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "check-submission-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw CheckError("cannot create a scratch folder in " + fs::temp_directory_path().string());
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

std::string canonical(const fs::path& p) {
  std::error_code error;
  auto c = fs::weakly_canonical(p, error);
  return (error ? p.lexically_normal() : c).string();
}

/// "-arch=compute_90" for "90", "90-real" or "90-virtual"; "-arch=native" for "native"; nothing for "all" and
/// "all-major" (-ptx takes one architecture: nvcc's default stands in for them).
std::vector<std::string> arch_flags(const std::vector<std::string>& archs) {
  std::set<std::string> seen;
  std::vector<std::string> flags;
  for (auto a : archs) {
    a = a.substr(0, a.find('-'));
    if (a.empty() || a == "all" || !seen.insert(a).second) continue;
    flags.push_back(a == "native" ? "-arch=native" : "-arch=compute_" + a);
  }
  if (flags.empty()) flags.emplace_back();
  return flags;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The build's static check of a compiled submission: refuses, naming the symbol, header or "
      "instruction and the rule, what the lab's manifest does not allow."};
  std::string object, source, manifest_path, contract, nvcc = "nvcc", objdump = "objdump";
  std::vector<std::string> archs, nvcc_options, course_files;
  bool verbose = false;
  app.add_option("--object", object, "the submission's object file, as the build compiled it")->required();
  app.add_option("--source", source, "the submission's source file")->required();
  app.add_option("--manifest", manifest_path, "the lab's manifest.json (its folder is the lab's)")->required();
  app.add_option("--contract", contract, "the lab's contract folder, the compile's only include folder")->required();
  app.add_option("--course-file", course_files,
                 "a file the course ships with this implementation, which it may include (repeatable)");
  app.add_option("--arch", archs, "a CUDA architecture of the build (90, 90-real, native); repeatable");
  app.add_option("--nvcc", nvcc, "the CUDA compiler")->capture_default_str();
  app.add_option("--objdump", objdump, "binutils' objdump")->capture_default_str();
  app.add_flag("-v,--verbose", verbose, "say what was checked, and how long it took");
  // After "--": the build's nvcc options for the file (-I, -D, -std), passed through as they are.
  app.allow_extras();
  CLI11_PARSE(app, argc, argv);
  for (auto& extra : app.remaining())
    if (extra != "--") nvcc_options.push_back(std::move(extra));

  const auto start = std::chrono::steady_clock::now();
  try {
    const auto manifest = grader::load_manifest(manifest_path);
    const fs::path lab_dir = fs::path(canonical(manifest_path)).parent_path();
    sc::Context context;
    context.lab_id = lab_dir.filename().string();
    context.source_name = fs::path(source).filename().string();
    context.source = canonical(source);
    context.contract_dir = canonical(contract);
    for (const auto& entry : fs::directory_iterator(context.contract_dir))
      if (entry.is_regular_file()) context.contract_headers.push_back(entry.path().filename().string());
    for (const auto& f : course_files) context.course_files.push_back(canonical(f));
    context.lab_dir = lab_dir.string();
    context.rules = manifest.rules;
    for (const auto& entry : fs::directory_iterator(lab_dir)) {
      const auto ext = entry.path().extension();
      if (ext == ".hpp" || ext == ".cuh" || ext == ".h")
        context.lab_headers.push_back(entry.path().filename().string());
    }

    std::vector<sc::Finding> findings;
    const auto add = [&](std::vector<sc::Finding> more) {
      for (auto& f : more)
        if (std::find(findings.begin(), findings.end(), f) == findings.end()) findings.push_back(std::move(f));
    };
    const auto symbols = sc::parse_symbol_table(run_tool({objdump, "-t", object}));
    add(sc::check_startup(sc::parse_sections(run_tool({objdump, "-h", object})), symbols));
    const auto functions = sc::parse_disassembly(run_tool({objdump, "-dr", "--no-show-raw-insn", object}));
    const auto relocations = sc::parse_relocations(run_tool({objdump, "-r", object}));
    add(sc::check_symbols(symbols, context));
    add(sc::check_host_code(functions, context));
    add(sc::check_relocations(relocations, context));
    add(sc::check_strings(read_file(object), context));

    // The compiler's own include folders: its search list without the build's folders (its -I and -isystem).
    std::vector<std::string> system_options;
    for (std::size_t i = 0; i < nvcc_options.size(); ++i) {
      const auto& o = nvcc_options[i];
      if (o == "-I" || o == "-isystem") ++i;
      else if (!o.starts_with("-I") && !o.starts_with("-isystem")) system_options.push_back(o);
    }
    std::vector<std::string> search{nvcc, "-E", "-x", "cu", "-Xcompiler", "-v", "/dev/null", "-o", "/dev/null"};
    search.insert(search.end(), system_options.begin(), system_options.end());
    for (const auto& dir : sc::parse_search_list(run_tool(search, std::nullopt, true)))
      context.system_dirs.push_back(canonical(dir));

    // The device code and the headers: one PTX compile per architecture, since `#if __CUDA_ARCH__` can hide an
    // include or an instruction from every architecture but one. Each reads only the system's folders, the source
    // and the contract (with the lab's own copies of its headers, which a quoted include finds beside student.cu).
    const ScratchDir scratch;
    grader::Confinement confinement{{fs::path(context.source), fs::path(context.contract_dir)}, {scratch.path}};
    for (const auto& name : context.contract_headers) confinement.read.push_back(lab_dir / name);
    for (const auto& f : context.course_files) confinement.read.emplace_back(f);
    std::vector<std::string> deps;  // in the order the compiler read them: the first of a library is the one included
    std::set<std::string> seen;
    std::size_t instructions = 0;
    int run = 0;
    for (const auto& arch : arch_flags(archs)) {
      const auto ptx_file = scratch.path / fmt::format("{}.ptx", run);
      const auto dep_file = scratch.path / fmt::format("{}.d", run++);
      std::vector<std::string> command{nvcc, "-ptx"};
      if (!arch.empty()) command.push_back(arch);
      command.insert(command.end(), nvcc_options.begin(), nvcc_options.end());
      command.insert(command.end(), {"-MD", "-MF", dep_file.string(), source, "-o", ptx_file.string()});
      run_tool(command, confinement);
      const auto ptx = sc::parse_ptx(read_file(ptx_file));
      instructions += ptx.instructions.size();
      add(sc::check_device_code(ptx, context));
      for (const auto& d : sc::parse_depfile(read_file(dep_file)))
        if (auto c = canonical(d); seen.insert(c).second) deps.push_back(std::move(c));
    }
    add(sc::check_headers(deps, context));

    for (const auto& f : findings) std::cerr << sc::format_finding(f, context, source) << "\n";
    if (verbose) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      std::cerr << fmt::format("{}: {} ({} symbols, {} host functions, {} headers, {} PTX instructions; {:.2f} s)\n",
                               source, findings.empty() ? "accepted" : "refused", symbols.size(), functions.size(),
                               deps.size(), instructions, took.count());
    }
    return findings.empty() ? 0 : 1;
  } catch (const grader::ManifestError& e) {
    std::cerr << "check-submission: " << e.what() << "\n";
  } catch (const CheckError& e) {
    std::cerr << "check-submission: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "check-submission: " << e.what() << "\n";
  }
  return 2;
}
