// grade: grades the course's labs by running their binaries (lab1, lab2, ...) as child processes.
//
//   make lab1 && ./grade lab1        grade one lab (the binaries sit next to grade in the build directory)
//   ./grade all --self-check         instructors: the reference earns full marks, every stub behaves as shipped
//
// The protocol with the lab binaries is docs/protocol.md; the grade formula is in grader/src/grading/formula.cpp.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "grader/batch.hpp"
#include "grader/concepts.hpp"
#include "grader/device_info.hpp"
#include "grader/discovery.hpp"
#include "grader/lab_run.hpp"
#include "grader/manifest.hpp"
#include "grader/process.hpp"
#include "grader/repeatability.hpp"
#include "grader/report.hpp"
#include "grader/sources_hash.hpp"
#include "grader/sanitize.hpp"
#include "grader/self_check.hpp"
#include "class/export_command.hpp"
#include "grading/repeatability_command.hpp"

#ifndef COURSE_LABS_DIR
#define COURSE_LABS_DIR "labs"
#endif

namespace {

namespace fs = std::filesystem;
using namespace grader;

constexpr int kExitGraded = 0;
constexpr int kExitUsage = 1;
constexpr int kExitNoGpu = 3;
constexpr int kExitSelfCheckFailed = 4;
constexpr int kExitNothingGradable = 5;

constexpr const char* kFooter = R"(
LAB is lab1, 1, 01 or 01_coalescing (a folder of the labs directory with a manifest.json); `all` grades every lab.
Each lab's binary is <bin-dir>/labN. Per exercise the grader runs `labN check`, then, if every test passed,
`labN time`; points follow grader/src/grading/formula.cpp. The table goes to the console and everything to the JSON
results file.

Examples:
  grade lab1                          grade lab 1 (build it first: make lab1)
  grade all                           grade every lab and print the weighted total
  grade 01_coalescing --exercise scale
  grade lab1 --impl reference         grade the reference solution in the student slot
  grade all --self-check              instructors: reference must get full marks, stubs behave as in the manifest
  grade lab1 --repeat 3               grade three times and print the largest score difference
  grade lab1 --seeds 101,202,303      chosen seeds for the correctness tests (default: fresh random ones)
  grade lab6 --sanitize               also run compute-sanitizer (the manifest's tools) on small shapes
  grade lab1 --concepts               also measure the lab's idea: ncu counters, SASS instructions (docs/concepts.md)
  grade --list                        which labs exist and which are built
  grade batch SUBMISSIONS_DIR --labs lab1   grade a class, one folder per student (docs/batch.md; grade batch --help)
  grade merge RESULTS... --output class.json  combine per-student results and shards into one class file
  grade --device                      your GPU and its napkin math (bandwidth, bytes in flight)
  grade export grade-results.json --format csv
  grade repeatability h200-*.json --against h100-*.json   the repeatability benchmark's goals (grade repeatability -h)

Exit codes:
  0  graded (whatever the score)
  1  usage error, or the results file could not be written
  3  no CUDA GPU is visible
  4  --self-check: an expectation failed
  5  nothing gradable (unknown lab, lab not built, broken manifest))";

struct Cli {
  std::vector<std::string> labs;
  std::string impl = "student";
  bool self_check = false;
  bool list = false;
  bool sanitize = false, no_sanitize = false;
  std::string sanitizer;  // --sanitizer PATH; empty: looked for (find_compute_sanitizer)
  bool device = false;
  bool concepts = false;  // --concepts: the manifests' concept checks (docs/concepts.md)
  std::string ncu, cuobjdump;  // --ncu PATH, --cuobjdump PATH; empty: looked for (find_cuda_tool)
  int repeat = 1;
  std::string seeds, exercise, labs_dir = COURSE_LABS_DIR, bin_dir, work_dir, output = "grade-results.json", commit;
  std::optional<double> check_timeout_s, time_timeout_s;
  std::optional<std::uint64_t> timed_seed, timed_salt_seed;
};

// Parses the command line; returns an exit code when the program should stop (help, usage error).
std::optional<int> parse(int argc, char** argv, Cli& cli) {
  CLI::App app{"Grades the CUDA course's labs by running their binaries (see docs/protocol.md).", "grade"};
  app.footer(kFooter);
  double check_timeout = 0, time_timeout = 0;
  std::uint64_t timed_seed = 0, timed_salt_seed = 0;
  app.add_option("LAB", cli.labs, "labs to grade: lab1, 1, 01, 01_coalescing, or all");
  auto* impl = app.add_option("--impl", cli.impl,
                              "implementation graded in the student slot (default: student), e.g. reference");
  auto* self_check = app.add_flag("--self-check", cli.self_check,
                                  "grade `reference` (must earn full marks) and `baseline` (the shipped stub.cu, "
                                  "never student.cu: it must behave as the manifest's \"stub\" says); exit 4 if an expectation fails; "
                                  "without LAB, checks every lab");
  impl->excludes(self_check);
  app.add_option("--repeat", cli.repeat,
                 "grade everything N times and print the largest lab-score difference between repeats (default 1)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--seeds", cli.seeds,
                 "comma-separated seeds passed to `check` (default: fresh random seeds for every check run; the "
                 "seeds used are in the results file)");
  auto* timed_seed_opt = app.add_option("--timed-seed", timed_seed,
                                        "seed passed to `time` (default: a fresh random seed for every time run)")
                             ->check(CLI::NonNegativeNumber);
  auto* timed_salt_seed_opt =
      app.add_option("--timed-salt-seed", timed_salt_seed,
                     "seed of the timed rounds' fresh inputs passed to `time` (default: the lab binary draws one; the "
                     "results give it as timed_salt_seed)")
          ->check(CLI::NonNegativeNumber);
  app.add_option("--exercise", cli.exercise, "grade only this exercise");
  auto* check_opt = app.add_option("--check-timeout", check_timeout,
                                   "seconds allowed for one `check` run (default: the manifest's, else 120)")
                        ->check(CLI::PositiveNumber);
  auto* time_opt = app.add_option("--time-timeout", time_timeout,
                                  "seconds allowed for one `time` run (default: the manifest's, else 300)")
                       ->check(CLI::PositiveNumber);
  app.add_option("--labs-dir", cli.labs_dir, fmt::format("folder holding the NN_name lab folders (default: {})",
                                                         COURSE_LABS_DIR));
  app.add_option("--bin-dir", cli.bin_dir, "folder holding lab1, lab2, ... (default: the folder of grade itself)");
  app.add_option("--work-dir", cli.work_dir,
                 "folder in which every lab run gets a fresh working directory (default: <bin-dir>/grading)");
  app.add_option("--output", cli.output, "JSON results file (default: ./grade-results.json)");
  app.add_option("--commit", cli.commit, "commit recorded in the results (default: git rev-parse HEAD, or unknown)");
  app.add_flag("--list", cli.list, "list the labs found and whether each is built, then exit");
  auto* sanitize = app.add_flag("--sanitize", cli.sanitize,
                                "after the checks, run each passing one on small shapes under compute-sanitizer with "
                                "the tools the lab's manifest names, a lab's runs at once; a finding is status "
                                "memory-error or race, with no performance points (on by default for --self-check "
                                "and grade batch, off for a student's own grade: docs/sanitizer.md)");
  app.add_flag("--no-sanitize", cli.no_sanitize, "no compute-sanitizer runs, not even in a --self-check")
      ->excludes(sanitize);
  app.add_option("--sanitizer", cli.sanitizer,
                 "compute-sanitizer to use with --sanitize (default: from PATH, $CUDA_HOME/bin or "
                 "/usr/local/cuda/bin)");
  app.add_flag("--concepts", cli.concepts,
               "after each passing check, run the manifest's concept checks: hardware counters through Nsight Compute "
               "(ncu), instructions in the SASS (cuobjdump), figures of the timed run; informative unless the "
               "manifest gives them points; a missing tool is skipped with a notice (docs/concepts.md)");
  app.add_option("--ncu", cli.ncu, "Nsight Compute's ncu to use with --concepts (default: from PATH, $CUDA_HOME/bin or "
                                   "/usr/local/cuda/bin)");
  app.add_option("--cuobjdump", cli.cuobjdump,
                 "cuobjdump to use with --concepts (default: from PATH, $CUDA_HOME/bin or /usr/local/cuda/bin)");
  app.add_flag("--device", cli.device,
               "describe the GPU (bandwidth from its memory clock and bus, napkin math) through a built lab, then exit");
  std::optional<int> exported;  // `grade export ...` or `grade repeatability ...` ran during parsing: its exit code
  add_export_command(app, exported);
  add_repeatability_command(app, exported);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help (exit 0) or the error; every error is a usage error here.
    return app.exit(e) == 0 ? kExitGraded : kExitUsage;
  }
  if (exported) return *exported;
  if (check_opt->count() > 0) cli.check_timeout_s = check_timeout;
  if (time_opt->count() > 0) cli.time_timeout_s = time_timeout;
  if (timed_seed_opt->count() > 0) cli.timed_seed = timed_seed;
  if (timed_salt_seed_opt->count() > 0) cli.timed_salt_seed = timed_salt_seed;
  return std::nullopt;
}

fs::path executable_dir(const char* argv0) {
  std::error_code error;
  auto self = fs::read_symlink("/proc/self/exe", error);
  if (error) self = fs::absolute(argv0, error);
  return self.parent_path();
}

void list_labs(const std::vector<LabEntry>& labs, const fs::path& labs_dir, const fs::path& bin_dir) {
  fmt::print("labs in {} (binaries in {}):\n", labs_dir.string(), bin_dir.string());
  for (const auto& lab : labs) {
    std::string title;
    try {
      title = load_manifest(lab.manifest).title;
    } catch (const ManifestError& e) {
      title = fmt::format("(broken manifest: {})", e.what());
    }
    std::error_code error;
    const bool built = fs::is_regular_file(lab_binary(bin_dir, lab.number), error);
    fmt::print("  lab{:<3} {:<24} {:<32} {}\n", lab.number, lab.id, title,
               built ? "built" : fmt::format("not built (make lab{})", lab.number));
  }
}

// --concepts: the tools the checks use, each missing one said once (its checks are skipped and cost nothing).
std::shared_ptr<ConceptTools> locate_concept_tools(const Cli& cli, const std::vector<const LabEntry*>& labs,
                                                   const std::map<int, Manifest>& manifests) {
  const char* path = std::getenv("PATH");
  const char* cuda_home = std::getenv("CUDA_HOME");
  const auto locate = [&](const char* program, const std::string& given) -> std::optional<fs::path> {
    std::error_code error;
    if (given.empty()) return find_cuda_tool(program, path ? path : "", cuda_home ? cuda_home : "");
    if (fs::is_regular_file(given, error)) return fs::absolute(given, error);
    return std::nullopt;
  };
  auto tools = std::make_shared<ConceptTools>();
  tools->ncu = locate("ncu", cli.ncu);
  tools->cuobjdump = locate("cuobjdump", cli.cuobjdump);
  bool needs_ncu = false, needs_cuobjdump = false;
  for (const LabEntry* lab : labs) {
    const auto m = manifests.find(lab->number);
    if (m == manifests.end()) continue;
    for (const auto& x : m->second.exercises)
      for (const auto& c : x.concepts) {
        needs_ncu = needs_ncu || c.tool == ConceptTool::kNcu;
        needs_cuobjdump = needs_cuobjdump || c.tool == ConceptTool::kSass;
      }
  }
  const auto where = [](const std::string& given) {
    return given.empty() ? std::string("not on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin") : "no file " + given;
  };
  if (needs_ncu && !tools->ncu)
    fmt::print(stderr, "grade: --concepts: ncu (Nsight Compute) not found ({}); the counter checks are skipped, "
                       "which costs no points\n", where(cli.ncu));
  if (needs_cuobjdump && !tools->cuobjdump)
    fmt::print(stderr, "grade: --concepts: cuobjdump not found ({}); the SASS checks are skipped, which costs no "
                       "points\n", where(cli.cuobjdump));
  return tools;
}

// What `grade` grades: the labs named (lab1, 1, 01, 01_coalescing), or every lab for `all` or none named; an
// exit code for a name that is no lab.
std::variant<std::vector<const LabEntry*>, int> select_labs(const Cli& cli, const std::vector<LabEntry>& labs,
                                                            bool everything) {
  std::vector<const LabEntry*> selected;
  for (const auto& arg : everything ? std::vector<std::string>{} : cli.labs) {
    const LabEntry* lab = find_lab(labs, arg);
    if (lab == nullptr) {
      std::string known;
      for (const auto& l : labs) known += fmt::format("{}lab{} ({})", known.empty() ? "" : ", ", l.number, l.id);
      fmt::print(stderr, "grade: unknown lab '{}'; labs found: {}\n", arg, known);
      return kExitNothingGradable;
    }
    if (std::find(selected.begin(), selected.end(), lab) == selected.end()) selected.push_back(lab);
  }
  if (everything)
    for (const auto& lab : labs) selected.push_back(&lab);
  return selected;
}

// The selected labs' manifests: a broken one is reported by name (a failed self-check verdict) and its lab skipped,
// the others are still graded; with --exercise, only the labs that have it. Returns the labs to grade.
std::vector<const LabEntry*> load_manifests(const Cli& cli, const std::vector<const LabEntry*>& selected,
                                            std::map<int, Manifest>& manifests, std::vector<Verdict>& verdicts) {
  std::vector<const LabEntry*> usable;
  for (const LabEntry* lab : selected) {
    try {
      auto manifest = load_manifest(lab->manifest);
      const bool has_exercise = cli.exercise.empty() ||
                                std::any_of(manifest.exercises.begin(), manifest.exercises.end(),
                                            [&](const ExerciseSpec& s) { return s.name == cli.exercise; });
      if (!has_exercise) continue;
      manifests.emplace(lab->number, std::move(manifest));
      usable.push_back(lab);
    } catch (const ManifestError& e) {
      fmt::print(stderr, "grade: {}\n", e.what());
      verdicts.push_back({lab->number, 1, "", "", "manifest", false, e.what()});
    }
  }
  return usable;
}

// `info` first, for every lab: no GPU stops everything before any grading, with one line. The first lab's machine is
// the report's. An exit code when nothing can be graded.
std::optional<int> describe_machine(const std::vector<const LabEntry*>& usable, const fs::path& bin_dir,
                                    Report& report) {
  report.machine = nullptr;
  bool any_built = false;
  for (const LabEntry* lab : usable) {
    const auto info = query_info(lab_binary(bin_dir, lab->number));
    switch (info.kind) {
      case InfoOutcome::Kind::kNoGpu:
        fmt::print(stderr, "grade: grading needs an NVIDIA GPU, and lab{} sees none: {}\n", lab->number,
                   info.message);
        return kExitNoGpu;
      case InfoOutcome::Kind::kNoBinary: fmt::print(stderr, "{}\n", not_built_message(lab->number)); break;
      case InfoOutcome::Kind::kFailed:
        any_built = true;
        fmt::print(stderr, "grade: warning: {}; grading anyway\n", info.message);
        break;
      case InfoOutcome::Kind::kOk:
        any_built = true;
        if (report.machine.is_null()) report.machine = info.info;
        break;
    }
  }
  if (!any_built) return kExitNothingGradable;
  return std::nullopt;
}

// How every lab is graded, from the command line: seeds, limits, the sanitizer and the concept tools.
GradeOptions grade_options(const Cli& cli, const fs::path& bin_dir, const std::vector<const LabEntry*>& usable,
                           const std::map<int, Manifest>& manifests) {
  GradeOptions options;
  options.bin_dir = bin_dir;
  options.work_dir = cli.work_dir.empty() ? bin_dir / "grading" : fs::path(cli.work_dir);
  options.seeds = cli.seeds;
  options.timed_seed = cli.timed_seed;
  options.timed_salt_seed = cli.timed_salt_seed;
  options.exercise = cli.exercise;
  options.check_timeout_s = cli.check_timeout_s;
  options.time_timeout_s = cli.time_timeout_s;
  options.progress = [](const std::string& what) { fmt::print(stderr, "  {} ...\n", what); };
  // On for the self-check (the course's own kernels must come out clean) unless --no-sanitize; for a student's own
  // grade only when asked: it keeps the edit-and-grade loop short (docs/sanitizer.md has the cost).
  if (!cli.no_sanitize && (cli.sanitize || !cli.sanitizer.empty() || cli.self_check))
    options.sanitizer = locate_sanitizer(cli.sanitizer, "grade");
  if (cli.concepts || !cli.ncu.empty() || !cli.cuobjdump.empty())
    options.concepts = locate_concept_tools(cli, usable, manifests);
  options.warn = [](const std::string& what) { fmt::print(stderr, "grade: {}\n", what); };
  return options;
}

// Every repeat of every implementation graded (the self-check: the reference, then the shipped stub), each lab's
// table printed as soon as it is graded; the self-check's verdicts added to `verdicts`.
void grade_runs(const Cli& cli, bool everything, const std::vector<const LabEntry*>& usable,
                const std::map<int, Manifest>& manifests, GradeOptions options, Report& report,
                std::vector<Verdict>& verdicts) {
  // The self-check grades the shipped stub (`stub`, built from stub.cu) in the student slot, never student.cu: an
  // instructor's edited copy must not decide whether the course holds up. (The baseline is the stub only where the lab
  // has no baseline of its own: cmake/AddLab.cmake.)
  const std::vector<std::string> impls =
      cli.self_check ? std::vector<std::string>{"reference", "stub"} : std::vector<std::string>{cli.impl};
  for (int repeat = 1; repeat <= cli.repeat; ++repeat) {
    for (const auto& impl : impls) {
      options.impl = impl;
      RunRecord record{impl, repeat, {}};
      const auto note = cli.repeat > 1 ? fmt::format("(impl: {}, repeat {} of {})", impl, repeat, cli.repeat)
                                       : fmt::format("(impl: {})", impl);
      // Every lab's checks at once, then each lab's timed runs, its table printed as soon as it is graded.
      std::vector<LabToGrade> labs;
      for (const LabEntry* lab : usable) labs.push_back({lab, &manifests.at(lab->number), options});
      grade_labs(labs, [&](LabResult& result) {
        fmt::print("{}\n", format_lab_table(result, note));
        std::fflush(stdout);
        if (cli.self_check) {
          auto v = self_check_verdicts(result, manifests.at(result.number), impl, repeat);
          verdicts.insert(verdicts.end(), v.begin(), v.end());
        }
        record.labs.push_back(std::move(result));
      });
      if (everything || record.labs.size() > 1)
        fmt::print("weighted total ({}): {:.1f}% (lab weights from the manifests)\n\n", note,
                   weighted_percent(record.labs));
      report.runs.push_back(std::move(record));
    }
  }
}

// `--repeat N`: how far each lab's score moved between repeats, printed and kept in the report.
void report_repeats(int repeats, Report& report) {
  nlohmann::json spreads = nlohmann::json::array();
  double largest = 0;
  for (const auto& s : repeat_spreads(report.runs)) {
    fmt::print("repeat spread lab{} ({}): {:.1f}% of max score (scores {:.2f} to {:.2f} of {:g})\n", s.lab, s.impl,
               s.percent, s.lowest, s.highest, s.max_score);
    largest = std::max(largest, s.percent);
    spreads.push_back({{"lab", s.lab}, {"impl", s.impl}, {"lowest", s.lowest}, {"highest", s.highest},
                       {"max_score", s.max_score}, {"percent", s.percent}});
  }
  fmt::print("largest repeat spread: {:.1f}% of max score over {} repeats\n\n", largest, repeats);
  // Each exercise's f (the repeatability benchmark's number): its range over the repeats that graded performance,
  // read from the results as `grade repeatability` reads a results file.
  nlohmann::json fractions = nlohmann::json::array();
  for (const auto& r : repeated_fractions({to_json(report)})) {
    const auto graded = static_cast<int>(r.fractions.size());
    const auto [low, high] = std::minmax_element(r.fractions.begin(), r.fractions.end());
    fmt::print("repeat f lab{} {} ({}): {}\n", r.lab, r.exercise, r.impl, describe_fractions(r));
    fractions.push_back({{"lab", r.lab}, {"exercise", r.exercise}, {"impl", r.impl},
                         {"lowest", graded > 0 ? nlohmann::json(*low) : nlohmann::json(nullptr)},
                         {"highest", graded > 0 ? nlohmann::json(*high) : nlohmann::json(nullptr)},
                         {"graded", graded}, {"not_graded", r.not_graded}});
  }
  fmt::print("\n");
  report.repeat_spread = {{"largest_percent", largest}, {"labs", std::move(spreads)},
                          {"exercises", std::move(fractions)}};
}

// `--self-check`: every verdict, then each lab's and the whole check's PASS or FAIL, kept in the report. True when
// every expectation was met.
bool report_self_check(const std::vector<const LabEntry*>& selected, const std::vector<Verdict>& verdicts,
                       Report& report) {
  bool passed = true;
  for (const auto& v : verdicts) {
    fmt::print("{}\n", format_verdict(v));
    passed = passed && v.passed;
  }
  for (const LabEntry* lab : selected) {
    const auto n =
        std::count_if(verdicts.begin(), verdicts.end(), [&](const Verdict& v) { return v.lab == lab->number; });
    if (n == 0) continue;
    const auto bad = std::count_if(verdicts.begin(), verdicts.end(),
                                   [&](const Verdict& v) { return v.lab == lab->number && !v.passed; });
    fmt::print("self-check lab{}: {} ({} of {} expectations met)\n", lab->number, bad == 0 ? "PASS" : "FAIL", n - bad,
               n);
  }
  fmt::print("self-check: {}\n\n", passed ? "PASS" : "FAIL");
  report.self_check = self_check_json(verdicts);
  return passed;
}

// The results file; false (said on stderr) when it cannot be written.
bool write_results(const Report& report, const fs::path& output) {
  std::error_code error;
  if (output.has_parent_path()) fs::create_directories(output.parent_path(), error);
  std::ofstream file(output);
  file << to_json(report).dump(2) << "\n";
  file.close();
  if (!file) {
    fmt::print(stderr, "grade: cannot write the results file {}\n", output.string());
    return false;
  }
  fmt::print("results: {}\n", output.string());
  return true;
}

// `grade`: the command line, then its steps in order: select the labs, read their manifests, ask each lab binary
// for its machine, grade every run, then the repeats' spread, the self-check's verdicts and the results file.
int run(int argc, char** argv) {
  Cli cli;
  if (auto stop = parse(argc, argv, cli)) return *stop;

  const fs::path labs_dir = cli.labs_dir;
  const fs::path bin_dir = cli.bin_dir.empty() ? executable_dir(argv[0]) : fs::path(cli.bin_dir);
  const auto labs = discover_labs(labs_dir);
  if (cli.list) {
    list_labs(labs, labs_dir, bin_dir);
    return kExitGraded;
  }
  if (cli.device) return print_device_summary(labs, bin_dir);
  if (cli.labs.empty() && !cli.self_check) {
    fmt::print(stderr, "grade: name the labs to grade (lab1, 1, 01, 01_coalescing) or `all`; see grade --help\n");
    return kExitUsage;
  }
  if (labs.empty()) {
    fmt::print(stderr, "grade: no labs in {} (folders NN_name/ with a manifest.json)\n", labs_dir.string());
    return kExitNothingGradable;
  }

  const bool everything = cli.labs.empty() || std::find(cli.labs.begin(), cli.labs.end(), "all") != cli.labs.end();
  auto chosen = select_labs(cli, labs, everything);
  if (const int* code = std::get_if<int>(&chosen)) return *code;
  const auto& selected = std::get<std::vector<const LabEntry*>>(chosen);

  std::map<int, Manifest> manifests;
  std::vector<Verdict> verdicts;
  const auto usable = load_manifests(cli, selected, manifests, verdicts);
  if (usable.empty() && !cli.exercise.empty() && verdicts.empty()) {
    fmt::print(stderr, "grade: no selected lab has an exercise named '{}'\n", cli.exercise);
    return kExitUsage;
  }

  Report report;
  report.date = iso8601_utc(std::chrono::system_clock::now());
  if (auto stop = describe_machine(usable, bin_dir, report)) return *stop;
  report.check_timeout_s = cli.check_timeout_s;
  report.time_timeout_s = cli.time_timeout_s;
  report.commit = cli.commit.empty() ? git_commit(labs_dir) : cli.commit;
  report.sources = course_sources(labs_dir);

  grade_runs(cli, everything, usable, manifests, grade_options(cli, bin_dir, usable, manifests), report, verdicts);
  if (cli.repeat > 1) report_repeats(cli.repeat, report);
  const bool self_check_passed = !cli.self_check || report_self_check(selected, verdicts, report);
  if (!write_results(report, cli.output)) return kExitUsage;
  return self_check_passed ? kExitGraded : kExitSelfCheckFailed;
}

}  // namespace

int main(int argc, char** argv) {
  kill_child_on_interrupt();
  try {
    // Subcommands for a whole class (docs/batch.md); everything else grades labs.
    if (argc > 1 && std::string(argv[1]) == "batch") return grader::batch::batch_main(argc - 1, argv + 1, COURSE_LABS_DIR);
    if (argc > 1 && std::string(argv[1]) == "merge") return grader::batch::merge_main(argc - 1, argv + 1);
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Lab misbehaviour never lands here; this is the grader's own environment (disk, memory).
    fmt::print(stderr, "grade: error: {}\n", e.what());
    return kExitUsage;
  }
}
