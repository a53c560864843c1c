#pragma once
/// @file huge_pages.hpp
/// @brief Large host arrays of the referee on transparent huge pages.
///
/// `labN time` fills gigabytes of fresh host memory at the timed shape (inputs, CPU references in double), and its
/// "generate" phase went mostly to the kernel faulting in and clearing 4 KiB pages one at a time (perf, on the CI
/// machine, with experiments/generate_cost/bench.cpp): lab 01's scale at 2^28 took 1.83-1.86 s there on an H200
/// machine, 0.86-0.99 s with huge pages (experiments/grading_overhead/measure.sh). Linux's default THP mode is
/// "madvise", and glibc's malloc does not ask, so the lab binary's operator new
/// (harness/referee/src/lab/huge_pages_new.cpp) does, for large blocks.
#include <cstddef>

namespace harness {

/// Blocks at least this large come from huge_page_allocation(); smaller ones from malloc as usual.
inline constexpr std::size_t kHugePageAllocationFrom = std::size_t{16} << 20;
/// The huge page size asked for (x86-64 and arm64 with 4 KiB base pages).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// `bytes` of uninitialized memory aligned to kHugePageBytes and advised MADV_HUGEPAGE (a hint: where the kernel has
/// no THP it is ordinary memory), to be released with std::free; nullptr when the C library has no memory.
void* huge_page_allocation(std::size_t bytes) noexcept;

}  // namespace harness
