#pragma once
/// @file parallel.hpp
/// @brief Host loops over large arrays split over the machine's cores: generating 2^28 inputs, comparing 2^26
/// outputs with their reference. The referee does this between GPU runs, where one core left the GPU idle for seconds.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace harness {

/// How parallel_chunks() splits [0, n): at most one chunk per hardware thread, none shorter than `min_chunk` (a
/// thread costs tens of microseconds), at least one (also for n = 0).
inline std::size_t parallel_chunk_count(std::size_t n, std::size_t min_chunk) {
  // Asked once: the C library answers by reading /sys, and comparisons of single elements come here millions of
  // times (a fully wrong output's hint classification took 267 s for 2^22 elements when each call asked again).
  static const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, std::min(cores, n / std::max<std::size_t>(1, min_chunk)));
}

/// Splits [0, n) into parallel_chunk_count(n, min_chunk) contiguous chunks and calls `fn(chunk, begin, end)` for each,
/// chunk k covering elements before chunk k + 1's. Chunk 0 runs on the calling thread, the others on threads of their
/// own, all joined before it returns; then the first chunk's exception, if any chunk threw, is rethrown. Returns
/// the number of chunks.
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
  for (std::size_t k = 1; k < chunks; ++k) pool.emplace_back(run, k);
  run(0);
  for (auto& thread : pool) thread.join();
  for (const auto& e : failed)  // what a chunk threw, rethrown on the caller's thread once all have ended
    if (e) std::rethrow_exception(e);
  return chunks;
}

}  // namespace harness
