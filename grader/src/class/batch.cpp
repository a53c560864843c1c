// grade batch: grades a class. One process coordinates; each student's build and each student's grading is a worker
// process of its own (fork), because run_process() reaps every child of its caller and so serves one child at a
// time per process. Builds run --jobs at a time while the GPUs grade, one grading worker per GPU, so no two timed
// runs ever share a GPU. A student's result is written atomically when it is complete, and a student with a result
// is skipped: a batch killed outright and started again loses nothing and grades nothing twice (docs/batch.md).

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "grader/batch.hpp"
#include "grader/discovery.hpp"
#include "grader/manifest.hpp"
#include "grader/placement.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/sanitize.hpp"

namespace grader::batch {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kExitUsage = 1;
constexpr int kExitNoGpu = 3;
constexpr int kExitNothingGradable = 5;
constexpr int kExitIncomplete = 6;
// The builds' niceness: a compile that wants a core a grading worker wants gets about a tenth of it, so the builds
// never slow the checks that keep a GPU busy, and still run on every core the workers leave idle.
constexpr int kBuildNice = 10;

fs::path own_directory() {
  std::error_code error;
  const auto self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : self.parent_path();
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(separator, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// The GPUs to grade on, one worker each: --gpus, else CUDA_VISIBLE_DEVICES (what Slurm gives a job), else every
// GPU nvidia-smi lists; "" (the environment as it is) where none of these names one.
std::vector<std::string> grading_slots(const std::string& gpus) {
  if (!gpus.empty()) return split(gpus, ',');
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr && *visible != '\0')
    return split(visible, ',');
  ProcessOptions p;
  p.argv = {"nvidia-smi", "-L"};
  p.timeout_s = 30;
  const auto listed = run_process(p);
  std::vector<std::string> slots;
  if (listed.exit_code == 0)
    for (const auto& line : split(listed.out, '\n'))
      if (line.rfind("GPU ", 0) == 0) slots.push_back(std::to_string(slots.size()));
  if (slots.empty()) slots.push_back("");
  return slots;
}

bool recorded(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return false;
  const json j = json::parse(in, nullptr, false);
  return j.is_object() && j.contains("student");
}

std::string duration_text(double s) {
  if (s < 90) return fmt::format("{:.0f}s", s);
  if (s < 5400) return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f}h{:02.0f}m", std::floor(s / 3600), std::fmod(s / 60, 60));
}

// A one-line account of a student's result for the progress output.
std::string result_line(const fs::path& file) {
  std::ifstream in(file);
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object()) return "(unreadable result)";
  std::string text;
  if (j.contains("runs"))
    for (const json& lab : j.at("runs").at(0).at("labs"))
      if (lab.value("built", false))
        text += fmt::format("{}lab{} {:.1f}/{:g}", text.empty() ? "" : ", ", lab.at("lab").get<int>(),
                            lab.at("score").get<double>(), lab.at("max_score").get<double>());
  if (j.contains("error") && j.at("error").is_string())
    text += (text.empty() ? "" : "; ") + j.at("error").get<std::string>();
  return text;
}

// Starts `work` in a worker process that dies with this one; returns its pid.
template <class Work>
pid_t start_worker(Work work) {
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid > 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) std::_Exit(1);
  int code = 1;
  try {
    code = work();
  } catch (const std::exception& e) {
    fmt::print(stderr, "grade batch: worker: {}\n", e.what());
  }
  std::fflush(nullptr);
  std::_Exit(code);
}

struct Cli {
  std::string submissions, labs = "all", results = "batch-results", gpus, shard, student, labs_dir, bin_dir, recipes,
              commit, gres = "gpu:1", partition, time_limit = "04:00:00";
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double build_timeout_s = 600;
  std::optional<double> check_timeout_s, time_timeout_s;
  bool slurm = false, submit = false, keep_work = false, sanitize = false, no_sanitize = false, share_cpus = false;
  std::string sanitizer;
  int array_size = 4;
};

// Parses the command line into `cli`; an exit code when the program should stop (help, usage error).
std::optional<int> parse(int argc, char** argv, Cli& cli) {
  CLI::App app{"Grades a class: every student's file built against the course's build and graded (docs/batch.md).",
               "grade batch"};
  app.add_option("SUBMISSIONS_DIR", cli.submissions, "one folder per student (alice/lab1.cu, ...), or one submission")
      ->required();
  app.add_option("--labs", cli.labs, "labs to grade: lab1,lab3 or all (default: all)");
  app.add_option("--results", cli.results, "results folder: students/, class.json (default: batch-results)");
  app.add_option("--jobs", cli.jobs, "builds at once (default: the number of cores)")->check(CLI::Range(1, 1024));
  app.add_option("--gpus", cli.gpus, "GPUs to grade on, one worker each, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES, "
                                     "else every GPU nvidia-smi lists)");
  app.add_option("--shard", cli.shard, "I/N: grade only every N-th student from the I-th (0-based) of the sorted list");
  app.add_option("--student", cli.student, "the name for a single submission (default: the folder's name)");
  app.add_option("--labs-dir", cli.labs_dir, "folder holding the NN_name lab folders");
  app.add_option("--bin-dir", cli.bin_dir, "the course's build folder (default: the folder of grade itself)");
  app.add_option("--recipes", cli.recipes, "folder of labN.json build recipes (default: <bin-dir>/submission)");
  app.add_option("--commit", cli.commit, "commit recorded in the results (default: git rev-parse HEAD)");
  app.add_option("--build-timeout", cli.build_timeout_s, "seconds for each compile, check or link (default 600)")
      ->check(CLI::PositiveNumber);
  app.add_option("--check-timeout", cli.check_timeout_s, "seconds for one `check` run (default: the manifest's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--time-timeout", cli.time_timeout_s, "seconds for one `time` run (default: the manifest's)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--keep-work", cli.keep_work, "keep each student's build folder (RESULTS/work/STUDENT)");
  app.add_flag("--share-cpus", cli.share_cpus,
               "with several GPUs, each worker on every CPU near its GPU, shared with the workers of GPUs near the "
               "same CPUs, not on cores of its own among them");
  auto* sanitize = app.add_flag("--sanitize", cli.sanitize,
                                "after each passing check, run it on small shapes under compute-sanitizer, as grade "
                                "--sanitize does (the default: docs/sanitizer.md)");
  app.add_flag("--no-sanitize", cli.no_sanitize, "no compute-sanitizer runs")->excludes(sanitize);
  app.add_option("--sanitizer", cli.sanitizer, "compute-sanitizer to use with --sanitize (default: from PATH, "
                                               "$CUDA_HOME/bin or /usr/local/cuda/bin)");
  auto* slurm = app.add_flag("--slurm", cli.slurm, "write a Slurm job array (one shard per task) and a merge job");
  app.add_option("--array-size", cli.array_size, "--slurm: shards (default 4)")->check(CLI::Range(1, 100000))
      ->needs(slurm);
  app.add_option("--gres", cli.gres, "--slurm: each task's --gres (default gpu:1; empty: none)")->needs(slurm);
  app.add_option("--partition", cli.partition, "--slurm: partition (default: the cluster's)")->needs(slurm);
  app.add_option("--time-limit", cli.time_limit, "--slurm: each task's time limit (default 04:00:00)")->needs(slurm);
  app.add_flag("--submit", cli.submit, "--slurm: submit the jobs with sbatch instead of printing the command")
      ->needs(slurm);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  try {
    if (!cli.shard.empty()) parse_shard(cli.shard);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "grade batch: {}\n", e.what());
    return kExitUsage;
  }
  return std::nullopt;
}

// The labs to grade (built, with a recipe) and the students of this shard, into `setup` and `students`; an exit code
// when there is nothing to grade.
std::optional<int> prepare(const Cli& cli, const std::vector<LabEntry>& all_labs, BatchSetup& setup,
                           std::vector<StudentFiles>& students) {
  const fs::path bin_dir = cli.bin_dir.empty() ? own_directory() : fs::path(cli.bin_dir);
  const fs::path recipes = cli.recipes.empty() ? bin_dir / "submission" : fs::path(cli.recipes);
  std::vector<const LabEntry*> labs;
  for (const auto& name : cli.labs == "all" ? std::vector<std::string>{} : split(cli.labs, ',')) {
    const LabEntry* lab = find_lab(all_labs, name);
    if (lab == nullptr) {
      fmt::print(stderr, "grade batch: unknown lab '{}' in {}\n", name, cli.labs_dir);
      return kExitNothingGradable;
    }
    labs.push_back(lab);
  }
  // `all`: every lab with a recipe, i.e. every lab this build configured.
  if (cli.labs == "all")
    for (const auto& lab : all_labs)
      if (fs::exists(recipes / fmt::format("lab{}.json", lab.number))) labs.push_back(&lab);
  if (labs.empty()) {
    fmt::print(stderr, "grade batch: no lab to grade: no recipe in {} (configure the build)\n", recipes.string());
    return kExitNothingGradable;
  }

  setup.results = fs::absolute(cli.results);
  setup.keep_work = cli.keep_work;
  setup.build_timeout_s = cli.build_timeout_s;
  setup.check_timeout_s = cli.check_timeout_s;
  setup.time_timeout_s = cli.time_timeout_s;
  // On unless --no-sanitize: a race or an out-of-bounds write that happens to give the right numbers costs the
  // performance points (docs/sanitizer.md). The runners keep their sandbox under the tool (docs/threat-model.md).
  if (!cli.no_sanitize) setup.sanitizer = locate_sanitizer(cli.sanitizer, "grade batch");
  try {
    for (const LabEntry* lab : labs) {
      auto recipe = load_recipe(recipes / fmt::format("lab{}.json", lab->number));
      if (!fs::is_regular_file(recipe.lab_binary)) {
        const auto message = fmt::format("{} is not built: run `make lab{}` in the build folder",
                                         recipe.lab_binary.string(), lab->number);
        if (cli.labs != "all") throw std::runtime_error(message);
        fmt::print(stderr, "grade batch: skipping lab{}: {}\n", lab->number, message);  // `all`: the built ones
        continue;
      }
      setup.labs.push_back({lab, load_manifest(lab->manifest), std::move(recipe)});
    }
    if (setup.labs.empty()) throw std::runtime_error("no lab is built");
    labs.clear();
    for (const auto& l : setup.labs) labs.push_back(l.lab);
    setup.single_lab = labs.size() == 1;
    students = find_students(cli.submissions, labs, cli.student);
    // `all`: the labs some student of the class (every shard's, before sharding) handed in. A class early in its
    // term has not handed in the later labs: grading them would give every student a row and an error per lab.
    if (cli.labs == "all") {
      std::vector<LabSetup> handed_in;
      std::vector<std::string> left_out;
      for (auto& l : setup.labs) {
        const bool any = std::any_of(students.begin(), students.end(),
                                     [&](const StudentFiles& s) { return s.files.count(l.lab->number) != 0; });
        if (any) handed_in.push_back(std::move(l));
        else left_out.push_back(fmt::format("lab{}", l.lab->number));
      }
      if (!handed_in.empty()) {  // nobody handed in anything: every lab, each a "no submission" for everyone
        setup.labs = std::move(handed_in);
        if (!left_out.empty())
          fmt::print(stderr, "grade batch: no student handed in {}: not graded (name a lab in --labs to grade it "
                             "anyway)\n", fmt::join(left_out, ", "));
      }
    }
    if (!cli.shard.empty()) {
      const auto [index, count] = parse_shard(cli.shard);
      students = shard(students, index, count);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "grade batch: {}\n", e.what());
    return kExitNothingGradable;
  }
  return std::nullopt;
}

// --slurm: the job array and merge job for this command line, printed or submitted.
int slurm(const Cli& cli, int argc, char** argv) {
  SlurmPlan plan;
  plan.grade = fs::read_symlink("/proc/self/exe");
  for (int i = 1; i < argc; ++i) {  // every option but the Slurm ones, which the shards must not see
    const std::string arg = argv[i];
    if (arg == "--slurm" || arg == "--submit") continue;
    if (arg == "--array-size" || arg == "--gres" || arg == "--partition" || arg == "--time-limit" ||
        arg == "--results" || arg == "--shard") {
      ++i;
      continue;
    }
    if (arg.rfind("--array-size=", 0) == 0 || arg.rfind("--gres=", 0) == 0 || arg.rfind("--partition=", 0) == 0 ||
        arg.rfind("--time-limit=", 0) == 0 || arg.rfind("--results=", 0) == 0 || arg.rfind("--shard=", 0) == 0)
      continue;
    plan.batch_args.push_back(arg == cli.submissions ? fs::absolute(arg).string() : arg);
  }
  plan.results = fs::absolute(cli.results);
  plan.array_size = cli.array_size;
  plan.gres = cli.gres;
  plan.partition = cli.partition;
  plan.time_limit = cli.time_limit;
  const auto scripts = write_slurm_scripts(plan, plan.results / "slurm");
  fmt::print("wrote {} ({} shards) and {}\n", scripts.batch.string(), cli.array_size, scripts.merge.string());
  if (!cli.submit) {
    fmt::print("submit with:\n  {}\n", scripts.submit_command);
    return 0;
  }
  ProcessOptions p;
  p.argv = {"/bin/sh", "-c", scripts.submit_command};
  p.timeout_s = 120;
  const auto submitted = run_process(p);
  fmt::print("{}{}", submitted.out, submitted.err);
  return submitted.exit_code == 0 ? 0 : kExitUsage;
}

// Builds `--jobs` students at a time and grades one per GPU, each in a worker process, until every student of the
// list has a result or a worker failed; then the summary and the class file. The exit code.
int run_batch(const Cli& cli, const BatchSetup& setup, const std::vector<StudentFiles>& students) {
  const auto slots = grading_slots(cli.gpus);
  const fs::path results = setup.results;
  const fs::path students_dir = results / "students";
  fs::create_directories(students_dir);
  std::deque<const StudentFiles*> to_build;
  for (const auto& s : students)
    if (!recorded(students_dir / (s.name + ".json"))) to_build.push_back(&s);
  const std::size_t skipped = students.size() - to_build.size();
  const std::size_t pending = to_build.size();
  fmt::print("grade batch: {} students ({} recorded before, {} to grade), labs:", students.size(), skipped, pending);
  for (const auto& lab : setup.labs) fmt::print(" lab{}", lab.lab->number);
  fmt::print("; {} builds at once, {} grading worker(s){}\n", cli.jobs, slots.size(),
             slots.front().empty() ? "" : fmt::format(" (GPUs {})", fmt::join(slots, ",")));
  // Each worker's checks, CPU references and sanitizer runs on cores of its own, near its GPU; the builds, niced,
  // take what the workers leave (grader/placement.hpp).
  std::vector<std::vector<int>> near;
  for (const auto& slot : slots) near.push_back(cpus_near_gpu(slot));
  const auto allowed = allowed_cpus();
  const auto cores = cli.share_cpus ? near_cpus(allowed, near) : share_cpus(allowed, near, cpu_cores(allowed));
  if (slots.size() > 1)
    for (std::size_t slot = 0; slot < slots.size(); ++slot)
      fmt::print("  GPU {} graded on CPUs {}\n", slots[slot], format_cpu_list(cores[slot]));

  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  const auto start = Clock::now();
  std::map<pid_t, const StudentFiles*> building;
  std::map<pid_t, std::pair<const StudentFiles*, std::size_t>> grading;  // pid -> student, slot
  std::vector<bool> slot_busy(slots.size(), false);
  std::deque<const StudentFiles*> ready;
  std::size_t done = 0, lost = 0;
  int exit_code = 0;
  const auto show = [&](const std::string& line) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const auto left = done == 0 ? std::string("?")
                                : duration_text(elapsed / static_cast<double>(done) *
                                                static_cast<double>(pending - done - lost));
    if (terminal)
      fmt::print("\r\033[K[{}/{}] {} ({} building, ~{} left)", skipped + done, students.size(), line,
                 building.size(), left);
    else
      fmt::print("[{}/{}] {}\n", skipped + done, students.size(), line);
    std::fflush(stdout);
  };
  while (!to_build.empty() || !building.empty() || !ready.empty() || !grading.empty()) {
    while (!to_build.empty() && building.size() < static_cast<std::size_t>(cli.jobs)) {
      const StudentFiles* s = to_build.front();
      to_build.pop_front();
      building.emplace(start_worker([&] {
                         ::setpriority(PRIO_PROCESS, 0, kBuildNice);
                         return build_student(setup, *s);
                       }),
                       s);
    }
    for (std::size_t slot = 0; slot < slots.size() && !ready.empty(); ++slot) {
      if (slot_busy[slot]) continue;
      const StudentFiles* s = ready.front();
      ready.pop_front();
      slot_busy[slot] = true;
      grading.emplace(start_worker([&] {
                        if (slots.size() > 1) run_on(cores[slot]);
                        return grade_student(setup, *s, slots[slot]);
                      }),
                      std::make_pair(s, slot));
      if (terminal) show(fmt::format("{}: grading{}", s->name, slots[slot].empty() ? "" : " on GPU " + slots[slot]));
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) break;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (auto b = building.find(pid); b != building.end()) {
      if (code == 0) {
        ready.push_back(b->second);
      } else {
        ++lost;
        fmt::print("{}grade batch: the build of {} failed (exit {}); it is not recorded: run the batch again\n",
                   terminal ? "\n" : "", b->second->name, code);
      }
      building.erase(b);
    } else if (auto g = grading.find(pid); g != grading.end()) {
      const auto [s, slot] = g->second;
      slot_busy[slot] = false;
      grading.erase(g);
      if (code == 0) {
        ++done;
        show(fmt::format("{}: {}", s->name, result_line(students_dir / (s->name + ".json"))));
      } else if (code == kExitNoGpu) {
        fmt::print(stderr, "{}grade batch: no GPU visible to the lab binary{}; stopping\n", terminal ? "\n" : "",
                   slots[slot].empty() ? "" : " (CUDA_VISIBLE_DEVICES=" + slots[slot] + ")");
        for (const auto& [child, _] : building) ::kill(child, SIGKILL);
        for (const auto& [child, _] : grading) ::kill(child, SIGKILL);
        while (::waitpid(-1, nullptr, 0) > 0) {
        }
        return kExitNoGpu;
      } else {
        ++lost;
        fmt::print("{}grade batch: grading {} failed (exit {}); it is not recorded: run the batch again\n",
                   terminal ? "\n" : "", s->name, code);
      }
    }
  }
  if (terminal) fmt::print("\n");
  const std::chrono::duration<double> elapsed = Clock::now() - start;

  // The summary and class file cover this batch's students (its shard), recorded now or before.
  std::vector<fs::path> files;
  for (const auto& s : students)
    if (recorded(students_dir / (s.name + ".json"))) files.push_back(students_dir / (s.name + ".json"));
  const auto merged = merge_class(files, iso8601_utc(std::chrono::system_clock::now()), setup.commit);
  fmt::print("\n{}", format_summary(merged, static_cast<int>(done), elapsed));
  if (cli.shard.empty()) {
    write_atomically(results / "class.json", merged);
    fmt::print("class results: {}\n", (results / "class.json").string());
  } else {
    fmt::print("shard {}: results in {} (merge the shards with `grade merge {} --output class.json`)\n", cli.shard,
               students_dir.string(), results.string());
  }
  if (files.size() < students.size()) {
    fmt::print("{} students have no result yet: run the same command again to grade them\n",
               students.size() - files.size());
    exit_code = kExitIncomplete;
  }
  return exit_code;
}

}  // namespace

int batch_main(int argc, char** argv, const std::string& default_labs_dir) {
  Cli cli;
  cli.labs_dir = default_labs_dir;
  if (auto stop = parse(argc, argv, cli)) return *stop;
  const auto all_labs = discover_labs(cli.labs_dir);
  BatchSetup setup;
  std::vector<StudentFiles> students;
  if (auto stop = prepare(cli, all_labs, setup, students)) return *stop;
  if (cli.slurm) return slurm(cli, argc, argv);
  setup.commit = cli.commit.empty() ? git_commit(cli.labs_dir) : cli.commit;
  return run_batch(cli, setup, students);
}

}  // namespace grader::batch
