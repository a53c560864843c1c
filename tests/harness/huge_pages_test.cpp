// The referee's large host arrays are asked to live on huge pages (harness/huge_pages.hpp).
#include <harness/huge_pages.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

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
