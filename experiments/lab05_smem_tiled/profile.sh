#!/usr/bin/env bash
# What the compiler and the profiler say about lab 05's smem_tiled, run by scripts/gpu-check.sh's experiments phase
# after bench.cu:
#   experiments/lab05_smem_tiled/profile.sh BENCH_BINARY OUT_PREFIX
# OUT_PREFIX-shipped.sass: `cuobjdump -sass` of solutions/05_tiled_matmul/solution.cu compiled as the build does
# (-O3 -lineinfo, sm_90), smem_tiled_kernel's part only (the file's other kernels make it megabytes);
# OUT_PREFIX.sass: the bench's kernels; OUT_PREFIX-sass.json: each kernel's instructions by opcode and width (LDS,
# LDS.64, LDS.128 against FFMA; experiments/sass_opcodes.awk); OUT_PREFIX-ncu.txt: shared-memory wavefronts and
# instructions and the FFMAs of each bench kernel launched once, ncu's speed-of-light and warp-state sections, clocks
# as the GPU sets them (--clock-control none).
set -uo pipefail
bench=${1:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
out=${2:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
nvcc -cubin -O3 -std=c++17 -arch=sm_90 -lineinfo -I "$root/labs/05_tiled_matmul" -I "$root/harness/common/include" \
  -o /tmp/lab05_smem_tiled.cubin "$root/solutions/05_tiled_matmul/solution.cu" || exit 1
cuobjdump -sass /tmp/lab05_smem_tiled.cubin >/tmp/lab05_smem_tiled.sass || exit 1
awk '/Function : / { keep = /smem_tiled_kernel/ } keep' /tmp/lab05_smem_tiled.sass >"$out-shipped.sass"
cuobjdump -sass "$bench" >"$out.sass" || exit 1
cat "$out-shipped.sass" "$out.sass" | awk -f "$root/experiments/sass_opcodes.awk" >"$out-sass.json" || status=1
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum
metrics+=,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__cycles_elapsed.avg.per_second
ncu --clock-control none --kernel-name regex:smem_tiled --section SpeedOfLight --section WarpStateStats \
  --metrics "$metrics" \
  "$bench" once >"$out-ncu.txt" 2>&1 || { echo "ncu: exit $?"; status=1; }
exit $status
