#pragma once
// A 32-bit memset on the GPU, which the runtime API lacks: how buffers get their guard zones and their poison.
// Internal to the harness.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace harness::detail {

/// Fills `bytes` bytes at `dst` (4-byte aligned) with the little-endian pattern of `word`, byte k getting byte k % 4
/// of it, on `stream` (asynchronous).
void fill_words(void* dst, std::size_t bytes, std::uint32_t word, cudaStream_t stream);

}  // namespace harness::detail
