// grade batch, the two workers of one student: the build (compile, static check, link for each lab, by the recipes)
// and the grading (grade_lab() with the student's private folder as the lab's binary folder). Each runs in a process
// of its own (batch.cpp says why) and hands its outcome on in a file.

#include <chrono>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "grader/batch.hpp"
#include "grader/host_lock.hpp"
#include "grader/lab_run.hpp"
#include "grader/placement.hpp"
#include "grader/report.hpp"

namespace grader::batch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Kind = BuildOutcome::Kind;

fs::path work_dir(const BatchSetup& setup, const StudentFiles& student) { return setup.results / "work" / student.name; }

std::string kind_name(Kind kind) {
  switch (kind) {
    case Kind::kBuilt: return "built";
    case Kind::kNoSubmission: return "no submission";
    case Kind::kCompileError: return "compile error";
    case Kind::kRefused: return "refused";
    case Kind::kLinkError: return "link error";
  }
  return "?";
}

}  // namespace

int build_student(const BatchSetup& setup, const StudentFiles& student) {
  const fs::path work = work_dir(setup, student);
  std::error_code error;
  fs::remove_all(work, error);  // what a killed batch left half-built
  json labs = json::array();
  for (const auto& lab : setup.labs) {
    const int number = lab.lab->number;
    BuildOutcome outcome{Kind::kNoSubmission, "no submission", {}};
    if (const auto file = student.files.find(number); file != student.files.end())
      outcome = build_submission(lab.recipe, file->second, work / fmt::format("lab{}", number), setup.build_timeout_s);
    labs.push_back({{"lab", number}, {"outcome", kind_name(outcome.kind)}, {"message", outcome.message},
                    {"bin_dir", outcome.bin_dir.string()}});
  }
  write_atomically(work / "build.json", {{"student", student.name}, {"labs", labs}});
  return 0;
}

int grade_student(const BatchSetup& setup, const StudentFiles& student, const std::string& gpu) {
  const auto started = std::chrono::steady_clock::now();
  // The GPUs in PCI bus order, as nvidia-smi lists them and cpus_near_gpu() reads them (CUDA's own order may differ).
  ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  if (!gpu.empty()) ::setenv("CUDA_VISIBLE_DEVICES", gpu.c_str(), 1);
  const fs::path work = work_dir(setup, student);
  std::ifstream in(work / "build.json");
  const json built = json::parse(in, nullptr, false);
  if (!built.is_object()) throw std::runtime_error((work / "build.json").string() + ": unreadable");

  Report report;
  report.date = iso8601_utc(std::chrono::system_clock::now());
  report.commit = setup.commit;
  report.machine = nullptr;
  report.check_timeout_s = setup.check_timeout_s;
  report.time_timeout_s = setup.time_timeout_s;
  RunRecord record{"student", 1, {}};
  std::vector<std::string> errors;
  bool any_graded = false;
  std::vector<LabToGrade> labs;
  std::vector<std::string> unbuilt;  // per lab: why it was not built, or empty
  json builds = json::array();       // per lab: how its build went, for the summary and the exports to count
  for (const auto& lab : setup.labs) {
    const int number = lab.lab->number;
    json entry;
    for (const json& e : built.at("labs"))
      if (e.at("lab") == number) entry = e;
    if (entry.is_null()) throw std::runtime_error(fmt::format("build.json has no lab{}", number));
    GradeOptions options;
    options.impl = "student";
    options.work_dir = work / "grading";
    options.check_timeout_s = setup.check_timeout_s;
    options.time_timeout_s = setup.time_timeout_s;
    options.sanitizer = setup.sanitizer;
    options.host_link_lock = setup.results / host_lock_name("host-link");
    options.sanitizer_lock = setup.results / host_lock_name("sanitizer");
    builds.push_back({{"lab", number}, {"outcome", entry.at("outcome")}, {"message", entry.at("message")}});
    if (entry.at("outcome") == "built") {
      options.bin_dir = entry.at("bin_dir").get<std::string>();
      if (report.machine.is_null()) {
        const auto info = query_info(lab_binary(options.bin_dir, number));
        if (info.kind == InfoOutcome::Kind::kNoGpu) return 3;
        if (info.kind == InfoOutcome::Kind::kOk) report.machine = info.info;
      }
      any_graded = true;
      unbuilt.emplace_back();
    } else {
      // Not built: the lab's row as grade_lab() gives it for a missing binary (no-binary, no points), saying why.
      options.bin_dir = work / "none";
      unbuilt.push_back(entry.at("message").get<std::string>());
    }
    labs.push_back({lab.lab, &lab.manifest, std::move(options)});
  }
  // Every lab's checks at once, then each lab's timed runs (grade_labs()).
  GradingSteps steps;
  for (LabResult& result : grade_labs(labs, {}, &steps)) {
    builds[record.labs.size()]["max_score"] = result.max_score();  // a lab not built still has its points possible
    const std::string& why = unbuilt[record.labs.size()];
    if (!why.empty()) {
      result.message = why;
      for (auto& x : result.exercises) x.message = why;
      errors.push_back(setup.single_lab ? why : fmt::format("lab{}: {}", result.number, why));
    }
    record.labs.push_back(std::move(result));
  }
  json error = nullptr;
  if (!errors.empty()) {
    std::string text;
    for (const auto& e : errors) text += (text.empty() ? "" : "; ") + e;
    error = text;
  }
  json file = {{"schema", 1}, {"student", student.name}, {"error", error}};
  if (any_graded) {
    report.runs.push_back(std::move(record));
    file = to_json(report);
    file["student"] = student.name;
    file["error"] = error;
  }
  file["builds"] = std::move(builds);
  // Where and how long this student was graded: the batch's summary gives each GPU's rate from it; and when each step
  // ran on the host's monotonic clock, so that several workers' steps can be laid side by side
  // (scripts/class_timeline.py: do the workers' checks and sanitizer runs still come at the same moments?).
  const auto span = [](const GradingSteps::Span& s) { return json::array({s.from, s.to}); };
  json lab_steps = json::array();
  for (const auto& [number, s] : steps.labs) lab_steps.push_back({{"lab", number}, {"span", span(s)}});
  file["grading"] = {{"gpu", gpu},
                     {"cpus", format_cpu_list(allowed_cpus())},
                     {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()},
                     {"steps", {{"checks", span(steps.checks)},
                                {"sanitizer", steps.sanitizer.to > 0 ? span(steps.sanitizer) : json(nullptr)},
                                {"labs", std::move(lab_steps)}}}};
  write_atomically(setup.results / "students" / (student.name + ".json"), file);
  std::error_code ignored;
  if (!setup.keep_work) fs::remove_all(work, ignored);
  return 0;
}

}  // namespace grader::batch
