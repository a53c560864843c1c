#pragma once
// What a hostile submission does to reach a function no static check sees it name: from its own code's address to the
// program's ELF header in memory, to the dynamic loader's list of loaded objects (the program's DT_DEBUG entry), to
// each object's dynamic symbol table. Then dlopen, pthread_create, open are a pointer away, whatever the static check
// refused by name. The course's tests use it to show what the runner's lock-down leaves of that (sandbox.hpp):
// tests/harness/lockdown_test.cpp, and solutions/01_coalescing/hostile/scale-walks_link_map.cu.
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace link_map_walk {

/// The ELF header of the program whose code `address` is in: the nearest page at or below it that starts with ELF's
/// magic (a program's first segment, headers included, and its code are mapped one after the other).
inline const ElfW(Ehdr) * program_header(const void* address) {
  auto page = reinterpret_cast<std::uintptr_t>(address) & ~std::uintptr_t{4095};
  while (std::memcmp(reinterpret_cast<const void*>(page), ELFMAG, SELFMAG) != 0) page -= 4096;
  return reinterpret_cast<const ElfW(Ehdr)*>(page);
}

/// The dynamic loader's first loaded object (the program), from the program's DT_DEBUG entry; nullptr without one.
inline const link_map* loaded_objects(const ElfW(Ehdr) * program) {
  const auto base = reinterpret_cast<std::uintptr_t>(program);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(base + program->e_phoff);
  std::uintptr_t bias = base;  // a position-independent program's first segment starts at 0
  const ElfW(Phdr)* dynamic = nullptr;
  for (int i = 0; i < program->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) bias = base - (ph[i].p_vaddr & ~std::uintptr_t{4095});
    if (ph[i].p_type == PT_DYNAMIC) dynamic = &ph[i];
  }
  if (!dynamic) return nullptr;
  for (const auto* d = reinterpret_cast<const ElfW(Dyn)*>(bias + dynamic->p_vaddr); d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_DEBUG && d->d_un.d_ptr) return reinterpret_cast<const r_debug*>(d->d_un.d_ptr)->r_map;
  return nullptr;
}

/// The address of the function called `name` in any loaded object, or nullptr.
inline void* find(const void* own_code, const char* name) {
  for (const link_map* m = loaded_objects(program_header(own_code)); m; m = m->l_next) {
    std::uintptr_t symtab = 0, strtab = 0;
    for (const ElfW(Dyn)* d = m->l_ld; d && d->d_tag != DT_NULL; ++d) {
      // The dynamic loader rewrote most objects' entries as addresses; the vDSO's are still offsets.
      const std::uintptr_t at = d->d_un.d_ptr < m->l_addr ? m->l_addr + d->d_un.d_ptr : d->d_un.d_ptr;
      if (d->d_tag == DT_SYMTAB) symtab = at;
      if (d->d_tag == DT_STRTAB) strtab = at;
    }
    if (!symtab || strtab <= symtab) continue;
    // The string table follows the symbol table: their distance counts the symbols.
    const auto* sym = reinterpret_cast<const ElfW(Sym)*>(symtab);
    for (std::size_t k = 0; k < (strtab - symtab) / sizeof(ElfW(Sym)); ++k)
      if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_shndx != SHN_UNDEF && sym[k].st_value != 0 &&
          std::strcmp(reinterpret_cast<const char*>(strtab) + sym[k].st_name, name) == 0)
        return reinterpret_cast<void*>(m->l_addr + sym[k].st_value);
  }
  return nullptr;
}

}  // namespace link_map_walk
