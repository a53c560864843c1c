#include <harness/huge_pages.hpp>

#include <sys/mman.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace harness {

void* huge_page_allocation(std::size_t bytes) noexcept {
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded > 0 ? rounded : kHugePageBytes);
  if (p) ::madvise(p, rounded, MADV_HUGEPAGE);  // before the first touch: the faults then come 2 MiB at a time
  return p;
}

namespace {

// Tables of fixed size with a constexpr mutex, constant-initialized: operator new may come here from another file's
// static constructor, before any constructor of this file's could have run, and allocating here would come back.
struct Block {
  void* p = nullptr;
  std::size_t bytes = 0;  // rounded to huge pages
};
constexpr std::size_t kSlots = 64;  // blocks handed out at once that can come back to be kept; more are just freed
std::mutex blocks_mutex;
std::array<Block, kSlots> handed_out, kept;
std::size_t kept_bytes = 0;

std::size_t rounded_up(std::size_t bytes) { return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes; }

}  // namespace

void* huge_page_block(std::size_t bytes) noexcept {
  const std::size_t rounded = rounded_up(bytes > 0 ? bytes : 1);
  void* p = nullptr;
  {
    const std::lock_guard lock(blocks_mutex);
    for (Block& b : kept)
      if (b.p && b.bytes == rounded) {
        p = b.p;
        kept_bytes -= b.bytes;
        b = {};
        break;
      }
  }
  if (!p) p = huge_page_allocation(rounded);
  if (!p) return p;
  const std::lock_guard lock(blocks_mutex);
  for (Block& b : handed_out)
    if (!b.p) {
      b = {p, rounded};
      break;
    }
  return p;
}

bool huge_page_block_given_back(void* p) noexcept {
  // Every block handed out is aligned to a huge page; a malloc block almost never is: no lock for those.
  if (!p || reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes != 0) return false;
  {
    const std::lock_guard lock(blocks_mutex);
    Block* block = nullptr;
    for (Block& b : handed_out)
      if (b.p == p) block = &b;
    if (!block) return false;
    const Block back = *block;
    *block = {};
    if (kept_bytes + back.bytes <= kKeptHugePageBytes)
      for (Block& b : kept)
        if (!b.p) {
          b = back;
          kept_bytes += back.bytes;
          return true;
        }
  }
  std::free(p);  // beyond what is kept
  return true;
}

}  // namespace harness
