// The lab binary's operator new and delete: large blocks on transparent huge pages, kept for the next block of their
// size once deleted (harness/huge_pages.hpp says why). Only the referee links this; runners, which hold student code,
// allocate as the C++ library does.
#include <harness/huge_pages.hpp>

#include <cstdlib>
#include <new>

void* operator new(std::size_t bytes) {
  for (;;) {
    void* p = bytes >= harness::kHugePageAllocationFrom ? harness::huge_page_block(bytes)
                                                        : std::malloc(bytes > 0 ? bytes : 1);
    if (p) return p;
    const std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void operator delete(void* p) noexcept {
  if (!harness::huge_page_block_given_back(p)) std::free(p);
}

void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
// new[] and delete[] keep the C++ library's definitions, which call these; the aligned forms keep theirs, which pair
// with each other (aligned_alloc, free) and never see these blocks.
