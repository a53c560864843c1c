// Where a batch's workers run: cores near each GPU (grader/placement.hpp).

#include "grader/placement.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace grader {

namespace fs = std::filesystem;

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    part.erase(std::remove_if(part.begin(), part.end(), [](unsigned char c) { return std::isspace(c); }), part.end());
    if (part.empty()) continue;
    int first = 0, last = 0;
    char dash = 0;
    std::istringstream range(part);
    if (!(range >> first) || first < 0) return {};
    last = first;
    if (range >> dash && (dash != '-' || !(range >> last) || last < first)) return {};
    if (range.peek() != EOF) return {};
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    text += fmt::format("{}{}", text.empty() ? "" : ",", cpus[i]);
    if (j > i) text += fmt::format("-{}", cpus[j]);
    i = j + 1;
  }
  return text;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

namespace {

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The GPUs the driver lists, in PCI bus order (the folder names are bus addresses: 0000:18:00.0).
std::vector<fs::path> driver_gpus(const fs::path& proc_gpus) {
  std::vector<fs::path> gpus;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(proc_gpus, error)) gpus.push_back(entry.path());
  std::sort(gpus.begin(), gpus.end());
  return gpus;
}

}  // namespace

std::vector<int> cpus_near_gpu(const std::string& slot, const fs::path& proc_gpus, const fs::path& sys_pci) {
  const auto gpus = driver_gpus(proc_gpus);
  fs::path gpu;
  if (!slot.empty() && std::all_of(slot.begin(), slot.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const auto index = std::stoul(slot);
    if (index < gpus.size()) gpu = gpus[index];
  } else if (slot.rfind("GPU-", 0) == 0) {
    for (const auto& g : gpus) {
      std::ifstream in(g / "information");
      for (std::string line; std::getline(in, line);)
        if (line.rfind("GPU UUID:", 0) == 0 && line.find(slot) != std::string::npos) gpu = g;
    }
  }
  if (gpu.empty()) return {};
  std::string bus = gpu.filename().string();
  std::transform(bus.begin(), bus.end(), bus.begin(), [](unsigned char c) { return std::tolower(c); });
  return parse_cpu_list(first_line(sys_pci / bus / "local_cpulist"));
}

std::vector<std::vector<int>> cpu_cores(const std::vector<int>& cpus, const fs::path& sys_cpu) {
  std::map<int, std::vector<int>> by_first;  // each core by its first CPU of `cpus`
  for (const int cpu : cpus) {
    const auto list = sys_cpu / fmt::format("cpu{}", cpu) / "topology" / "thread_siblings_list";
    auto siblings = parse_cpu_list(first_line(list));
    if (std::find(siblings.begin(), siblings.end(), cpu) == siblings.end()) siblings = {cpu};  // unknown: its own
    std::vector<int> core;
    std::set_intersection(siblings.begin(), siblings.end(), cpus.begin(), cpus.end(), std::back_inserter(core));
    by_first.emplace(core.front(), core);
  }
  std::vector<std::vector<int>> cores;
  for (auto& [first, core] : by_first) cores.push_back(std::move(core));
  return cores;
}

std::vector<std::vector<int>> near_cpus(const std::vector<int>& allowed, const std::vector<std::vector<int>>& near) {
  std::vector<std::vector<int>> pools(near.size());
  for (std::size_t i = 0; i < near.size(); ++i) {
    std::set_intersection(allowed.begin(), allowed.end(), near[i].begin(), near[i].end(),
                          std::back_inserter(pools[i]));
    if (pools[i].empty()) pools[i] = allowed;
  }
  return pools;
}

std::vector<std::vector<int>> share_cpus(const std::vector<int>& allowed, const std::vector<std::vector<int>>& near,
                                         const std::vector<std::vector<int>>& cores) {
  const std::size_t workers = near.size();
  if (workers <= 1 || allowed.empty()) return std::vector<std::vector<int>>(workers, allowed);
  const auto pools = near_cpus(allowed, near);
  std::map<int, std::size_t> core_of;  // CPU -> its core in `cores`
  for (std::size_t c = 0; c < cores.size(); ++c)
    for (const int cpu : cores[c]) core_of[cpu] = c;
  std::map<std::vector<int>, std::vector<std::size_t>> sharing;  // pool -> the workers that draw on it, in order
  for (std::size_t i = 0; i < workers; ++i) sharing[pools[i]].push_back(i);
  std::vector<std::vector<int>> shares(workers);
  for (const auto& [pool, members] : sharing) {
    // The pool's CPUs by physical core, in the order of each core's first CPU: a core's hardware threads go to one
    // worker, so that no worker's host code runs beside another's on one core (a CPU of no known core is its own).
    std::vector<std::vector<int>> units;
    std::map<std::size_t, std::size_t> unit_of_core;
    for (const int cpu : pool) {
      const auto core = core_of.find(cpu);
      if (core == core_of.end()) {
        units.push_back({cpu});
        continue;
      }
      const auto [unit, added] = unit_of_core.emplace(core->second, units.size());
      if (added) units.emplace_back();
      units[unit->second].push_back(cpu);
    }
    const std::size_t m = members.size(), n = units.size();
    for (std::size_t j = 0; j < m; ++j) {
      auto& share = shares[members[j]];
      if (n < m) {
        share = units[j % n];
        continue;
      }
      for (std::size_t u = n * j / m; u < n * (j + 1) / m; ++u)
        share.insert(share.end(), units[u].begin(), units[u].end());
      std::sort(share.begin(), share.end());
    }
  }
  return shares;
}

bool run_on(const std::vector<int>& cpus) {
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  return ::sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace grader
