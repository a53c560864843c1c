// `grade repeatability RESULTS... [--against RESULTS...]`: the repeatability benchmark's results files (`grade all
// --impl IMPL --repeat N --output FILE`, one a baseline, reference and middle) held against its goals, and with
// --against the same benchmark of another GPU kind compared with them.

#include "repeatability_command.hpp"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "grader/repeatability.hpp"

namespace grader {
namespace {

struct RepeatabilityOptions {
  std::vector<std::string> results, against;
};

std::vector<RepeatedFraction> read(const std::vector<std::string>& files) {
  std::vector<nlohmann::json> all;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file + ": cannot read it");
    std::ostringstream text;
    text << in.rdbuf();
    auto j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded()) throw std::runtime_error(file + ": not JSON");
    try {
      all.push_back(std::move(j));
      repeated_fractions({all.back()});  // names the file whose runs are not a results file's
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(file + ": " + e.what());
    }
  }
  return repeated_fractions(all);
}

int run_repeatability(const RepeatabilityOptions& options) {
  std::vector<RepeatedFraction> these, other;
  try {
    these = read(options.results);
    other = read(options.against);
  } catch (const std::exception& e) {
    fmt::print(stderr, "grade repeatability: {}\n", e.what());
    return 1;
  }
  const auto goals = repeatability_goals(these, options.against.empty() ? nullptr : &other);
  int met = 0;
  for (const auto& g : goals) {
    met += g.met ? 1 : 0;
    fmt::print("lab{} {} ({}): {}: {}: {}\n", g.lab, g.exercise, g.impl, g.goal, g.found, g.met ? "met" : "MISSED");
  }
  fmt::print("repeatability goals: {} of {} met\n", met, goals.size());
  return met == static_cast<int>(goals.size()) ? 0 : 4;
}

}  // namespace

void add_repeatability_command(CLI::App& app, std::optional<int>& exit_code) {
  auto options = std::make_shared<RepeatabilityOptions>();
  auto* command = app.add_subcommand(
      "repeatability", "hold the repeatability benchmark's results files against its goals (docs/protocol.md)");
  command->footer(
      "\nEach RESULTS file is `grade all --impl IMPL --repeat N --output FILE` of the baseline, the reference or the "
      "middle\n(scripts/gpu-check.sh OUT COMMIT repeatability). Goals: the baseline's f <= 0.05 and the reference's "
      "f = 1 in every\nrepeat, each middle's spread of f <= 0.10, and with --against each middle's median within 0.10 "
      "of the other GPU kind's.\n\nExit codes:\n  0  every goal met\n  1  a file is unreadable or not a results file\n"
      "  4  a goal was missed");
  command->add_option("RESULTS", options->results, "results files of one GPU kind")->required();
  command->add_option("--against", options->against, "the same benchmark's results files on another GPU kind");
  command->callback([options, &exit_code] { exit_code = run_repeatability(*options); });
}

}  // namespace grader
