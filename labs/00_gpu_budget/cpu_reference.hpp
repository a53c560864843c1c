#pragma once
// Lab 00's CPU references, in double precision, and the occupancy arithmetic the sheet asks you to do by hand.
#include <cstdint>
#include <string>
#include <vector>

namespace lab00::cpu {

std::vector<double> scale(const std::vector<float>& x, float alpha);
/// h[i] = lab00::mix(x[i], i, rounds), exact.
std::vector<double> mix_all(const std::vector<float>& x, int rounds);

/// One SM's budget: what resident blocks share (CUDA C Programming Guide, "Compute capabilities" table).
struct SmLimits {
  int max_threads = 2048;             ///< resident threads per SM
  int max_blocks = 32;                ///< resident blocks per SM
  int registers = 65536;              ///< 32-bit registers per SM
  int max_registers_per_thread = 255;  ///< the most a thread may be given
  int register_unit = 256;            ///< registers are given to a warp in units of this many
  int warp_size = 32;
  long shared_bytes = 233472;         ///< shared memory per SM that blocks may use (228 KiB on sm_90)
  long max_shared_per_block = 232448;  ///< the most one block may ask for (227 KiB, opt-in above 48 KiB)
  int shared_unit = 128;              ///< shared memory is given in units of this many bytes
  long reserved_shared_per_block = 1024;  ///< the runtime keeps 1 KiB of every block's shared memory (sm_80 on)
};
/// An H100 (sm_90): the numbers above.
SmLimits h100();

/// What one block of a kernel needs: the compiler's resource usage (cuobjdump --dump-resource-usage, or
/// cudaFuncGetAttributes: numRegs, sharedSizeBytes) and the launch's block size and dynamic shared memory.
struct BlockUsage {
  int threads = 0;
  int registers_per_thread = 0;
  long static_shared_bytes = 0;
  long dynamic_shared_bytes = 0;
};

/// Resident blocks per SM, and which limit binds. The same arithmetic as cudaOccupancyMaxActiveBlocksPerMultiprocessor
/// (the CUDA occupancy calculator): the least of the thread, block, register and shared-memory limits.
struct Occupancy {
  int blocks = 0;              ///< resident blocks per SM (0: the block cannot launch at all)
  int warps = 0;               ///< resident warps per SM
  double fraction = 0;         ///< warps / the SM's maximum warps
  std::string limited_by;      ///< "threads", "blocks", "registers" or "shared memory" (or why it cannot launch)
};
Occupancy occupancy(const BlockUsage& usage, const SmLimits& sm = h100());

/// Little's law: the bytes that must be in flight to move `bytes_per_s` when each request takes `latency_s`.
double bytes_in_flight(double bytes_per_s, double latency_s);

/// Waves: `blocks` blocks, `resident` at a time on each of `sms` SMs, of equal work. The time in units of one full
/// wave, counting a partial last wave as a full one (its SMs still take a block's time) ...
double waves(std::int64_t blocks, int sms, int resident);
/// ... and the share of the SMs' block slots that do work over those waves (1: no tail).
double wave_efficiency(std::int64_t blocks, int sms, int resident);

}  // namespace lab00::cpu
