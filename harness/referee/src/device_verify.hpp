#pragma once
// Checks done on the GPU, so that every timed run can be verified at its large shape in milliseconds: the same rule as
// compare() (|got - expected| <= atol + rtol * |expected|, NaN only where NaN is expected, infinities equal), and an
// exact comparison of two byte ranges (an input against its pristine copy). Internal to the harness.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace harness::detail {

/// How many elements failed, and the index of the first that did (count when none).
struct DeviceMismatches {
  std::uint64_t count = 0;
  std::uint64_t first = 0;
};

/// Element k compares got[indices ? indices[k] : k] with expected[k] under atol[per_element ? k : 0] and rtol.
/// Synchronous.
template <class T>
DeviceMismatches compare_on_device(const T* got, const double* expected, const std::size_t* indices,
                                   const double* atol, bool atol_per_element, double rtol, std::size_t count);

/// Element k of `got` against element k of `expected` (same type) under one atol and rtol. Synchronous.
template <class T>
DeviceMismatches compare_arrays_on_device(const T* got, const T* expected, double atol, double rtol,
                                          std::size_t count);

/// The 4-byte words in which `a` and `b` differ (`bytes` is a multiple of 4). Synchronous.
DeviceMismatches differing_words(const void* a, const void* b, std::size_t bytes);

}  // namespace harness::detail
