// Timing for the experiments' standalone benches (each built alone with nvcc, without the harness): every variant
// run once per round, in the same order, each run after an L2 flush and timed by events around it alone, so that the
// variants share the GPU's state round by round; and the median and extremes of a variant's rounds.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "cuda_check.cuh"

/// Runs `launch(variant)` for every element of `variants` in each of `rounds` rounds, and appends each run's time in
/// milliseconds to that variant's `ms`. Before each run, `flush_bytes` of `flush` are written on `stream`, which
/// evicts the inputs from L2 (50 to 60 MiB on Hopper: give it several times that).
template <class Variants, class Launch>
void time_rounds(Variants& variants, int rounds, cudaStream_t stream, void* flush, std::size_t flush_bytes,
                 Launch launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int round = 0; round < rounds; ++round) {
    for (auto& variant : variants) {
      CHECK(cudaMemsetAsync(flush, round & 0xff, flush_bytes, stream));
      CHECK(cudaEventRecord(start, stream));
      launch(variant);
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      variant.ms.push_back(ms);
    }
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
}

/// A variant's times summed up: the median (the upper one of an even count), the fastest and the slowest.
struct Spread {
  double median_ms, min_ms, max_ms;
};
inline Spread spread(std::vector<float> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}
inline double median(const std::vector<float>& ms) { return spread(ms).median_ms; }

/// Every variant launched once (its warm-up) on `stream`, each into `out` poisoned with 0xff bytes first, and its
/// `bytes` of output compared bit for bit with the first variant's: the index of the first variant that differs, or
/// variants.size() when all agree. For variants that compute the same values in the same order.
template <class Variants, class Launch>
std::size_t first_differing(Variants& variants, cudaStream_t stream, void* out, std::size_t bytes, Launch launch) {
  std::vector<unsigned char> expected(bytes), got(bytes);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    CHECK(cudaMemsetAsync(out, 0xff, bytes, stream));
    launch(variants[i]);
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(i == 0 ? expected.data() : got.data(), out, bytes, cudaMemcpyDeviceToHost));
    if (i > 0 && std::memcmp(expected.data(), got.data(), bytes) != 0) return i;
  }
  return variants.size();
}
