#include <harness/huge_pages.hpp>

#include <sys/mman.h>

#include <cstdlib>

namespace harness {

void* huge_page_allocation(std::size_t bytes) noexcept {
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded > 0 ? rounded : kHugePageBytes);
  if (p) ::madvise(p, rounded, MADV_HUGEPAGE);  // before the first touch: the faults then come 2 MiB at a time
  return p;
}

}  // namespace harness
