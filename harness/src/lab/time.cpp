// `labN time`: student, reference, baseline and ceiling timed interleaved in one process at the exercise's timed
// shape, with the student's output checked before and after the timed runs.
#include "commands.hpp"

#include <harness/cuda_check.hpp>
#include <harness/exit_codes.hpp>
#include <harness/problem.hpp>
#include <harness/timing.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

namespace harness::lab_cli {
namespace {

constexpr std::uint64_t kTimedSeed = 20261121;
constexpr std::uint64_t kRecheckSeed = 77;  // a different input after timing: a cached answer cannot pass

const Impl& find_impl(const std::string& name) {
  const auto& impls = implementations();
  const auto it = impls.find(name);
  if (it == impls.end()) throw MissingLauncher("unknown implementation '" + name + "' (see `list`)");
  return it->second;
}

/// Runs `impl` once on freshly poisoned outputs and checks the result.
Verdict run_and_verify(Problem& p, const Impl& impl, cudaStream_t s) {
  p.poison(s);
  p.run(impl, s);
  CUDA_CHECK(cudaGetLastError());
  return p.verify(true);
}

int write(const nlohmann::json& j, const std::string& path, int rc) {
  if (path.empty()) {
    std::cout << j.dump(1) << "\n";
  } else {
    std::ofstream f(path, std::ios::trunc);
    f << j.dump(1) << "\n";
    if (!f) {
      std::cerr << "cannot write " << path << "\n";
      return exit_code::kUsage;
    }
  }
  return rc;
}

}  // namespace

int time(const TimeRequest& request) {
  const ExerciseSpec* spec = lab().find(request.exercise);
  if (!spec) {
    std::cerr << "unknown exercise '" << request.exercise << "' (see `list`)\n";
    return exit_code::kBadSpec;
  }
  const Impl& student = find_impl(request.impl);
  const Impl& reference = find_impl("reference");
  const Impl& baseline = find_impl("baseline");
  for (const Impl* i : {&student, &reference, &baseline})
    if (!i->has(spec->name))
      throw MissingLauncher("implementation '" + i->name() + "' has no launcher for exercise '" + spec->name + "'");
  const Shape shape = request.shape.empty() ? spec->timed_shape : Shape::parse(request.shape);
  if (int rc = require_device()) return rc;

  const DeviceInfo device = device_info();
  Stream stream;
  auto problem = spec->make(shape);
  problem->generate(kTimedSeed);
  const Work work = problem->work();
  const bool memory = spec->bound == Bound::memory;

  nlohmann::json out = {{"exercise", spec->name},
                        {"impl", request.impl},
                        {"shape", shape.str()},
                        {"work", {{"bytes", work.bytes}, {"flops", work.flops}}},
                        {"unit", memory ? "GB/s" : "GFLOP/s"},
                        {"correct", true},
                        {"message", ""},
                        {"runners", nlohmann::json::object()}};

  // The course's own implementations must be right at the timed shape, or no grade based on them means anything.
  for (const Impl* i : {&reference, &baseline}) {
    const Verdict v = run_and_verify(*problem, *i, stream.get());
    if (!v.ok) throw std::logic_error("the " + i->name() + " is wrong at shape " + shape.str() + ": " + v.message);
  }
  if (const Verdict v = run_and_verify(*problem, student, stream.get()); !v.ok) {
    out["correct"] = false;
    out["message"] = "wrong at the timed shape " + shape.str() + ": " + v.message;
    return write(out, request.results, exit_code::kTestFailure);
  }

  auto ceiling = spec->ceiling ? spec->ceiling(shape) : copy_ceiling(work.bytes);
  std::vector<Contender> contenders = {
      {"student", [&](cudaStream_t s) { problem->run(student, s); }},
      {"reference", [&](cudaStream_t s) { problem->run(reference, s); }},
      {"baseline", [&](cudaStream_t s) { problem->run(baseline, s); }},
      {"ceiling", [&](cudaStream_t s) { ceiling->run(s); }},
  };
  for (const Peer& peer : spec->peers)
    contenders.push_back({peer.name, [&](cudaStream_t s) { peer.run(*problem, s); }});
  TimingOptions options;
  options.max_seconds = request.max_seconds;
  L2Flusher flusher(device.l2_bytes);
  const auto summaries = time_interleaved(contenders, options, stream.get(), flusher);

  const double amount = memory ? work.bytes : work.flops;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const Summary& s = summaries[i];
    const bool is_ceiling = contenders[i].name == "ceiling";
    const double per_run = is_ceiling ? ceiling->amount() : amount;
    nlohmann::json r = {{"median_ms", s.median}, {"min_ms", s.min},         {"max_ms", s.max},
                        {"noise_pct", s.noise_pct}, {"samples", s.samples}, {"rate", per_run / (s.median * 1e6)}};
    if (is_ceiling) r["what"] = ceiling->what();
    out["runners"][contenders[i].name] = r;
  }
  out["percent_of_ceiling"] =
      100.0 * out["runners"]["student"]["rate"].get<double>() / out["runners"]["ceiling"]["rate"].get<double>();
  if (spec->metrics) {
    Medians medians;
    for (std::size_t i = 0; i < contenders.size(); ++i) medians[contenders[i].name] = summaries[i].median;
    out["metrics"] = spec->metrics(medians);
  }

  // Fresh inputs, poisoned outputs, one more run: a kernel that skips work once it has seen its buffers fails here.
  problem->generate(kRecheckSeed);
  if (const Verdict v = run_and_verify(*problem, student, stream.get()); !v.ok) {
    out["correct"] = false;
    out["message"] = "right before the timed runs but wrong after them (a cached or stale result?): " + v.message;
    return write(out, request.results, exit_code::kTestFailure);
  }
  return write(out, request.results, exit_code::kOk);
}

}  // namespace harness::lab_cli
