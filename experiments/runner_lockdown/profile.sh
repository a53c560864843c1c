#!/usr/bin/env bash
# The runner's life after setup (bench.cu) under the CUDA tools a grade may run it under, run by scripts/gpu-check.sh's
# experiments phase after bench.cu:
#   experiments/runner_lockdown/profile.sh BENCH_BINARY OUT_PREFIX
# OUT_PREFIX-memcheck.json, -racecheck.json: compute-sanitizer following every process (the child's steps, what they
# opened, mapped and started under the tool); OUT_PREFIX-ncu.json: the same under Nsight Compute, profiling the
# child's first `touch` kernel. Each tool's own console output goes to the matching .log.
set -uo pipefail
bench=${1:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
out=${2:?usage: profile.sh BENCH_BINARY OUT_PREFIX}
status=0
for tool in memcheck racecheck; do
  timeout 300 compute-sanitizer --tool "$tool" --target-processes all --log-file "$out-$tool.log" "$bench" \
    >"$out-$tool.json" 2>>"$out-$tool.log" ||
    { echo "compute-sanitizer $tool: exit $?"; status=1; }
done
timeout 300 ncu --target-processes all --kernel-name regex:touch --launch-count 1 --section SpeedOfLight \
  --log-file "$out-ncu.log" "$bench" >"$out-ncu.json" 2>>"$out-ncu.log" || { echo "ncu: exit $?"; status=1; }
exit $status
