#include "cpu_reference.hpp"

#include "gpu_budget.hpp"

#include <harness/parallel.hpp>

#include <algorithm>
#include <stdexcept>

namespace lab00::cpu {

namespace {
constexpr std::size_t kMinChunk = std::size_t{1} << 20;  // elements a core takes at the least

long round_up(long v, long unit) { return (v + unit - 1) / unit * unit; }
}  // namespace

std::vector<double> scale(const std::vector<float>& x, float alpha) {
  std::vector<double> y(x.size());
  harness::parallel_chunks(x.size(), kMinChunk, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) y[i] = static_cast<double>(alpha) * x[i];
  });
  return y;
}

std::vector<double> mix_all(const std::vector<float>& x, int rounds) {
  std::vector<double> h(x.size());
  // The work is rounds x 5 integer operations per element: a few seconds of one core at the timed shape, so spread.
  harness::parallel_chunks(x.size(), kMinChunk / 16, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) h[i] = lab00::mix(x[i], static_cast<std::int64_t>(i), rounds);
  });
  return h;
}

SmLimits h100() { return {}; }

// The CUDA occupancy calculator's arithmetic (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor) for one SM
// whose shared memory is configured at its largest: each limit gives a number of blocks, the least one binds.
Occupancy occupancy(const BlockUsage& u, const SmLimits& sm) {
  if (u.threads <= 0) throw std::invalid_argument("occupancy: a block has at least one thread");
  const int max_warps = sm.max_threads / sm.warp_size;
  const int warps = (u.threads + sm.warp_size - 1) / sm.warp_size;
  Occupancy o;
  if (u.threads > 1024 || warps > max_warps) {
    o.limited_by = "cannot launch: more than 1024 threads per block";
    return o;
  }
  if (u.registers_per_thread > sm.max_registers_per_thread) {
    o.limited_by = "cannot launch: more registers per thread than a thread may have";
    return o;
  }
  const long shared = u.static_shared_bytes + u.dynamic_shared_bytes;
  if (shared > sm.max_shared_per_block) {
    o.limited_by = "cannot launch: more shared memory than a block may have";
    return o;
  }
  struct Limit {
    int blocks;
    const char* name;
  };
  std::vector<Limit> limits = {{max_warps / warps, "threads"}, {sm.max_blocks, "blocks"}};
  // Registers go to warps in units of 256, and each of the SM's 4 schedulers has a quarter of the register file:
  // the warps that fit are counted per quarter (what the calculator does since Volta).
  if (u.registers_per_thread > 0) {
    const long per_warp = round_up(static_cast<long>(u.registers_per_thread) * sm.warp_size, sm.register_unit);
    constexpr int kQuarters = 4;
    const long warps_per_quarter = sm.registers / kQuarters / per_warp;
    if (per_warp * round_up(warps, kQuarters) > sm.registers) {
      o.limited_by = "cannot launch: more registers per block than an SM has";
      return o;
    }
    limits.push_back({static_cast<int>(warps_per_quarter * kQuarters / warps), "registers"});
  }
  // Every block also holds the runtime's reserved 1 KiB, in units of 128 bytes.
  const long per_block = round_up(shared + sm.reserved_shared_per_block, sm.shared_unit);
  limits.push_back({static_cast<int>(sm.shared_bytes / per_block), "shared memory"});
  // The first of the least: ties go to the limit listed first (threads before registers before shared memory).
  const auto least = std::min_element(limits.begin(), limits.end(),
                                      [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
  o.blocks = least->blocks;
  o.limited_by = least->name;
  o.warps = o.blocks * warps;
  o.fraction = static_cast<double>(o.warps) / max_warps;
  return o;
}

double bytes_in_flight(double bytes_per_s, double latency_s) { return bytes_per_s * latency_s; }

double waves(std::int64_t blocks, int sms, int resident) {
  if (sms <= 0 || resident <= 0) throw std::invalid_argument("waves: an SM holds at least one block");
  const std::int64_t per_wave = std::int64_t{sms} * resident;
  return static_cast<double>((blocks + per_wave - 1) / per_wave);
}

double wave_efficiency(std::int64_t blocks, int sms, int resident) {
  if (blocks <= 0) return 0;
  return static_cast<double>(blocks) / (waves(blocks, sms, resident) * sms * resident);
}

}  // namespace lab00::cpu
