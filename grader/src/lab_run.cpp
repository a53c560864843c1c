#include "grader/lab_run.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include <harness/exit_codes.hpp>

#include "grader/process.hpp"

namespace grader {
namespace {

namespace ec = harness::exit_code;
using nlohmann::json;

constexpr double kInfoTimeoutS = 30;

std::optional<std::string> read_text(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) return std::nullopt;
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::string clip(std::string_view text, std::size_t n) {
  return text.size() <= n ? std::string(text) : std::string(text.substr(0, n)) + "...";
}

// A JSON value as message text: strings without quotes, anything else as JSON.
std::string text_of(const json& object, const char* key) {
  if (!object.contains(key)) return "?";
  const json& v = object.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string stderr_hint(const ProcessResult& run) {
  const auto line = last_line(run.err);
  return line.empty() ? "" : "; last stderr: " + line;
}

std::string exit_code_meaning(int code) {
  switch (code) {
    case ec::kUsage: return " (usage: the lab rejected the grader's command line)";
    case ec::kInternal: return " (internal error in the lab)";
    case 127: return " (command not found)";
    default: return "";
  }
}

// The verdict on a run that did not end with exit 0 or 112, the two codes after which the results file is read.
// `done` says how far the run got, e.g. "3 of 27 tests passed".
/// Records why an exercise stopped short; returns false so a step can `return fail(...)`.
bool fail(ExerciseResult& x, Status status, std::string message) {
  x.status = status;
  x.message = std::move(message);
  return false;
}

std::optional<std::pair<Status, std::string>> abnormal_end(const ProcessResult& run, std::string_view what,
                                                           std::string_view done, double timeout_s,
                                                           const std::string& impl, const std::string& exercise) {
  const auto progress = done.empty() ? std::string() : fmt::format(" ({})", done);
  if (!run.started) return {{Status::kCrash, fmt::format("{} could not start: {}", what, run.error)}};
  if (run.timed_out)
    return {{Status::kTimeout,
             fmt::format("{} hung: killed after {:g} s{}{}", what, timeout_s, progress, stderr_hint(run))}};
  if (run.signal != 0)
    return {{Status::kCrash,
             fmt::format("{} crashed: killed by {}{}{}", what, signal_name(run.signal), progress, stderr_hint(run))}};
  switch (run.exit_code) {
    case ec::kOk:
    case ec::kTestFailure: return std::nullopt;
    case ec::kCudaError: {
      const auto line = last_line(run.err);
      return {{Status::kCudaError, fmt::format("{} stopped by a CUDA error{}: {}", what, progress,
                                               line.empty() ? "(no message on stderr)" : line)}};
    }
    case ec::kNoDevice:
      return {{Status::kCudaError, fmt::format("{} found no CUDA GPU (exit 111){}", what, stderr_hint(run))}};
    case ec::kBadSpec:
      return {{Status::kMissing, fmt::format("the {} implementation has no launcher for {} (exit 113){}", impl,
                                             exercise, stderr_hint(run))}};
    default:
      return {{Status::kCrash, fmt::format("{} exited with unexpected code {}{}{}", what, run.exit_code,
                                           exit_code_meaning(run.exit_code), stderr_hint(run))}};
  }
}

std::optional<RunnerTiming> parse_runner(const json& runners, const char* name, std::string& problem) {
  if (!runners.is_object() || !runners.contains(name) || !runners.at(name).is_object()) {
    problem = fmt::format("runners.{} is missing", name);
    return std::nullopt;
  }
  const json& r = runners.at(name);
  const auto number = [&](const char* key) -> std::optional<double> {
    if (!r.contains(key) || !r.at(key).is_number()) return std::nullopt;
    const double x = r.at(key).get<double>();
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
  };
  const auto median = number("median_ms");
  if (!median || *median <= 0) {
    problem = fmt::format("runners.{}.median_ms is missing or not a positive number", name);
    return std::nullopt;
  }
  return RunnerTiming{*median, number("noise_pct"), number("rate")};
}

class ExerciseGrader {
 public:
  ExerciseGrader(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options, double check_timeout_s,
                 double time_timeout_s)
      : lab_(lab), manifest_(manifest), options_(options), check_timeout_s_(check_timeout_s),
        time_timeout_s_(time_timeout_s), binary_(lab_binary(options.bin_dir, lab.number).string()),
        work_(options.work_dir / ("lab" + std::to_string(lab.number))) {
    std::error_code error;
    std::filesystem::create_directories(work_, error);
  }

  ExerciseResult grade(const ExerciseSpec& spec) {
    ExerciseResult x;
    x.name = spec.name;
    x.correctness_max = spec.correctness_points;
    x.performance_max = spec.performance_points;
    const bool timed_ok = check(x) && time(x);
    x.score = score_exercise({spec.correctness_points, spec.performance_points, x.tests_passed, x.tests_total,
                              timed_ok, timed_ok ? x.timing->student.median_ms : 0,
                              timed_ok ? x.timing->reference.median_ms : 0,
                              timed_ok ? x.timing->baseline.median_ms : 0, manifest_.full_marks_at});
    if (timed_ok) {
      x.message = fmt::format("{}/{} tests passed; {:.2f}x the reference time (full marks at {:g}x)", x.tests_passed,
                              x.tests_total, x.timing->student.median_ms / x.timing->reference.median_ms,
                              manifest_.full_marks_at);
    }
    return x;
  }

 private:
  void tell(const std::string& what) const {
    if (options_.progress) options_.progress(what);
  }

  ProcessResult launch(std::vector<std::string> argv, double timeout_s) const {
    ProcessOptions p;
    p.argv = std::move(argv);
    p.timeout_s = timeout_s;
    p.kill_grace_s = options_.kill_grace_s;
    return run_process(p);
  }

  // Runs `check`; true when every planned test passed.
  bool check(ExerciseResult& x) {
    const auto file = work_ / (x.name + ".check.jsonl");
    std::error_code error;
    std::filesystem::remove(file, error);  // a stale file from an earlier run must not count
    tell(fmt::format("lab{} {}: check ({})", lab_.number, x.name, options_.impl));
    std::vector<std::string> argv = {binary_, "check", "--impl", options_.impl, "--exercise", x.name, "--results",
                                     file.string()};
    if (!options_.seeds.empty()) argv.insert(argv.end(), {"--seeds", options_.seeds});
    const auto run = launch(argv, check_timeout_s_);
    x.wall_s += run.wall_s;

    const auto text = read_text(file);
    const CheckFile f = text ? parse_check_results(*text, x.name) : CheckFile{};
    x.tests_total = f.total;
    // Unreadable output earns nothing: its counts cannot be trusted.
    x.tests_passed = f.error.empty() ? std::min(f.passed, f.total) : 0;
    const auto done = f.has_plan ? fmt::format("{} of {} tests passed", x.tests_passed, x.tests_total) : "";

    if (auto end = abnormal_end(run, "check", done, check_timeout_s_, options_.impl, x.name))
      return fail(x, end->first, end->second);
    if (!text)
      return fail(x, Status::kBadOutput, fmt::format("check exited {} but wrote no results file ({}){}", run.exit_code,
                                                  file.string(), stderr_hint(run)));
    if (!f.error.empty()) return fail(x, Status::kBadOutput, fmt::format("check results unreadable: {}", f.error));
    if (!f.has_plan)
      return fail(x, Status::kBadOutput, "check wrote no plan line, so the number of tests is unknown");
    if (f.cases > f.total)
      return fail(x, Status::kBadOutput, fmt::format("check wrote {} results for a plan of {}", f.cases, f.total));
    if (run.exit_code == ec::kOk && f.cases < f.total)
      return fail(x, Status::kBadOutput,
                  fmt::format("check exited 0 after writing only {} of {} results", f.cases, f.total));
    if (x.tests_passed < x.tests_total) {
      const int failed = x.tests_total - x.tests_passed;
      const auto first = f.first_failure.empty() ? fmt::format("{} results missing", f.total - f.cases)
                                                 : "first: " + f.first_failure;
      return fail(x, Status::kWrong, fmt::format("{} of {} tests failed; {}", failed, x.tests_total, first));
    }
    if (run.exit_code == ec::kTestFailure)
      return fail(x, Status::kWrong,
                  fmt::format("check exited 112 (test failure) although every result passed{}", stderr_hint(run)));
    if (x.tests_total == 0) return fail(x, Status::kBadOutput, "check planned 0 tests");
    return true;
  }

  // Runs `time`; true when the timed run was correct and its medians are usable.
  bool time(ExerciseResult& x) {
    const auto file = work_ / (x.name + ".time.json");
    std::error_code error;
    std::filesystem::remove(file, error);
    tell(fmt::format("lab{} {}: time ({})", lab_.number, x.name, options_.impl));
    const auto run = launch({binary_, "time", "--impl", options_.impl, "--exercise", x.name, "--results",
                             file.string()},
                            time_timeout_s_);
    x.wall_s += run.wall_s;

    const auto text = read_text(file);
    const TimeFile f = text ? parse_time_results(*text) : TimeFile{};
    if (f.error.empty()) x.timing = f.timing;

    if (auto end = abnormal_end(run, "time", "", time_timeout_s_, options_.impl, x.name))
      return fail(x, end->first, end->second);
    if (!text)
      return fail(x, Status::kBadOutput, fmt::format("time exited {} but wrote no results file ({}){}", run.exit_code,
                                                  file.string(), stderr_hint(run)));
    if (!f.error.empty()) return fail(x, Status::kBadOutput, fmt::format("time results unreadable: {}", f.error));
    if (!f.correct) return fail(x, Status::kBadOutput, "time results lack a true/false 'correct' field");
    if (!*f.correct || run.exit_code == ec::kTestFailure) {
      const auto why = !f.message.empty() ? f.message : last_line(run.err);
      return fail(x, Status::kWrong, fmt::format("every test passed, but the timed run was wrong: {}",
                                              why.empty() ? "(no message)" : why));
    }
    if (!f.timing) return fail(x, Status::kBadOutput, fmt::format("time results incomplete: {}", f.timing_problem));
    return true;
  }

  const LabEntry& lab_;
  const Manifest& manifest_;
  const GradeOptions& options_;
  double check_timeout_s_, time_timeout_s_;
  std::string binary_;
  std::filesystem::path work_;
};

}  // namespace

std::string_view to_string(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kWrong: return "wrong";
    case Status::kTimeout: return "timeout";
    case Status::kCrash: return "crash";
    case Status::kCudaError: return "cuda-error";
    case Status::kBadOutput: return "bad-output";
    case Status::kMissing: return "missing";
    case Status::kNoBinary: return "no-binary";
  }
  return "?";
}

double LabResult::score() const {
  double sum = 0;
  for (const auto& x : exercises) sum += x.score.total;
  return sum;
}

double LabResult::max_score() const {
  double sum = 0;
  for (const auto& x : exercises) sum += x.max_score();
  return sum;
}

std::string not_built_message(int lab_number) {
  return fmt::format("lab{0} is not built: run `make lab{0}` in the build directory", lab_number);
}

InfoOutcome query_info(const std::filesystem::path& binary) {
  using Kind = InfoOutcome::Kind;
  std::error_code error;
  if (!std::filesystem::is_regular_file(binary, error)) return {Kind::kNoBinary, nullptr, "not built"};
  ProcessOptions p;
  p.argv = {binary.string(), "info"};
  p.timeout_s = kInfoTimeoutS;
  const auto run = run_process(p);
  const auto name = binary.filename().string();
  if (!run.started) return {Kind::kFailed, nullptr, fmt::format("{} info could not start: {}", name, run.error)};
  if (run.exit_code == ec::kNoDevice) {
    const auto line = last_line(run.err);
    return {Kind::kNoGpu, nullptr, line.empty() ? "exit 111, no message" : line};
  }
  if (run.timed_out) return {Kind::kFailed, nullptr, fmt::format("{} info hung: killed after 30 s", name)};
  if (run.signal != 0)
    return {Kind::kFailed, nullptr, fmt::format("{} info crashed: killed by {}", name, signal_name(run.signal))};
  if (run.exit_code != 0)
    return {Kind::kFailed, nullptr,
            fmt::format("{} info exited with code {}{}", name, run.exit_code, stderr_hint(run))};
  auto info = json::parse(run.out, nullptr, false);
  if (info.is_discarded()) info = json::parse(last_line(run.out, run.out.size()), nullptr, false);
  if (info.is_discarded() || !info.is_object())
    return {Kind::kFailed, nullptr, fmt::format("{} info printed no JSON object: {}", name, clip(run.out, 80))};
  return {Kind::kOk, std::move(info), ""};
}

CheckFile parse_check_results(std::string_view text, std::string_view exercise) {
  CheckFile f;
  std::size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    const auto newline = text.find('\n', pos);
    const bool complete = newline != std::string_view::npos;
    const auto line = text.substr(pos, complete ? newline - pos : std::string_view::npos);
    pos = complete ? newline + 1 : text.size();
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;

    const auto j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (!complete) break;  // cut off mid-write by a dying process
      f.error = fmt::format("line {} is not a JSON object: {}", line_no, clip(line, 60));
      return f;
    }
    const auto bad = [&](std::string_view problem) {
      f.error = fmt::format("line {}: {}", line_no, problem);
      return f;
    };
    if (j.contains("plan")) {
      const json& plan = j.at("plan");
      if (!plan.is_object() || !plan.contains("cases") || !plan.at("cases").is_number_integer() ||
          plan.at("cases").get<long long>() < 0 || plan.at("cases").get<long long>() > 1'000'000'000)
        return bad("plan without a valid 'cases' count");
      if (plan.contains("exercise") && text_of(plan, "exercise") != exercise)
        return bad(fmt::format("plan is for exercise '{}', not '{}'", text_of(plan, "exercise"), exercise));
      f.has_plan = true;
      f.total += plan.at("cases").get<int>();
      continue;
    }
    if (!j.contains("ok") || !j.at("ok").is_boolean()) return bad("result without a true/false 'ok'");
    if (j.contains("exercise") && text_of(j, "exercise") != exercise)
      return bad(fmt::format("result for exercise '{}', not '{}'", text_of(j, "exercise"), exercise));
    ++f.cases;
    if (j.at("ok").get<bool>()) {
      ++f.passed;
    } else if (f.first_failure.empty()) {
      f.first_failure = fmt::format("shape {} seed {}: {}", text_of(j, "shape"), text_of(j, "seed"),
                                    clip(j.contains("message") ? text_of(j, "message") : "", 160));
    }
  }
  return f;
}

TimeFile parse_time_results(std::string_view text) {
  TimeFile f;
  const auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    f.error = fmt::format("not a JSON object: {}", clip(text, 60));
    return f;
  }
  if (j.contains("correct")) {
    if (!j.at("correct").is_boolean()) {
      f.error = "'correct' is not true or false";
      return f;
    }
    f.correct = j.at("correct").get<bool>();
  }
  if (j.contains("message") && j.at("message").is_string()) f.message = j.at("message").get<std::string>();

  const json runners = j.contains("runners") ? j.at("runners") : json::object();
  Timing t;
  auto student = parse_runner(runners, "student", f.timing_problem);
  auto reference = student ? parse_runner(runners, "reference", f.timing_problem) : std::nullopt;
  auto baseline = reference ? parse_runner(runners, "baseline", f.timing_problem) : std::nullopt;
  if (!baseline) return f;
  t.student = *student;
  t.reference = *reference;
  t.baseline = *baseline;
  std::string ignored;
  t.ceiling = parse_runner(runners, "ceiling", ignored);
  if (t.ceiling && runners.at("ceiling").contains("what")) t.ceiling_what = text_of(runners.at("ceiling"), "what");
  if (j.contains("unit") && j.at("unit").is_string()) t.unit = j.at("unit").get<std::string>();
  if (j.contains("percent_of_ceiling") && j.at("percent_of_ceiling").is_number())
    t.percent_of_ceiling = j.at("percent_of_ceiling").get<double>();
  for (const auto& [name, value] : runners.items()) {
    if (name == "student" || name == "reference" || name == "baseline" || name == "ceiling") continue;
    if (auto peer = parse_runner(runners, name.c_str(), ignored)) t.peers.emplace(name, *peer);
  }
  if (j.contains("metrics") && j.at("metrics").is_object())
    for (const auto& [name, value] : j.at("metrics").items())
      if (value.is_number()) t.metrics.emplace(name, value.get<double>());
  f.timing = std::move(t);
  return f;
}

LabResult grade_lab(const LabEntry& lab, const Manifest& manifest, const GradeOptions& options) {
  LabResult r;
  r.number = lab.number;
  r.id = lab.id;
  r.title = manifest.title;
  r.weight = manifest.weight;
  r.check_timeout_s = options.check_timeout_s.value_or(manifest.check_timeout_s);
  r.time_timeout_s = options.time_timeout_s.value_or(manifest.time_timeout_s);
  std::error_code error;
  r.built = std::filesystem::is_regular_file(lab_binary(options.bin_dir, lab.number), error);
  if (!r.built) r.message = not_built_message(lab.number);

  std::optional<ExerciseGrader> grader;
  if (r.built) grader.emplace(lab, manifest, options, r.check_timeout_s, r.time_timeout_s);
  for (const auto& spec : manifest.exercises) {
    if (!options.exercise.empty() && spec.name != options.exercise) continue;
    if (r.built) {
      r.exercises.push_back(grader->grade(spec));
      continue;
    }
    ExerciseResult x;
    x.name = spec.name;
    x.status = Status::kNoBinary;
    x.message = r.message;
    x.correctness_max = spec.correctness_points;
    x.performance_max = spec.performance_points;
    r.exercises.push_back(std::move(x));
  }
  return r;
}

}  // namespace grader
