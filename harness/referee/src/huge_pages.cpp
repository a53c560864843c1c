#include <harness/huge_pages.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

#include <harness/parallel.hpp>

namespace harness {

void* huge_page_allocation(std::size_t bytes) noexcept {
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded > 0 ? rounded : kHugePageBytes);
  if (!p) return p;
  ::madvise(p, rounded, MADV_HUGEPAGE);  // before the first touch: the faults then come 2 MiB at a time
  // The first touch on threads of its own: each fault has the kernel clear its page, and a std::vector's own
  // value-initialization would touch every page on one thread. A byte a base page, so that a block the kernel could not
  // give huge pages is faulted in whole too; written before the caller's first write, whatever it writes. Two threads,
  // not the process's every core: clearing goes as fast as memory takes writes, and on a host of several GPUs another
  // worker's lab 07 copies cross the same memory (with a thread a core, two H200s' pinned_memory ratios of the
  // reference as a student strayed to 1.025: results/2026-11-29-h200x2-6304b4f).
  constexpr std::size_t kBasePage = 4096, kThreads = 2, kPagesATouch = kHugePageBytes / kBasePage * 16;  // 32 MiB
  const std::size_t pages = rounded / kBasePage;
  auto* bytes_at = static_cast<volatile unsigned char*>(p);
  try {
    parallel_chunks(pages, std::max(kPagesATouch, (pages + kThreads - 1) / kThreads),
                    [&](std::size_t, std::size_t first, std::size_t last) {
                      for (std::size_t page = first; page < last; ++page) bytes_at[page * kBasePage] = 0;
                    });
  } catch (...) {  // nothing the touch throws: what the chunks left untouched faults in at the caller's first write
  }
  return p;
}

}  // namespace harness
