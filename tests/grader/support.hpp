#pragma once
// Shared helpers of the grader tests: temporary folders and running the real `grade` against the fake lab.

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/process.hpp"

namespace grader_test {

namespace fs = std::filesystem;

/// A fresh folder under the system temp dir, removed with everything in it at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "grader-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The `command` lines (check or time) of a fake lab call log (FAKE_LAB_CALL_LOG), each as "COMMAND EXERCISES IMPL", in
// the order they were logged.
inline std::vector<std::string> lab_calls(const fs::path& log, const std::string& command) {
  std::vector<std::string> calls;
  std::istringstream text(read_text(log));
  for (std::string line; std::getline(text, line);) {
    std::istringstream fields(line);
    std::string program, logged, exercises, impl;
    fields >> program >> logged >> exercises >> impl;
    if (logged == command) calls.push_back(command + " " + exercises + " " + impl);
  }
  return calls;
}

inline void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// Every line of a fake lab call log, from the lab binary's name on ("lab2 check copy,gemm student"), in the order they
// were logged: which lab each run was of, where several labs are graded.
inline std::vector<std::string> lab_call_lines(const fs::path& log) {
  std::vector<std::string> calls;
  std::istringstream lines(read_text(log));
  for (std::string line; std::getline(lines, line);) calls.push_back(line.substr(line.rfind('/') + 1));
  return calls;
}

// Sets `key` to `value` in the manifest `file` (a copy of a fake lab's).
inline void set_manifest_field(const fs::path& file, const std::string& key, const nlohmann::json& value) {
  auto manifest = nlohmann::json::parse(read_text(file));
  manifest[key] = value;
  write_text(file, manifest.dump());
}

// A copy of the fake lab under `dir`/labs with `key` set to `value` in its manifest: the --labs-dir to grade it with.
inline fs::path fake_lab_with(const fs::path& dir, const std::string& key, const nlohmann::json& value) {
  const auto labs = dir / "labs";
  fs::create_directories(labs);
  fs::copy(fs::path(FAKE_LABS_DIR) / "01_fake", labs / "01_fake", fs::copy_options::recursive);
  set_manifest_field(labs / "01_fake" / "manifest.json", key, value);
  return labs;
}

/// True if `pid` runs now (exists and is not a zombie): no waiting, for what must already be dead.
inline bool alive_now(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return false;
  const auto state = line.substr(line.rfind(')') + 2, 1);
  return state != "Z" && state != "X";
}

/// True once `pid` is gone or a zombie (an orphan's reaping is up to init, which a test cannot wait for).
inline bool dead(int pid) {
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!stat || !std::getline(stat, line)) return true;
    const auto state = line.substr(line.rfind(')') + 2, 1);
    if (state == "Z" || state == "X") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

/// The processes whose parent is this one, zombies included.
inline std::vector<int> children_of_this_process() {
  std::vector<int> children;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string state;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid()) children.push_back(std::stoi(name));
  }
  return children;
}

/// The pid a child wrote to `file`, waiting up to a second for it; 0 if none.
inline int read_pid(const fs::path& file) {
  int pid = 0;
  for (int i = 0; i < 100 && pid == 0; ++i) {
    std::ifstream(file) >> pid;
    if (pid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pid;
}

/// Raises this process's soft core-file limit for its lifetime (as far as the hard limit allows), so that a child
/// reporting a core limit of 0 shows the grader's doing, not the machine's default.
struct CoreFilesAllowed {
  rlimit saved{};
  CoreFilesAllowed() {
    ::getrlimit(RLIMIT_CORE, &saved);
    rlimit raised = saved;
    raised.rlim_cur = saved.rlim_max == RLIM_INFINITY ? rlim_t{1} << 30 : saved.rlim_max;
    ::setrlimit(RLIMIT_CORE, &raised);
  }
  ~CoreFilesAllowed() { ::setrlimit(RLIMIT_CORE, &saved); }
  CoreFilesAllowed(const CoreFilesAllowed&) = delete;
  CoreFilesAllowed& operator=(const CoreFilesAllowed&) = delete;
};

/// What one run of `grade` did, and the results file it wrote (null if none).
struct GradeRun {
  grader::ProcessResult process;
  nlohmann::json results;
};

using Env = std::vector<std::pair<std::string, std::string>>;

/// Runs `grade ARGS` against the fake lab: its labs and bin dirs, a work dir and a results file inside `dir`, each
/// unless ARGS names that option itself. With `bare`, ARGS is the whole command line.
inline GradeRun run_grade(const TempDir& dir, std::vector<std::string> args, Env env = {}, bool bare = false) {
  grader::ProcessOptions options;
  options.argv = {GRADE_EXE};
  if (!bare) {
    const std::pair<std::string, std::string> defaults[] = {{"--labs-dir", FAKE_LABS_DIR},
                                                            {"--bin-dir", FAKE_BIN_DIR},
                                                            {"--work-dir", (dir.path / "work").string()},
                                                            {"--output", (dir.path / "results.json").string()}};
    for (const auto& [option, value] : defaults) {
      if (std::find(args.begin(), args.end(), option) == args.end()) options.argv.insert(options.argv.end(), {option, value});
    }
  }
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  // A self-check sanitizes by default, with the compute-sanitizer of the machine the tests run on (around the fake lab,
  // where it has nothing to watch): not unless the test asks about the sanitizer.
  const auto has = [&](const char* option) { return std::find(args.begin(), args.end(), option) != args.end(); };
  if (!bare && has("--self-check") && !has("--sanitize") && !has("--sanitizer") && !has("--no-sanitize"))
    options.argv.push_back("--no-sanitize");
  // Unset unless the test sets it: the fake must not see the mode of a test that ran before.
  for (const char* name : {"FAKE_LAB_MODE", "FAKE_LAB_EXERCISE", "FAKE_LAB_STUDENT_MS", "FAKE_LAB_COUNTER_FILE",
                           "FAKE_LAB_PID_FILE", "FAKE_LAB_MARKER", "FAKE_LAB_FORGE_DIR", "FAKE_LAB_SPY_FILE",
                           "FAKE_LAB_NOISE_PCT"})
    options.env.emplace_back(name, "");
  for (auto& [name, value] : env) {
    const auto known = std::find_if(options.env.begin(), options.env.end(), [&](auto& kv) { return kv.first == name; });
    if (known != options.env.end()) known->second = value;
    else options.env.emplace_back(name, value);
  }
  options.timeout_s = 90;
  GradeRun run{grader::run_process(options), nullptr};
  const auto file = dir.path / "results.json";
  if (fs::exists(file)) run.results = nlohmann::json::parse(read_text(file), nullptr, false);
  return run;
}

/// The exercise named `name` of the first lab of run `run` in a results file.
inline const nlohmann::json& exercise(const nlohmann::json& results, const std::string& name, std::size_t run = 0) {
  for (const auto& x : results.at("runs").at(run).at("labs").at(0).at("exercises"))
    if (x.at("name") == name) return x;
  throw std::runtime_error("no exercise " + name + " in the results");
}

// Two fake labs: the fake binary under two numbers, its manifest in two folders. Returns the grade arguments.
inline std::vector<std::string> two_fake_labs(const TempDir& dir) {
  const auto labs = dir.path / "labs", bin = dir.path / "bin";
  fs::create_directories(labs);
  for (const char* id : {"01_fake", "02_fake"})
    fs::copy(fs::path(FAKE_LABS_DIR) / "01_fake", labs / id, fs::copy_options::recursive);
  fs::create_directories(bin);
  for (const char* name : {"lab1", "lab2"}) fs::copy_file(fs::path(FAKE_BIN_DIR) / "lab1", bin / name);
  return {"all", "--labs-dir", labs.string(), "--bin-dir", bin.string()};
}

}  // namespace grader_test
