// Reads the fatbinary of a host object (fatbin.hpp): ELF64 section headers, then the fatbinary's image headers.
#include "fatbin.hpp"

#include <elf.h>

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace kit_test {
namespace {

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

template <typename T>
T read_at(std::string_view bytes, std::size_t offset, const char* what) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
    throw std::runtime_error(std::string("truncated ") + what);
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

struct Section {
  std::string name;
  std::string_view bytes;
};

std::vector<Section> sections(std::string_view bytes) {
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error("not a 64-bit ELF file");
  const auto header = read_at<Elf64_Ehdr>(bytes, 0, "ELF header");
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shstrndx >= header.e_shnum)
    throw std::runtime_error("unexpected ELF section table");
  std::vector<Elf64_Shdr> headers;
  for (std::size_t i = 0; i < header.e_shnum; ++i)
    headers.push_back(read_at<Elf64_Shdr>(bytes, header.e_shoff + i * sizeof(Elf64_Shdr), "ELF section header"));
  const auto& names = headers[header.e_shstrndx];
  if (names.sh_offset > bytes.size() || bytes.size() - names.sh_offset < names.sh_size)
    throw std::runtime_error("truncated ELF section names");
  const auto name_table = bytes.substr(names.sh_offset, names.sh_size);
  std::vector<Section> result;
  for (const auto& h : headers) {
    Section s;
    if (h.sh_name < name_table.size()) s.name = std::string(name_table.substr(h.sh_name).data());
    if (h.sh_type != SHT_NOBITS && h.sh_type != SHT_NULL) {
      if (h.sh_offset > bytes.size() || bytes.size() - h.sh_offset < h.sh_size)
        throw std::runtime_error("truncated ELF section " + s.name);
      s.bytes = bytes.substr(h.sh_offset, h.sh_size);
    }
    result.push_back(s);
  }
  return result;
}

// One image: its header as nvcc 12 and 13 write it (offsets from the image's start).
FatbinImage image(std::string_view entry, std::uint32_t header_size, std::uint64_t payload_size) {
  FatbinImage image;
  const auto kind = read_at<std::uint16_t>(entry, 0, "fatbinary image kind");
  image.kind = kind == 1 ? FatbinImage::Kind::ptx : kind == 2 ? FatbinImage::Kind::elf : FatbinImage::Kind::other;
  image.arch = read_at<std::uint32_t>(entry, 28, "fatbinary image architecture");
  const auto name_offset = read_at<std::uint32_t>(entry, 32, "fatbinary image name");
  const auto name_length = read_at<std::uint32_t>(entry, 36, "fatbinary image name");
  if (name_length > 0 && name_offset < header_size && header_size - name_offset >= name_length) {
    image.name = std::string(entry.substr(name_offset, name_length));
    image.name.erase(image.name.find('\0') == std::string::npos ? image.name.size() : image.name.find('\0'));
  }
  const auto payload = entry.substr(header_size, payload_size);
  if (image.kind == FatbinImage::Kind::elf && payload.size() >= SELFMAG &&
      std::memcmp(payload.data(), ELFMAG, SELFMAG) == 0)
    for (const auto& s : sections(payload)) image.sections.push_back(s.name);
  return image;
}

}  // namespace

std::vector<std::string> elf_section_names(const std::string& bytes) {
  std::vector<std::string> names;
  for (const auto& s : sections(bytes)) names.push_back(s.name);
  return names;
}

std::vector<FatbinImage> fatbin_images(const std::string& bytes) {
  std::vector<FatbinImage> images;
  for (const auto& section : sections(bytes)) {
    if (section.name != ".nv_fatbin") continue;
    const auto data = section.bytes;
    // One fatbinary after another, each starting 8-byte aligned.
    for (std::size_t at = 0; at + 16 <= data.size();) {
      if (read_at<std::uint32_t>(data, at, "fatbinary header") != kFatbinMagic) {
        at += 8;
        continue;
      }
      const auto header_size = read_at<std::uint16_t>(data, at + 6, "fatbinary header");
      const auto size = read_at<std::uint64_t>(data, at + 8, "fatbinary header");
      if (data.size() - at - header_size < size) throw std::runtime_error("fatbinary runs past .nv_fatbin");
      const auto body = data.substr(at + header_size, size);
      for (std::size_t entry = 0; entry < body.size();) {
        const auto entry_header = read_at<std::uint32_t>(body, entry + 4, "fatbinary image header");
        const auto payload = read_at<std::uint64_t>(body, entry + 8, "fatbinary image header");
        if (entry_header < 48 || body.size() - entry < entry_header || body.size() - entry - entry_header < payload)
          throw std::runtime_error("fatbinary image runs past its fatbinary");
        images.push_back(image(body.substr(entry, entry_header + payload), entry_header, payload));
        entry += entry_header + payload;
      }
      at += header_size + size;
      at = (at + 7) / 8 * 8;
    }
  }
  return images;
}

}  // namespace kit_test
