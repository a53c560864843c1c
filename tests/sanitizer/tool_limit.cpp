// tool_limit LAB_BINARY EXERCISE: the GPU test of a tool's own limit in `labN check --tools` (docs/protocol.md,
// `--tool-limit`). It runs what `grade --sanitize` runs over the course's reference, under memcheck then racecheck,
// and stops (SIGSTOP) the runner under memcheck as soon as it appears: a runner that never answers, as one whose
// kernel never ends. It passes when the lab binary ended memcheck at its limit with the runner under it (memcheck's
// verdict `hung`, no process of the run left once the lab binary has ended) and racecheck still ran (`clean`).
// Exit 0 passed, 1 failed, 111 skipped: no GPU or no compute-sanitizer (with COURSE_REQUIRE_GPU=1 a missing tool
// fails instead, as a missing GPU does in the lab).
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <harness/exit_codes.hpp>
#include <harness/process_tree.hpp>

#include "grader/process.hpp"
#include "grader/sanitize.hpp"
#include "sanitizer_and_gpu.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The first word of a process's command line: the program it runs (a front end's names compute-sanitizer).
std::string program_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string first;
  std::getline(in, first, '\0');
  return first;
}

// A runner of `runner_path` that the lab binary `referee` did not start itself: the one under a front end.
pid_t runner_under_tool(pid_t referee, const std::string& runner_path) {
  const auto own = harness::process_tree::children_of(referee);
  for (const pid_t pid : harness::process_tree::descendants_of(referee))
    if (std::find(own.begin(), own.end(), pid) == own.end() && program_of(pid) == runner_path) return pid;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace grader;
  if (argc != 3) {
    std::cerr << "usage: tool_limit LAB_BINARY EXERCISE\n";
    return 2;
  }
  const fs::path lab = fs::absolute(argv[1]);
  const std::string exercise = argv[2];
  const auto found = sanitizer_and_gpu(lab.string());
  if (const int* code = std::get_if<int>(&found)) return *code;
  const auto sanitizer = std::get<std::filesystem::path>(found);

  // What the lab binary leaves running becomes this process's child once its parent is gone.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  char dir_template[] = "/tmp/tool-limit-XXXXXX";
  const fs::path dir = ::mkdtemp(dir_template);
  const fs::path results = dir / "results.jsonl";
  constexpr double kLimitS = 20;
  auto command = sanitizer_command(sanitizer, {SanitizerTool::kMemcheck, SanitizerTool::kRacecheck}, lab.string(),
                                   "reference", {exercise}, 1, results.string(), kLimitS);
  std::vector<char*> args;
  for (auto& a : command) args.push_back(a.data());
  args.push_back(nullptr);
  const auto start = Clock::now();
  const pid_t referee = ::fork();
  if (referee == 0) {
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  const std::string runner = (lab.parent_path() / "runners" / (lab.filename().string() + "-reference")).string();
  pid_t stopped = 0;
  std::optional<int> status;
  while (!(status = harness::process_tree::wait_until(referee, Clock::now() + std::chrono::milliseconds(10)))) {
    if (!stopped && (stopped = runner_under_tool(referee, runner))) {
      ::kill(stopped, SIGSTOP);
      std::cout << "stopped the runner under memcheck (pid " << stopped << ")\n";
    }
    if (Clock::now() - start > std::chrono::seconds(180)) {
      harness::process_tree::kill_tree(referee);
      ::waitpid(referee, nullptr, 0);
      std::cerr << "the lab binary had not ended after 180 s: its tool's limit did not end the tool\n";
      return 1;
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  // Orphans of the run that had ended (zombies, reparented here) are reaped first: only what still runs is left.
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  const auto left = harness::process_tree::children_of(::getpid());
  for (const pid_t pid : left) {
    std::cerr << "left running: pid " << pid << " " << program_of(pid) << "\n";
    ::kill(pid, SIGKILL);
  }
  while (!left.empty() && ::waitpid(-1, nullptr, 0) > 0) {
  }
  std::ifstream in(results);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  fs::remove_all(dir);
  std::cout << "the lab binary ended after " << wall << " s, "
            << (WIFEXITED(*status) ? "exit " + std::to_string(WEXITSTATUS(*status))
                                   : "signal " + std::to_string(WTERMSIG(*status)))
            << "\n" << text;
  const auto verdicts = parse_tool_verdicts(text);
  const auto verdict_of = [&](SanitizerTool tool) {
    const auto it = verdicts.find(tool);
    return it == verdicts.end() ? std::string("none") : std::string(to_string(it->second.kind));
  };
  bool ok = true;
  if (!stopped) {
    std::cerr << "no runner under memcheck was seen to stop: nothing tested\n";
    ok = false;
  }
  if (!left.empty()) {
    std::cerr << left.size() << " process(es) of the run were left running after the lab binary ended (the runner "
              << "under the tool, or the front end)\n";
    ok = false;
  }
  if (verdict_of(SanitizerTool::kMemcheck) != "hung") {
    std::cerr << "memcheck's verdict: " << verdict_of(SanitizerTool::kMemcheck) << ", not hung\n";
    ok = false;
  }
  if (verdict_of(SanitizerTool::kRacecheck) != "clean") {
    std::cerr << "racecheck's verdict: " << verdict_of(SanitizerTool::kRacecheck)
              << ", not clean: the tool after the one that hung did not run as it should\n";
    ok = false;
  }
  if (ok) std::cout << "memcheck ended at its limit with its runner, racecheck clean after it, as it should be\n";
  return ok ? 0 : 1;
}
