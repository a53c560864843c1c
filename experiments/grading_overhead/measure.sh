#!/usr/bin/env bash
# Where a `labN time` process spends the seconds its phases do not name, whether transparent huge pages for the
# referee's big host arrays (glibc's malloc tunable) shorten its "generate" phase, and why lab 07's pinned_memory
# stub and baseline (the same malloc'd, pageable code) time differently. Run on the GPU machine from the repository
# root with a built BUILD_DIR (default /tmp/course-build); prints one line per run.
#   experiments/grading_overhead/measure.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-/tmp/course-build}
cd "$build" || exit 1
echo "== machine"
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
lscpu | grep -E "^(Model name|Socket|NUMA node)" 
nvidia-smi topo -m 2>&1 | head -4
gpu_bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/^0000//;s/^/0000/')
local_cpus=$(cat "/sys/bus/pci/devices/${gpu_bus#0000}/local_cpulist" 2>/dev/null ||
             cat "/sys/bus/pci/devices/$gpu_bus/local_cpulist" 2>/dev/null)
echo "GPU $gpu_bus: local CPUs ${local_cpus:-unknown}, NUMA node $(cat /sys/bus/pci/devices/$gpu_bus/numa_node 2>/dev/null)"

source "$here/timed_run.sh"  # run LABEL COMMAND...: one `time` run, one line
echo "== lab 1 scale, 2^28: plain malloc, then glibc.malloc.hugetlb=1 (THP for malloc's large chunks)"
for i in 1 2; do
  run "plain  " ./lab1 time --impl reference --exercise scale --max-seconds 1
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 run "hugetlb" ./lab1 time --impl reference --exercise scale --max-seconds 1
done
echo "== lab 4 atomic, lab 6 transpose_tiled: plain, then hugetlb"
for ex in "lab4 atomic" "lab6 transpose_tiled"; do
  read -r lab name <<<"$ex"
  run "plain   $name" ./$lab time --impl reference --exercise "$name" --max-seconds 0
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 run "hugetlb $name" ./$lab time --impl reference --exercise "$name" --max-seconds 0
done
echo "== lab 7 pinned_memory, the stub against the baseline (both pageable): free, then on the GPU's local CPUs"
for i in 1 2 3; do run "free  " ./lab7 time --impl stub --exercise pinned_memory --max-seconds 1; done
if [ -n "${local_cpus:-}" ]; then
  for i in 1 2 3; do run "local " taskset -c "$local_cpus" ./lab7 time --impl stub --exercise pinned_memory --max-seconds 1; done
fi
