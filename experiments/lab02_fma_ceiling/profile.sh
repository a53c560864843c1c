#!/usr/bin/env bash
# What the compiler and the profiler say about lab 02's compute ceiling, run by scripts/gpu-check.sh's experiments
# phase after bench.cu:
#   experiments/lab02_fma_ceiling/profile.sh BENCH_BINARY OUT_PREFIX
# OUT_PREFIX-shipped.sass: `cuobjdump -sass` of labs/02_divergence/support/fma_ceiling.cu compiled as the build does
# (-O3 -lineinfo, sm_90), the kernel the lab times; OUT_PREFIX.sass: the bench's kernels; OUT_PREFIX-sass.json: each
# kernel's instructions by opcode (FFMA against the loop's IADD, ISETP and BRA; experiments/sass_opcodes.awk);
# OUT_PREFIX-ncu.txt: ncu's speed-of-light, warp-state, instruction and occupancy sections and the SMs' clock for the bench's kernels, with the
# clocks left as the GPU sets them (--clock-control none), not locked to base.
set -uo pipefail
bench=${1:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
out=${2:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
nvcc -cubin -O3 -std=c++17 -arch=sm_90 -lineinfo -I "$root/labs/02_divergence" -I "$root/harness/common/include" \
  -o /tmp/lab02_fma_ceiling.cubin "$root/labs/02_divergence/support/fma_ceiling.cu" || exit 1
cuobjdump -sass /tmp/lab02_fma_ceiling.cubin >"$out-shipped.sass" || exit 1
cuobjdump -sass "$bench" >"$out.sass" || exit 1
cat "$out-shipped.sass" "$out.sass" | awk -f "$root/experiments/sass_opcodes.awk" >"$out-sass.json" || status=1
metrics=sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
ncu --clock-control none --kernel-name regex:'^(shipped|unrolled|ilp4)' --section SpeedOfLight \
  --section WarpStateStats --section InstructionStats --section Occupancy --metrics "$metrics" \
  "$bench" once >"$out-ncu.txt" 2>&1 || { echo "ncu: exit $?"; status=1; }
exit $status
