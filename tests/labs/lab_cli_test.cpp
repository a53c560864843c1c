// The lab binaries' command line and exit codes (docs/protocol.md), and the real grader in front of them, on
// whatever machine runs the tests: without a GPU every device command must say so with exit code 111 (and `grade`
// with one line and exit 3); with one, `info` must describe it.
#include <grader/discovery.hpp>
#include <grader/manifest.hpp>
#include <grader/process.hpp>
#include <harness/exit_codes.hpp>
#include <harness/host_link.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace code = harness::exit_code;

std::vector<std::string> lab_names() {
  std::vector<std::string> names;
  std::stringstream list(COURSE_LAB_TARGETS);
  for (std::string name; std::getline(list, name, ',');) names.push_back(name);
  return names;
}

grader::ProcessResult run(std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env = {}) {
  argv[0] = std::string(COURSE_BIN_DIR) + "/" + argv[0];
  // A missing GPU is what some of these tests are about: no failure for it unless the test asks.
  if (std::none_of(env.begin(), env.end(), [](const auto& kv) { return kv.first == "COURSE_REQUIRE_GPU"; }))
    env.emplace_back("COURSE_REQUIRE_GPU", "0");
  return grader::run_process({.argv = std::move(argv), .timeout_s = 120, .env = std::move(env)});
}

bool gpu_present() { return run({lab_names().at(0), "info"}).exit_code == code::kOk; }

// /proc/meminfo's MemAvailable in GiB (0 where it cannot be read).
double available_memory_gib() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    double kib = 0;
    if (key == "MemAvailable:" && in >> kib) return kib / (1024.0 * 1024.0);
    std::getline(in, key);
  }
  return 0;
}

// The names of the first two exercises `lab list` gives.
std::pair<std::string, std::string> first_two_exercises(const std::string& lab) {
  const auto exercises = nlohmann::json::parse(run({lab, "list"}).out)["exercises"];
  REQUIRE(exercises.size() >= 2);
  return {exercises[0]["name"].get<std::string>(), exercises[1]["name"].get<std::string>()};
}

}  // namespace

TEST_CASE("every lab binary lists its exercises and the three implementations of each", "[labs][cli]") {
  const auto lab = GENERATE(from_range(lab_names()));
  CAPTURE(lab);
  const auto r = run({lab, "list"});
  REQUIRE(r.exit_code == code::kOk);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(j.at("lab").get<std::string>().empty());
  REQUIRE_FALSE(j.at("exercises").empty());
  for (const char* impl : {"student", "reference", "baseline"}) {
    CAPTURE(impl);
    REQUIRE(j.at("implementations").contains(impl));
    REQUIRE(j["implementations"][impl].size() == j["exercises"].size());
  }
  // The course's runner of the reference and the baseline is not an implementation of its own.
  CHECK_FALSE(j["implementations"].contains("reference+baseline"));
}

TEST_CASE("lab binaries reject bad requests with the documented exit codes", "[labs][cli]") {
  const auto lab = GENERATE(from_range(lab_names()));
  CAPTURE(lab);
  CHECK(run({lab, "--help"}).exit_code == code::kOk);
  CHECK(run({lab}).exit_code == code::kUsage);
  CHECK(run({lab, "frobnicate"}).exit_code == code::kUsage);
  CHECK(run({lab, "time"}).exit_code == code::kUsage);  // --exercise is required
  CHECK(run({lab, "check", "--impl", "nobody"}).exit_code == code::kBadSpec);
  CHECK(run({lab, "check", "--exercise", "nothing"}).exit_code == code::kBadSpec);
  CHECK(run({lab, "time", "--exercise", "nothing"}).exit_code == code::kBadSpec);
  const auto first = nlohmann::json::parse(run({lab, "list"}).out)["exercises"][0]["name"].get<std::string>();
  CHECK(run({lab, "time", "--exercise", first, "--shape", "0x3"}).exit_code == code::kUsage);
  // A list is checked whole, before any GPU work: one unknown name refuses it.
  for (const char* command : {"check", "time"}) {
    CAPTURE(command);
    const auto listed = run({lab, command, "--exercise", first + ",nothing"});
    CHECK(listed.exit_code == code::kBadSpec);
    CHECK(listed.err.find("unknown exercise 'nothing'") != std::string::npos);
  }
  CHECK(run({lab, "time", "--exercise", first + "," + first, "--shape", "64"}).exit_code == code::kUsage);
  // So are a sanitized check's tools: one compute-sanitizer's front end is not run with, or tools without its path.
  const auto tools = run({lab, "check", "--exercise", first, "--sanitizer", "/cuda/bin/compute-sanitizer", "--tools",
                          "memcheck,leakcheck"});
  CHECK(tools.exit_code == code::kUsage);
  CHECK(tools.err.find("unknown tool 'leakcheck'") != std::string::npos);
  CHECK(run({lab, "check", "--exercise", first, "--tools", "memcheck"}).exit_code == code::kUsage);
  // A tool's limit without tools to limit.
  const auto limit = run({lab, "check", "--exercise", first, "--tool-limit", "60"});
  CHECK(limit.exit_code == code::kUsage);
  CHECK(limit.err.find("--tool-limit needs --tools") != std::string::npos);
  // The timed turn is the one between a run's checks and its timed runs: not without the checks.
  const auto turn = run({lab, "time", "--exercise", first, "--timed-turn-fd", "4"});
  CHECK(turn.exit_code == code::kUsage);
  CHECK(turn.err.find("--timed-turn-fd needs --check-seeds") != std::string::npos);
  CHECK(run({lab, "time", "--exercise", first, "--check-seeds", "1", "--shape", "64"}).exit_code == code::kUsage);
}

TEST_CASE("with a GPU, one time run times the exercises it is given as a list, a result line each",
          "[labs][cli][gpu][time]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto lab = lab_names().at(0);
  const auto [a, b] = first_two_exercises(lab);
  const auto results = std::filesystem::temp_directory_path() / ("lab_cli_time_" + std::to_string(::getpid()));
  const auto r = run({lab, "time", "--impl", "reference", "--exercise", b + "," + a, "--max-seconds", "0",
                      "--results", results.string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == code::kOk);
  std::ifstream in(results);
  std::vector<std::string> timed;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    CHECK(j.at("correct") == true);
    CHECK(j.at("runners").at("student").at("median_ms").get<double>() > 0);
    // The student's runner is its own (the reference's program, handed in as the student); the course's two timed
    // implementations share one process where the lab has their runner of both (cmake/AddLab.cmake).
    CHECK(j["runners"]["student"].at("program") == lab + "-reference");
    CHECK(j["runners"].at("reference").at("program") == lab + "-reference+baseline");
    CHECK(j["runners"].at("baseline").at("program") == lab + "-reference+baseline");
    // Each ran its own launchers there: the baseline, the zero of the scale, is the slower by the exercise's window
    // (1.8x and more for the first lab's first two exercises).
    CHECK(j["runners"]["baseline"].at("median_ms").get<double>() >
          1.1 * j["runners"]["reference"].at("median_ms").get<double>());
    timed.push_back(j.at("exercise").get<std::string>());
  }
  std::filesystem::remove(results);
  CHECK(timed == std::vector<std::string>{b, a});  // in the order given, by the same runners
}

TEST_CASE("with a GPU, every exercise's baseline times slower than its reference in their runner of both",
          "[labs][cli][gpu][time]") {
  const auto lab = GENERATE(from_range(lab_names()));
  CAPTURE(lab);
  // The exercises graded by their time: one with no performance points (lab 04's given first stage) has no window,
  // its baseline the reference's own kernel.
  const auto labs = grader::discover_labs(COURSE_LABS_DIR);
  const auto* entry = grader::find_lab(labs, lab);
  REQUIRE(entry != nullptr);
  const auto manifest = grader::load_manifest(entry->manifest);
  std::string all;
  for (const auto& spec : manifest.exercises)
    if (spec.performance_points > 0) all += (all.empty() ? "" : ",") + spec.name;
  REQUIRE_FALSE(all.empty());  // every lab grades some exercise by its time
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto results = std::filesystem::temp_directory_path() / ("lab_cli_both_" + std::to_string(::getpid()));
  const auto r = run({lab, "time", "--impl", "reference", "--exercise", all, "--max-seconds", "0", "--results",
                      results.string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == code::kOk);
  std::ifstream in(results);
  int timed = 0;
  for (std::string line; std::getline(in, line); ++timed) {
    const auto j = nlohmann::json::parse(line);
    CAPTURE(j.at("exercise"));
    CHECK(j.at("correct") == true);
    // The baseline is the zero of every exercise's scale: slower than the reference by its window, 1.3x and more.
    // Each runs on a problem of its own in the one process (harness/runner/src/main.cpp), so what one keeps of an
    // implementation (lab 07's pinned host arrays, say) the other never times with.
    CHECK(j["runners"].at("baseline").at("median_ms").get<double>() >
          1.15 * j["runners"].at("reference").at("median_ms").get<double>());
  }
  std::filesystem::remove(results);
  CHECK(timed == static_cast<int>(std::count(all.begin(), all.end(), ',')) + 1);
}

TEST_CASE("with a GPU, one time run times some exercises with the student alone and the others against the "
          "reference, each as its own run would",
          "[labs][cli][gpu][time]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto lab = lab_names().at(0);
  const auto [a, b] = first_two_exercises(lab);
  const auto results = std::filesystem::temp_directory_path() / ("lab_cli_alone_" + std::to_string(::getpid()));
  // Listed first, the exercise timed alone is followed by one that needs the reference's and baseline's runners.
  const auto r = run({lab, "time", "--impl", "reference", "--exercise", b + "," + a, "--student-only-for", b,
                      "--max-seconds", "0.5", "--results", results.string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == code::kOk);
  std::ifstream in(results);
  std::map<std::string, nlohmann::json> line_of;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    line_of[j.at("exercise").get<std::string>()] = j;
  }
  std::filesystem::remove(results);
  REQUIRE(line_of.size() == 2);
  const auto& alone = line_of.at(b);
  CHECK(alone.at("correct") == true);
  CHECK(alone.at("student_only") == true);
  CHECK(alone.at("runners").at("student").at("samples") == 1);
  CHECK_FALSE(alone.at("runners").contains("reference"));
  CHECK_FALSE(alone.at("phases_s").contains("last_check"));
  const auto& full = line_of.at(a);
  CHECK(full.at("correct") == true);
  CHECK(full.at("student_only") == false);
  CHECK(full.at("runners").at("reference").at("median_ms").get<double>() > 0);
  CHECK(full.at("runners").at("baseline").at("median_ms").get<double>() > 0);

  const auto unknown = run({lab, "time", "--impl", "reference", "--exercise", a, "--student-only-for", b,
                            "--results", results.string()});
  CHECK(unknown.exit_code == code::kUsage);  // --student-only-for names an exercise the run does not time
}

TEST_CASE("with a GPU, one check covers the exercises it is given as a list, a plan each", "[labs][cli][gpu]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto lab = lab_names().at(0);
  const auto [a, b] = first_two_exercises(lab);
  const auto results = std::filesystem::temp_directory_path() / ("lab_cli_list_" + std::to_string(::getpid()));
  const auto r = run({lab, "check", "--impl", "reference", "--exercise", b + "," + a, "--seeds", "1", "--small",
                      "--results", results.string()});
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == code::kOk);
  std::ifstream in(results);
  std::vector<std::string> planned;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("plan")) planned.push_back(j["plan"]["exercise"].get<std::string>());
  }
  std::filesystem::remove(results);
  CHECK(planned == std::vector<std::string>{b, a});  // in the order given
}

TEST_CASE("without a GPU, device commands exit 111 with one line, or 110 when a GPU is required",
          "[labs][cli][nogpu]") {
  if (gpu_present()) SKIP("a GPU is present: the GPU tests cover this binary");
  const auto lab = GENERATE(from_range(lab_names()));
  CAPTURE(lab);
  for (const auto& args : std::vector<std::vector<std::string>>{{lab, "info"}, {lab, "check"}}) {
    const auto r = run(args);
    CHECK(r.exit_code == code::kNoDevice);
    CHECK(r.err.find("no CUDA GPU is visible") != std::string::npos);
    CHECK(r.err.find('\n') == r.err.size() - 1);  // exactly one line
  }
  CHECK(run({lab, "info"}, {{"COURSE_REQUIRE_GPU", "1"}}).exit_code == code::kCudaError);
}

TEST_CASE("with a GPU, info describes it as JSON", "[labs][cli][gpu]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto j = nlohmann::json::parse(run({lab_names().at(0), "info"}).out);
  REQUIRE_FALSE(j.at("gpu").get<std::string>().empty());
  REQUIRE(j.at("sms").get<int>() > 0);
  REQUIRE(j.at("l2_bytes").get<long>() > 0);
}

TEST_CASE("grade on a machine without a GPU prints one clear line and exits 3", "[labs][grade][nogpu]") {
  if (gpu_present()) SKIP("a GPU is present");
  const auto r = run({"grade", lab_names().at(0)});
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("grading needs an NVIDIA GPU") != std::string::npos);
  CHECK(r.err.find("no CUDA GPU is visible") != std::string::npos);
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  CHECK(r.err.find("Traceback") == std::string::npos);
  CHECK(r.err.find("terminate called") == std::string::npos);
}

TEST_CASE("with a GPU, failed cases carry the hint that names their pattern", "[labs][cli][gpu][hint]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto labs = lab_names();
  if (std::find(labs.begin(), labs.end(), "lab1") == labs.end()) SKIP("lab 1 is not built");
  // The reference's runner spoiling its own output (harness/runner/src/mutations.cpp): known patterns on the GPU.
  const std::pair<std::string, std::string> cases[] = {{"zeros", "every element is 0"},
                                                       {"shifted", "shifted by one element"},
                                                       {"tail_missing", "past the last full block"}};
  for (const auto& [mutant, hint] : cases) {
    const auto results = std::filesystem::temp_directory_path() / ("lab1-hint-" + mutant + ".jsonl");
    const auto r = run({"lab1", "check", "--impl", "mutant:" + mutant, "--exercise", "scale", "--seeds", "1",
                        "--results", results.string()});
    CAPTURE(mutant, r.exit_code, r.err);
    CHECK(r.exit_code == code::kTestFailure);
    std::ifstream in(results);
    bool found = false;
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("hint") && j.at("hint").get<std::string>().find(hint) != std::string::npos)
        found = true;
    }
    CHECK(found);
    std::filesystem::remove(results);
  }
}

TEST_CASE("with a GPU, a check that fails every case of an exercise fits what the grader reads, first mismatch whole",
          "[labs][cli][gpu][report]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto lab = GENERATE(from_range(lab_names()));
  const auto exercises = nlohmann::json::parse(run({lab, "list"}).out).at("exercises");
  for (const auto& e : exercises) {
    const auto exercise = e.at("name").get<std::string>();
    CAPTURE(lab, exercise);
    // The reference's output shifted by one element: wrong at every position of every case, as an exclusive scan
    // handed in for an inclusive one is; one exercise and three seeds, as `grade` asks for.
    const auto results = std::filesystem::temp_directory_path() / (lab + "-" + exercise + "-report.jsonl");
    const auto r = run({lab, "check", "--impl", "mutant:shifted", "--exercise", exercise, "--seeds", "11,22,33",
                        "--results", results.string()});
    CAPTURE(r.exit_code, r.err.substr(0, 2000));
    CHECK(r.exit_code == code::kTestFailure);
    CHECK(std::filesystem::file_size(results) <= grader::ProcessOptions{}.capture_limit);
    std::ifstream in(results);
    std::string first_message;
    int failed = 0;
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || !j.contains("ok") || j.at("ok").get<bool>()) continue;
      if (failed++ == 0) first_message = j.value("message", "");
    }
    CHECK(failed > 0);
    CHECK(first_message.find("differ") != std::string::npos);
    std::filesystem::remove(results);
  }
}

TEST_CASE("run as root, a runner program starts as an unprivileged user, from a folder only root can enter too",
          "[labs][cli]") {
  // Student code runs in the runner programs, static initializers included, and `labN list` starts every one of them
  // (`--list`) before any GPU is needed. As root that code could reach the grader: every runner start drops to
  // `nobody` (harness/referee/src/runner_client.cpp, exec_as). A stand-in runner that reports its uid shows it.
  if (::geteuid() != 0) SKIP("not root: runners keep the user's own identity");
  const auto lab = lab_names().at(0);
  const std::filesystem::path bin = COURSE_BIN_DIR;
  const auto prefix = lab + "-";
  for (const std::string folder : {"/tmp", "/root"}) {
    CAPTURE(folder);
    if (!std::filesystem::is_directory(folder)) continue;
    std::string tmpl = folder + "/course-runner-probe.XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    const std::filesystem::path dir = tmpl;
    std::filesystem::create_directories(dir / "runners");
    std::filesystem::copy_file(bin / lab, dir / lab);
    std::filesystem::copy_file(bin / "runners" / (prefix + "reference"), dir / "runners" / (prefix + "reference"));
    // A script cannot start through a descriptor, so the stand-in goes only where nobody can reach it by path.
    const bool probe = folder == "/tmp";
    if (probe) {
      using std::filesystem::perms;
      const auto open_to_all = perms::owner_all | perms::group_read | perms::group_exec | perms::others_read |
                               perms::others_exec;
      std::filesystem::permissions(dir, open_to_all);  // mkdtemp makes it 0700
      std::filesystem::permissions(dir / "runners", open_to_all);
      const auto script = dir / "runners" / (prefix + "uidprobe");
      std::ofstream(script) << "#!/bin/sh\necho \"[\\\"uid$(id -u)\\\"]\"\n";
      std::filesystem::permissions(script, open_to_all);
    }
    const auto r = grader::run_process({.argv = {(dir / lab).string(), "list"}, .timeout_s = 120});
    std::filesystem::remove_all(dir);
    REQUIRE(r.exit_code == code::kOk);
    const auto j = nlohmann::json::parse(r.out);
    const auto& impls = j.at("implementations");
    // The real runner lists its exercises wherever it is (from /root through the descriptor the referee opened).
    CHECK(impls.at("reference").size() == j.at("exercises").size());
    if (probe) {
      REQUIRE(impls.contains("uidprobe"));
      CHECK(impls.at("uidprobe").at(0).get<std::string>() != "uid0");
    }
  }
}

TEST_CASE("with a GPU, an exercise timed alone gets one sample and no last check", "[labs][cli][gpu][time]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto labs = lab_names();
  if (std::find(labs.begin(), labs.end(), "lab1") == labs.end()) SKIP("lab 1 is not built");
  const auto results = std::filesystem::temp_directory_path() / "lab1-student-only.json";
  const auto r = run({"lab1", "time", "--impl", "reference", "--exercise", "scale", "--student-only", "--max-seconds",
                      "0", "--results", results.string()});
  CAPTURE(r.exit_code, r.err);
  REQUIRE(r.exit_code == code::kOk);
  std::ifstream in(results);
  const auto j = nlohmann::json::parse(in);
  CHECK(j.at("student_only").get<bool>());
  CHECK(j.at("runners").at("student").at("samples").get<int>() == 1);
  CHECK_FALSE(j.at("runners").contains("reference"));
  CHECK_FALSE(j.at("phases_s").contains("last_check"));
  std::filesystem::remove(results);
}

TEST_CASE("with a GPU, a timed run reports the salt seed of its rounds: drawn fresh, or the one it is given",
          "[labs][cli][gpu][time]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto labs = lab_names();
  if (std::find(labs.begin(), labs.end(), "lab1") == labs.end()) SKIP("lab 1 is not built");
  const auto results = std::filesystem::temp_directory_path() / "lab1-salt-seed.json";
  const auto salt_seed = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {"lab1", "time", "--impl", "reference", "--exercise", "dot", "--max-seconds", "0",
                                     "--results", results.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto r = run(argv);
    CAPTURE(r.exit_code, r.err);
    REQUIRE(r.exit_code == code::kOk);
    std::ifstream in(results);
    const auto j = nlohmann::json::parse(in);
    CHECK(j.at("fresh_inputs_every_round").get<bool>());
    return j.at("salt_seed").get<std::uint64_t>();
  };
  CHECK(salt_seed({}) != salt_seed({}));
  CHECK(salt_seed({"--salt-seed", "18446744073709551615"}) == std::uint64_t{18446744073709551615u});
  std::filesystem::remove(results);
}

TEST_CASE("with a GPU, a timed run given the host link's turns holds one for its timed runs alone: asked after its "
          "first checks, given back before its last check",
          "[labs][cli][gpu][time]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto labs = lab_names();
  if (std::find(labs.begin(), labs.end(), "lab7") == labs.end()) SKIP("lab 7 is not built");
  const auto results = std::filesystem::temp_directory_path() / "lab7-host-link.json";
  const auto lock = std::filesystem::temp_directory_path() / "lab7-host-link.lock";
  const int other = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(other >= 0);
  REQUIRE(::flock(other, LOCK_EX) == 0);
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const auto since_start = [&](Clock::time_point t) { return std::chrono::duration<double>(t - started).count(); };
  std::thread other_turn([other] {  // another worker's turn: 5 s from now
    std::this_thread::sleep_for(std::chrono::seconds(5));
    ::close(other);
  });
  // A third worker that takes the lock as soon as the run gives its turn back (tried from 5.5 s on, when the run
  // holds it: its timed runs take more than a second): when that was.
  std::optional<Clock::time_point> given_back;
  std::thread third([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5500));
    const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    for (int i = 0; i < 12000 && !given_back; ++i) {
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
        given_back = Clock::now();
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::close(fd);
  });
  grader::ProcessOptions options{.argv = {std::string(COURSE_BIN_DIR) + "/lab7", "time", "--impl", "reference",
                                          "--exercise", "pipeline", "--max-seconds", "0", "--results",
                                          results.string(), "--host-link-turn-fd",
                                          std::to_string(harness::host_link::kTurnFd)},
                                 .timeout_s = 120,
                                 .env = {{"COURSE_REQUIRE_GPU", "1"}}};
  options.turn_lock = lock;
  const auto r = grader::run_process(options);
  other_turn.join();
  third.join();
  CAPTURE(r.exit_code, r.err);
  REQUIRE(r.exit_code == code::kOk);
  CHECK(r.turns == 1);
  CHECK(r.turn_wait_s > 1.0);
  std::ifstream in(results);
  const auto j = nlohmann::json::parse(in);
  CHECK(j.at("correct").get<bool>());
  const auto& phases = j.at("phases_s");
  CAPTURE(phases.dump());
  // Its context, inputs, runners and first checks came during the other's turn; what was left of it was waited out.
  CHECK(phases.at("host_link_wait").get<double>() > 1.0);
  // Held from the grant (the grader's seconds since the start, which came just after the test's clock did) to the
  // third worker's lock: the timed runs' seconds, too short for either check of the timed shape to have been made in
  // the turn too.
  REQUIRE(given_back);
  const double first_checks = phases.at("first_checks").get<double>();
  const double last_check = phases.at("last_check").get<double>();
  CHECK(first_checks > 0.05);
  CHECK(last_check > 0.05);
  CHECK(since_start(*given_back) - r.first_turn_s <
        phases.at("timing").get<double>() + 0.5 * std::min(first_checks, last_check));
  std::filesystem::remove(results);
  std::filesystem::remove(lock);
}

TEST_CASE("with a GPU, a time run that checks first writes the check's lines, then, after its turn, the timed results "
          "of the exercises that passed",
          "[labs][cli][gpu][time]") {
  if (!gpu_present()) SKIP("no GPU on this machine");
  const auto labs = lab_names();
  if (std::find(labs.begin(), labs.end(), "lab1") == labs.end()) SKIP("lab 1 is not built");
  const auto [a, b] = first_two_exercises("lab1");
  const auto results = std::filesystem::temp_directory_path() / ("lab1-checks-then-time-" + std::to_string(::getpid()));
  const auto lock = std::filesystem::temp_directory_path() / ("lab1-checks-then-time-" + std::to_string(::getpid()) +
                                                              ".lock");
  // Whether the results file holds every case its plan lines planned: the run's checks have ended.
  const auto checked_all = [&] {
    std::ifstream in(results);
    int planned = 0, cases = 0;
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("plan")) planned += j.at("plan").at("cases").get<int>();
      else if (j.is_object() && j.contains("ok")) ++cases;
    }
    return planned > 0 && cases == planned;
  };
  // `impl`'s run while another holds the turn until 3 s after the run's checks have ended (the run asks once it has
  // made its first exercise's generate() ahead, under a second for lab 1's): what came through, by kind of line, and
  // when the turn was let go, in seconds from the run's start.
  struct Lines {
    grader::ProcessResult run;
    int plans = 0, cases = 0, passed = 0;
    std::vector<std::string> timed;      // the exercises of its time lines, in order
    std::vector<nlohmann::json> phases;  // and their phases_s
    double released_s = 0;               // when the other let the turn go
  };
  const auto checks_then_time = [&](const std::string& impl) {
    const int other = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(other >= 0);
    REQUIRE(::flock(other, LOCK_EX) == 0);
    const auto started = std::chrono::steady_clock::now();
    std::atomic<double> released_s = 0;
    std::thread other_turn([other, &checked_all, started, &released_s] {
      for (int i = 0; i < 1200 && !checked_all(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::this_thread::sleep_for(std::chrono::milliseconds(3000));
      released_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ::close(other);
    });
    std::filesystem::remove(results);
    grader::ProcessOptions options{.argv = {std::string(COURSE_BIN_DIR) + "/lab1", "time", "--impl", impl,
                                            "--exercise", a + "," + b, "--max-seconds", "0", "--results",
                                            results.string(), "--check-seeds", "1,2", "--timed-turn-fd",
                                            std::to_string(harness::host_link::kTurnFd)},
                                   .timeout_s = 300,
                                   .env = {{"COURSE_REQUIRE_GPU", "1"}}};
    options.turn_lock = lock;
    Lines l;
    l.run = grader::run_process(options);
    other_turn.join();
    l.released_s = released_s;
    std::ifstream in(results);
    bool timing = false;
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line);
      if (j.contains("correct")) {
        timing = true;
        CHECK(j.at("correct") == true);
        l.timed.push_back(j.at("exercise").get<std::string>());
        l.phases.push_back(j.at("phases_s"));
        continue;
      }
      CHECK_FALSE(timing);  // every check line before the first time line
      if (j.contains("plan")) ++l.plans;
      else if (j.contains("ok")) ++l.cases, l.passed += j.at("ok").get<bool>();
    }
    std::filesystem::remove(results);
    return l;
  };
  const Lines right = checks_then_time("reference");
  CAPTURE(right.run.exit_code, right.run.err);
  CHECK(right.run.exit_code == code::kOk);
  CHECK(right.plans == 2);
  CHECK(right.cases > 0);
  CHECK(right.passed == right.cases);
  CHECK(right.run.turns == 1);
  CHECK(right.run.turn_wait_s > 0.5);                      // asked for, and waited for
  CHECK(right.run.first_turn_s > right.released_s - 0.1);  // granted once the other let it go
  CHECK(right.timed == std::vector<std::string>{a, b});
  // The first exercise's generate() was made before the turn was asked for (its host work beside the other labs'
  // checks, not inside the turn), where the host had the memory to spare (1/16 of what was available: lab 1's first
  // timed problem keeps 3 GiB), the turn's part of it (its device part) far shorter than what came before; the
  // second's host work inside the turn, while the runners started (before the first exercise's own phases), its
  // device part in its own generate phase.
  REQUIRE(right.phases.size() == 2);
  CAPTURE(right.phases[0].dump(), right.phases[1].dump());
  if (available_memory_gib() >= 64) {
    REQUIRE(right.phases[0].contains("generate_ahead"));
    CHECK(right.phases[0].at("generate_ahead").get<double>() > right.phases[0].at("generate").get<double>());
    REQUIRE(right.phases[1].contains("generate_beside_runners"));
    CHECK(right.phases[1].at("generate_beside_runners").get<double>() > right.phases[1].at("generate").get<double>());
  }
  CHECK_FALSE(right.phases[0].contains("generate_beside_runners"));
  CHECK_FALSE(right.phases[1].contains("generate_ahead"));
  // The reference's output shifted by one element fails every case: nothing is timed, and no turn is asked for.
  const Lines wrong = checks_then_time("mutant:shifted");
  CAPTURE(wrong.run.exit_code, wrong.run.err);
  CHECK(wrong.run.exit_code == code::kTestFailure);
  CHECK(wrong.plans == 2);
  CHECK(wrong.passed < wrong.cases);
  CHECK(wrong.run.turns == 0);
  CHECK(wrong.timed.empty());
  std::filesystem::remove(lock);
}
