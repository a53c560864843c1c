#!/usr/bin/env bash
# What the compiler and the profiler say about the bench's kernels, run by scripts/gpu-check.sh's experiments phase
# after bench.cu (any experiment may have a profile.sh):
#   experiments/lab05_naive/profile.sh BENCH_BINARY OUT_PREFIX
# OUT_PREFIX.sass: `cuobjdump -sass` of every kernel; OUT_PREFIX-sass.json: for each kernel, the LDG instructions
# issued before its first FFMA (the loads of the unrolled k loop a warp has on their way when it first waits);
# OUT_PREFIX-ncu.txt: ncu's speed-of-light, occupancy, memory and warp-state sections for each naive kernel, launched
# once each (`bench once`; ncu locks the clocks to base, so its durations are longer than the bench's).
set -uo pipefail
bench=${1:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
out=${2:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
cuobjdump -sass "$bench" >"$out.sass" || exit 1
awk 'BEGIN { printf "{\"kernels\": [" }
     /Function : / { name = $NF; counting = 1; n = 0; next }
     counting && /LDG/ { n++ }
     counting && /FFMA/ { printf "%s\n  {\"kernel\": \"%s\", \"ldg_before_first_ffma\": %d}", sep, name, n; sep = ","; counting = 0 }
     END { print "\n]}" }' "$out.sass" >"$out-sass.json"
ncu --kernel-name regex:naive --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis "$bench" once >"$out-ncu.txt" 2>&1
