#!/usr/bin/env bash
# Experiment (issue 31): what keeping the referee's large blocks saves its generate phase. bench.cpp makes and
# generates each exercise of a lab at its timed shape in host-only mode, one after another, as a lab's time run does;
# it is linked twice: with the lab binary's operator new and delete ("kept": a deleted large block is kept for the next
# of its size, harness/huge_pages.hpp) and with fresh_blocks_new.cpp ("fresh": every large block new, its pages
# faulted in and cleared by the kernel again). Prints the commit, a hash of the allocation sources, the CPUs, then for
# each lab and repeat, the variants alternately: the whole bench's wall, user and system seconds, minor page faults
# and largest resident size (/usr/bin/time). Run from the repository root after a build of the labs.
#   experiments/generate_cost/measure.sh [REPEATS] [LAB...]   (default 3, labs 1 4; BUILD_DIR default build)
set -euo pipefail
build=${BUILD_DIR:-build}
repeats=${1:-3}
shift || true
if [ $# -gt 0 ]; then labs=("$@"); else labs=(1 4); fi
here=experiments/generate_cost
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); allocation sources" \
  "$(cat harness/referee/src/huge_pages.cpp harness/referee/src/lab/huge_pages_new.cpp "$here/fresh_blocks_new.cpp" |
     sha256sum | cut -c1-12); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
flags=(-std=c++20 -O2 -Iharness/common/include -Iharness/referee/include -I/usr/local/cuda/include)
for lab in "${labs[@]}"; do
  objects=$(find "$build/CMakeFiles/lab${lab}_sources.dir" -name '*.o')
  libs=("$build/harness/libharness_referee.a" "$build/harness/libharness_common.a" -L/usr/local/cuda/lib64 -lcublas
        -lcudart -lpthread)
  g++ "${flags[@]}" "$here/bench.cpp" harness/referee/src/lab/huge_pages_new.cpp $objects "${libs[@]}" \
    -o "$out/kept$lab"
  g++ "${flags[@]}" "$here/bench.cpp" "$here/fresh_blocks_new.cpp" $objects "${libs[@]}" -o "$out/fresh$lab"
  for r in $(seq "$repeats"); do
    for variant in fresh kept; do
      /usr/bin/time -f "lab $lab $variant $r: %e s wall, %U user, %S system, %R minor faults, %M KiB resident" \
        "$out/$variant$lab" >/dev/null
    done
  done
done 2>&1
