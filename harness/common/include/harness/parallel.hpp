#pragma once
/// @file parallel.hpp
/// @brief Host loops over large arrays split over the machine's cores: generating 2^28 inputs, comparing 2^26
/// outputs with their reference. The referee does this between GPU runs, where one core left the GPU idle for seconds.
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace harness {

/// How parallel_chunks() splits [0, n): at most one chunk per hardware thread, none shorter than `min_chunk` (a
/// thread costs tens of microseconds), at least one (also for n = 0).
inline std::size_t parallel_chunk_count(std::size_t n, std::size_t min_chunk) {
  // Asked once: comparisons of single elements come here millions of times (a fully wrong output's hint
  // classification took 267 s for 2^22 elements when each call asked the C library, which reads /sys). The CPUs this
  // process may run on, not the machine's: a batch's worker on a host of several GPUs has its own share of them.
  static const std::size_t cores = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
      return static_cast<std::size_t>(CPU_COUNT(&set));
    return static_cast<std::size_t>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return std::max<std::size_t>(1, std::min(cores, n / std::max<std::size_t>(1, min_chunk)));
}

/// Splits [0, n) into parallel_chunk_count(n, min_chunk) contiguous chunks and calls `fn(chunk, begin, end)` for each,
/// chunk k covering elements before chunk k + 1's. Chunk 0 runs on the calling thread, the others on threads of their
/// own (on the calling thread too, where a thread cannot be started), all joined before it returns; then the first
/// chunk's exception, if any chunk threw, is rethrown. Returns the number of chunks.
template <class F>
std::size_t parallel_chunks(std::size_t n, std::size_t min_chunk, F&& fn) {
  const std::size_t chunks = parallel_chunk_count(n, min_chunk);
  std::vector<std::exception_ptr> failed(chunks);
  const auto run = [&](std::size_t k) {
    try {
      fn(k, n * k / chunks, n * (k + 1) / chunks);
    } catch (...) {
      failed[k] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::size_t started = 1;
  try {
    for (; started < chunks; ++started) pool.emplace_back(run, started);
  } catch (const std::system_error&) {  // no thread to be had (a process limit): the rest run here
  }
  run(0);
  for (std::size_t k = started; k < chunks; ++k) run(k);
  for (auto& thread : pool) thread.join();
  for (const auto& e : failed)  // what a chunk threw, rethrown on the caller's thread once all have ended
    if (e) std::rethrow_exception(e);
  return chunks;
}

/// A sum in index order, with what harness::integer_sum_tolerance() needs to judge a float32 sum of the same terms.
struct OrderedSum {
  double value = 0;  ///< the sum
  double abs = 0;    ///< the sum of the terms' magnitudes
  double peak = 0;   ///< the largest |prefix sum| in index order
};

/// The sum of term(i) for i in [0, n), over the machine's cores in one pass: each chunk sums its terms and keeps
/// the highest and lowest of its own prefix sums; the largest |prefix sum| of the whole is then the larger of
/// |before + highest| and |before + lowest| over the chunks (`before`: the sum of the chunks before one), since
/// |before + p| is largest at an extreme of p. The result is the one loop's in index order exactly when every
/// partial sum is an integer below 2^53 in magnitude (the labs' integer inputs); otherwise it differs by rounding.
template <class Term>
OrderedSum ordered_sum(std::size_t n, Term&& term) {
  constexpr std::size_t kMinChunk = std::size_t{1} << 20;
  struct Chunk {
    double value = 0, abs = 0, highest = 0, lowest = 0;
  };
  std::vector<Chunk> chunks(parallel_chunk_count(n, kMinChunk));
  parallel_chunks(n, kMinChunk, [&](std::size_t k, std::size_t begin, std::size_t end) {
    Chunk c;
    for (std::size_t i = begin; i < end; ++i) {
      const double t = term(i);
      c.value += t;
      c.abs += t < 0 ? -t : t;
      c.highest = std::max(c.highest, c.value);
      c.lowest = std::min(c.lowest, c.value);
    }
    chunks[k] = c;
  });
  OrderedSum s;
  for (const Chunk& c : chunks) {  // s.value is the sum of the chunks before this one
    s.peak = std::max({s.peak, std::fabs(s.value + c.highest), std::fabs(s.value + c.lowest)});
    s.value += c.value;
    s.abs += c.abs;
  }
  return s;
}

}  // namespace harness
