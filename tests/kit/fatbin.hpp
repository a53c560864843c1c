#pragma once
// What a host object compiled by nvcc carries for the GPU, read from its bytes: the images of its fatbinary (the ELF
// section .nv_fatbin), as `cuobjdump -lelf` and `cuobjdump -lptx` list them. The kit tests check the student kit's
// prebuilt references with it on machines without cuobjdump (CI's toolkit has nvcc, not cuobjdump), and against
// cuobjdump where it is installed.
//
// The fatbinary layout (no public header describes it past the wrapper of fatbinary_section.h): a 16-byte header
// (magic 0xBA55ED50, version, header size, size of what follows), then images, each a header (kind: 1 PTX, 2 ELF;
// its own size; the payload's size; the architecture, e.g. 90; the offset and length of its name) and a payload.
#include <cstdint>
#include <string>
#include <vector>

namespace kit_test {

/// One image of a fatbinary.
struct FatbinImage {
  enum class Kind { ptx, elf, other };
  Kind kind = Kind::other;
  /// The architecture it is for: 90 for sm_90 SASS or compute_90 PTX.
  unsigned arch = 0;
  /// The name nvcc gave it (the source file it compiled).
  std::string name;
  /// An ELF image's section names; empty where its payload is no plain ELF file (compressed).
  std::vector<std::string> sections;
};

/// The images of every fatbinary in the ELF object `bytes` (none if it has no .nv_fatbin section). Throws
/// std::runtime_error where `bytes` is no 64-bit ELF object or a fatbinary's sizes run past its section.
std::vector<FatbinImage> fatbin_images(const std::string& bytes);

/// The section names of the 64-bit ELF file `bytes`; throws std::runtime_error where it is none.
std::vector<std::string> elf_section_names(const std::string& bytes);

}  // namespace kit_test
