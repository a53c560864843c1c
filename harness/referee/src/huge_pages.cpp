#include <harness/huge_pages.hpp>

#include <sys/mman.h>

#include <cstdlib>

#include <harness/parallel.hpp>

namespace harness {

void* huge_page_allocation(std::size_t bytes) noexcept {
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded > 0 ? rounded : kHugePageBytes);
  if (!p) return p;
  ::madvise(p, rounded, MADV_HUGEPAGE);  // before the first touch: the faults then come 2 MiB at a time
  // The first touch over the process's cores: each fault has the kernel clear its page, and a std::vector's own
  // value-initialization would touch every page on one thread. A byte a base page, so that a block the kernel could not
  // give huge pages is faulted in whole too; written before the caller's first write, whatever it writes.
  constexpr std::size_t kBasePage = 4096, kPagesATouch = kHugePageBytes / kBasePage * 16;  // 32 MiB a chunk at least
  auto* bytes_at = static_cast<volatile unsigned char*>(p);
  try {
    parallel_chunks(rounded / kBasePage, kPagesATouch, [&](std::size_t, std::size_t first, std::size_t last) {
      for (std::size_t page = first; page < last; ++page) bytes_at[page * kBasePage] = 0;
    });
  } catch (...) {  // nothing the touch throws: what the chunks left untouched faults in at the caller's first write
  }
  return p;
}

}  // namespace harness
