// random_on_device(): the host generators' values (random.hpp's detail::random_value), made on the GPU, so that fresh
// inputs for every timed run cost a write of the inputs and no host work.
#include <harness/cuda_check.hpp>
#include <harness/random.hpp>

namespace harness {
namespace {

__global__ void random_kernel(RandomRecipe recipe, std::uint64_t seed, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = detail::random_value(recipe, seed, i);
}

}  // namespace

void random_on_device(const RandomRecipe& recipe, std::uint64_t seed, float* out, std::size_t n) {
  if (n == 0) return;
  random_kernel<<<1024, 256>>>(recipe, seed, out, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace harness
