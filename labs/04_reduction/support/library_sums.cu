// Lab 04's library peers (see library_sums.hpp).
#include "support/library_sums.hpp"

#include <harness/cuda_check.hpp>

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cstddef>
#include <map>

namespace lab04 {
namespace {

/// Device memory that only grows. Never freed: the caches live until the process ends, and freeing at exit would
/// race the CUDA runtime's own teardown.
struct Scratch {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  void* at_least(std::size_t needed) {
    if (needed > bytes) {
      if (ptr) CUDA_CHECK(cudaFree(ptr));
      CUDA_CHECK(cudaMalloc(&ptr, needed));
      bytes = needed;
    }
    return ptr;
  }
};

/// Thrust's temporary allocations, served from blocks kept after their first use (thrust calls deallocate when a
/// reduction ends; the block goes back to the free list instead of to cudaFree).
class CachingAllocator {
 public:
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) {
    const auto it = free_.lower_bound(static_cast<std::size_t>(bytes));
    if (it != free_.end()) {
      char* p = it->second;
      used_.emplace(p, it->first);
      free_.erase(it);
      return p;
    }
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, static_cast<std::size_t>(bytes)));
    used_.emplace(static_cast<char*>(p), static_cast<std::size_t>(bytes));
    return static_cast<char*>(p);
  }
  void deallocate(char* p, std::size_t) {
    const auto it = used_.find(p);
    if (it == used_.end()) return;
    free_.emplace(it->second, p);
    used_.erase(it);
  }

 private:
  std::multimap<std::size_t, char*> free_;
  std::map<char*, std::size_t> used_;
};

}  // namespace

void cub_sum(const float* x, float* result, std::int64_t n, cudaStream_t stream) {
  static auto* scratch = new Scratch;  // see Scratch: deliberately never deleted
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, result, n, stream));
  void* temp = scratch->at_least(bytes);
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, x, result, n, stream));
}

float thrust_sum(const float* x, std::int64_t n, cudaStream_t stream) {
  static auto* allocator = new CachingAllocator;  // deliberately never deleted, like cub_sum's scratch
  return thrust::reduce(thrust::cuda::par(*allocator).on(stream), x, x + n, 0.0f);
}

}  // namespace lab04
