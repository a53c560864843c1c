// The referee's large host arrays are asked to live on huge pages (harness/huge_pages.hpp).
#include <harness/huge_pages.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The VmFlags line of the mapping of /proc/self/smaps that holds `address`, or "" when none does.
std::string vm_flags_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

}  // namespace

TEST_CASE("a large block is aligned to a huge page, advised to use huge pages, usable and freed with free",
          "[harness][huge_pages]") {
  const std::size_t bytes = harness::kHugePageAllocationFrom + 12345;  // not a multiple: the advice covers it all
  auto* p = static_cast<unsigned char*>(harness::huge_page_allocation(bytes));
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % harness::kHugePageBytes == 0);
  std::memset(p, 7, bytes);
  CHECK(p[bytes - 1] == 7);
  const std::string flags = vm_flags_of(p + bytes - 1);
  INFO(flags);
  // "hg": MADV_HUGEPAGE is in force on the mapping holding the block's last byte (set even where THP is off).
  CHECK(flags.find(" hg") != std::string::npos);
  std::free(p);
}

namespace {

/// How many of the pages of [p, p + bytes) are in memory (mincore).
std::size_t resident_pages(const void* p, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_memory((bytes + page - 1) / page);
  if (::mincore(const_cast<void*>(p), bytes, in_memory.data()) != 0) return 0;
  std::size_t n = 0;
  for (const unsigned char r : in_memory) n += r & 1;
  return n;
}

}  // namespace

// The lab binary's operator delete gives large blocks back (huge_pages_new.cpp): the next of the same size reuses one,
// its pages faulted in and cleared once, not again for every exercise and every seed.
TEST_CASE("a large block given back is handed out again for its size, its pages in memory, and not for another",
          "[harness][huge_pages]") {
  const std::size_t bytes = std::size_t{64} << 20;
  auto* first = static_cast<unsigned char*>(harness::huge_page_block(bytes));
  REQUIRE(first != nullptr);
  std::memset(first, 1, bytes);
  REQUIRE(harness::huge_page_block_given_back(first));
  void* other = harness::huge_page_block(bytes + 1);  // another size, rounded to huge pages: a block of its own
  CHECK(other != first);
  void* again = harness::huge_page_block(bytes - 5);  // the same size once rounded
  CHECK(again == first);
  CHECK(resident_pages(again, bytes) == bytes / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
  CHECK(harness::huge_page_block_given_back(other));
  CHECK(harness::huge_page_block_given_back(again));
}

TEST_CASE("a block that huge_page_block did not hand out is not taken back", "[harness][huge_pages]") {
  void* small = std::malloc(64);
  CHECK_FALSE(harness::huge_page_block_given_back(small));
  std::free(small);
  void* aligned = harness::huge_page_allocation(harness::kHugePageAllocationFrom);  // aligned, but not handed out
  CHECK_FALSE(harness::huge_page_block_given_back(aligned));
  std::free(aligned);
  CHECK_FALSE(harness::huge_page_block_given_back(nullptr));
}
