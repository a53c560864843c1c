// The kernel behind fill_words.hpp: one grid-stride pass.
#include "fill_words.hpp"

#include <harness/cuda_check.hpp>

namespace harness::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__global__ void fill_kernel(unsigned* dst, std::size_t words, unsigned word) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < words;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[k] = word;
}

}  // namespace

void fill_words(void* dst, std::size_t bytes, std::uint32_t word, cudaStream_t stream) {
  const std::size_t words = bytes / 4, tail = bytes % 4;
  if (words > 0) {
    fill_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<unsigned*>(dst), words, word);
    CUDA_CHECK(cudaGetLastError());
  }
  for (std::size_t k = 0; k < tail; ++k)  // the word's bytes in memory order (little-endian), continuing the pattern
    CUDA_CHECK(cudaMemsetAsync(static_cast<unsigned char*>(dst) + words * 4 + k,
                               static_cast<unsigned char>(word >> (8 * k)), 1, stream));
}

}  // namespace harness::detail
