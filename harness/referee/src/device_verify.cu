// The kernels behind device_verify.hpp. One grid-stride pass each: a timed run at 2^28 elements is checked by reading
// its output and the reference once (about 12 bytes per element, a millisecond on a current GPU).
#include "device_verify.hpp"

#include <harness/cuda_check.hpp>
#include <harness/device.hpp>

namespace harness::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__device__ void record(unsigned long long* out, std::size_t index) {
  atomicAdd(&out[0], 1ull);
  atomicMin(&out[1], static_cast<unsigned long long>(index));
}

// atol: one per element, or (atol == nullptr) `atol_all` for every element.
template <class T, class E>
__global__ void compare_kernel(const T* got, const E* expected, const std::size_t* indices, const double* atol,
                               bool per_element, double atol_all, double rtol, std::size_t count,
                               unsigned long long* out) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double g = static_cast<double>(got[indices ? indices[k] : k]);
    const double e = static_cast<double>(expected[k]);
    const double a = atol ? atol[per_element ? k : 0] : atol_all;
    bool ok;
    if (isnan(e)) {
      ok = isnan(g);
    } else if (isinf(e)) {
      ok = g == e;
    } else {
      ok = fabs(g - e) <= a + rtol * fabs(e);  // false for a NaN or infinite g
    }
    if (!ok) record(out, k);
  }
}

__global__ void words_kernel(const unsigned* a, const unsigned* b, std::size_t words, unsigned long long* out) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < words;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    if (a[k] != b[k]) record(out, k);
}

/// The two counters every kernel above fills: {failures, first failing index}.
class Counters {
 public:
  explicit Counters(std::size_t count) : buffer_(2) {
    const unsigned long long init[2] = {0, count};
    CUDA_CHECK(cudaMemcpy(buffer_.get(), init, sizeof init, cudaMemcpyHostToDevice));
  }
  [[nodiscard]] unsigned long long* get() const { return buffer_.get(); }
  [[nodiscard]] DeviceMismatches read() const {
    CUDA_CHECK(cudaGetLastError());
    unsigned long long host[2];
    CUDA_CHECK(cudaMemcpy(host, buffer_.get(), sizeof host, cudaMemcpyDeviceToHost));
    return {host[0], host[1]};
  }

 private:
  DeviceBuffer<unsigned long long> buffer_;
};

}  // namespace

template <class T>
DeviceMismatches compare_on_device(const T* got, const double* expected, const std::size_t* indices,
                                   const double* atol, bool atol_per_element, double rtol, std::size_t count) {
  Counters counters(count);
  if (count > 0)
    compare_kernel<<<kBlocks, kThreads>>>(got, expected, indices, atol, atol_per_element, 0.0, rtol, count,
                                          counters.get());
  return counters.read();
}

template <class T>
DeviceMismatches compare_arrays_on_device(const T* got, const T* expected, double atol, double rtol,
                                          std::size_t count) {
  Counters counters(count);
  if (count > 0)
    compare_kernel<<<kBlocks, kThreads>>>(got, expected, static_cast<const std::size_t*>(nullptr),
                                          static_cast<const double*>(nullptr), false, atol, rtol, count,
                                          counters.get());
  return counters.read();
}

DeviceMismatches differing_words(const void* a, const void* b, std::size_t bytes) {
  const std::size_t words = bytes / 4;
  Counters counters(words);
  if (words > 0)
    words_kernel<<<kBlocks, kThreads>>>(static_cast<const unsigned*>(a), static_cast<const unsigned*>(b), words,
                                        counters.get());
  return counters.read();
}

template DeviceMismatches compare_on_device<float>(const float*, const double*, const std::size_t*, const double*,
                                                   bool, double, std::size_t);
template DeviceMismatches compare_arrays_on_device<float>(const float*, const float*, double, double, std::size_t);
template DeviceMismatches compare_arrays_on_device<std::int32_t>(const std::int32_t*, const std::int32_t*, double,
                                                                 double, std::size_t);
template DeviceMismatches compare_on_device<std::int32_t>(const std::int32_t*, const double*, const std::size_t*,
                                                          const double*, bool, double, std::size_t);

}  // namespace harness::detail
