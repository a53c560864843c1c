#!/usr/bin/env bash
# What a submission that hangs only under compute-sanitizer costs, and whether it is graded fairly: lab 1's reference
# solution whose dot first launches a kernel that never ends whenever compute-sanitizer's libraries are loaded in its
# process (found by walking its link map, which names nothing the static check refuses), graded by `grade lab1
# --sanitize` from this tree. Every check passes without the tool; under each tool (memcheck, racecheck) dot hangs,
# and the lab binary ends
# each tool at its own limit (`--tool-limit`, the manifest's sanitize_s). Expected by the rules (docs/sanitizer.md):
# dot `timeout` with its correctness points, scale and column_sums `ok` with theirs and their timed runs, and the
# sanitizer step about each tool's limit over the lab and one more. OUT_DIR gets hut-console.txt (the grade's output,
# then the seconds), hut-lab1.json (its results) and hut-build.log.
#   experiments/sanitizer/hang_under_tool.sh OUT_DIR
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
exec > >(tee "$out/hut-console.txt") 2>&1
build=/tmp/hut-build
rm -rf "$build" && mkdir -p "$build"
# The submission: the reference with dot's launcher wrapped (made here from the solution, so it follows it), the
# wrapper put before the launchers' registration.
student=$build/hang_under_tool.cu
cat > "$build/wrapper.cu" <<'CU'
namespace {
__device__ int never_set = 0;
// Spins until never_set is not 0: forever.
__global__ void spin_forever() {
  while (*static_cast<volatile int*>(&never_set) == 0) {
  }
}

// Whether compute-sanitizer's libraries are loaded in this process: its link map, walked in memory from this code's
// ELF header as tests/exploits/01_coalescing/walks_link_map.cu does, which names nothing the static check refuses.
bool under_tool() {
  auto page = reinterpret_cast<std::uintptr_t>(&under_tool) & ~std::uintptr_t{4095};
  while (std::memcmp(reinterpret_cast<const void*>(page), ELFMAG, SELFMAG) != 0) page -= 4096;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(page);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(page + eh->e_phoff);
  std::uintptr_t bias = page;
  const ElfW(Phdr)* dynamic = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) bias = page - (ph[i].p_vaddr & ~std::uintptr_t{4095});
    if (ph[i].p_type == PT_DYNAMIC) dynamic = &ph[i];
  }
  if (!dynamic) return false;
  const link_map* m = nullptr;
  for (const auto* d = reinterpret_cast<const ElfW(Dyn)*>(bias + dynamic->p_vaddr); d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_DEBUG && d->d_un.d_ptr) m = reinterpret_cast<const r_debug*>(d->d_un.d_ptr)->r_map;
  for (; m; m = m->l_next)
    if (m->l_name && (std::strstr(m->l_name, "anitizer") || std::strstr(m->l_name, "TreeLauncher"))) return true;
  return false;
}
}  // namespace

// A kernel that never ends first, where compute-sanitizer watches this process.
void launch_dot_or_hang(const float* x, const float* y, float* result, std::int64_t n, cudaStream_t stream) {
  if (under_tool()) spin_forever<<<1, 1, 0, stream>>>();
  launch_dot(x, y, result, n, stream);
}

CU
awk -v wrapper="$build/wrapper.cu" '
  /^#include <algorithm>$/ { print; print "#include <cstdint>"; print "#include <cstring>"; print ""
                            print "#include <elf.h>"; print "#include <link.h>"; next }
  /^REGISTER_LAUNCHER\("scale"/ { while ((getline line < wrapper) > 0) print line }
  /^REGISTER_LAUNCHER\("dot", lab01::DotLauncher, launch_dot\);$/ { sub(/launch_dot\)/, "launch_dot_or_hang)") }
  { print }' "$root/solutions/01_coalescing/solution.cu" > "$student"
grep -q 'launch_dot_or_hang);' "$student" ||
  { echo "the solution's dot launcher line changed: update this script"; exit 1; }
cmake -S "$root" -B "$build" -G "Unix Makefiles" -DCOURSE_LABS="01_coalescing" -DLAB1_STUDENT_SOURCE="$student" \
  -DCMAKE_PREFIX_PATH="$root/.deps/root/usr" > "$out/hut-build.log" 2>&1 &&
  make -C "$build" -j"$(nproc)" lab1 grade >> "$out/hut-build.log" 2>&1 ||
  { echo "build failed"; tail -30 "$out/hut-build.log"; exit 1; }
cd "$build" || exit 1
chmod -R a+rX "$build"  # the runners run as nobody when this is root
start=$(date +%s%N)
./grade lab1 --sanitize --output "$out/hut-lab1.json"
echo "grade lab1 --sanitize exited $? after $(( ($(date +%s%N) - start) / 1000000 )) ms"
