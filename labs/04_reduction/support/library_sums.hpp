#pragma once
// Lab 04's library peers: the same sum through CUB and Thrust, timed beside every stage in the same run.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab04 {

/// cub::DeviceReduce::Sum of x[0..n) into *result, on `stream`, without synchronizing. Its temporary storage is
/// allocated the first time a size needs more than the last allocation (the harness's warm-up runs), never while
/// timed.
void cub_sum(const float* x, float* result, std::int64_t n, cudaStream_t stream);

/// thrust::reduce of x[0..n) on `stream`, with temporary storage from a cache (allocated once, like cub_sum's).
/// thrust::reduce returns the sum to the host, so it copies the result back and waits for it: that copy and
/// synchronization are part of what it costs.
float thrust_sum(const float* x, std::int64_t n, cudaStream_t stream);

}  // namespace lab04
