#!/usr/bin/env bash
# Why `lab6 time --exercise transpose_padded` ended with the test-failure code (112) under ncu in gpu-check.sh's
# `counters` phase (on an H100 at 2ac4334 and an H200 at c175bc5), the reference in the student slot, while
# transpose_tiled did not: the same runs with and without ncu, each result's JSON printed whole. Needs a build
# (BUILD_DIR, default /tmp/course-build).
# Found on an H200 (results/2026-11-29-h200-c175bc5/lab06-ncu-time.txt): without ncu both exercises pass, at 8192x8192
# and at the timed shape; under ncu, whether it replays the kernels or the application, transpose_padded's run comes
# out at 139-141% of its ceiling and `time` refuses it (above 125%: "no kernel can reach"), while transpose_tiled's
# reference, twice as slow, stays under. Times under a profiler do not hold; the `counters` phase reads the counters.
#   experiments/lab06_ncu_time/measure.sh
build=${BUILD_DIR:-/tmp/course-build}
cd "$build" || exit 1
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum
run() {  # LABEL EXERCISE SHAPE [ncu args...]
  local label=$1 ex=$2 shape=$3
  shift 3
  rm -f /tmp/l6.json
  if [ $# -gt 0 ]; then
    ncu "$@" --metrics "$metrics" ./lab6 time --impl reference --exercise "$ex" --shape "$shape" --max-seconds 1 \
      --results /tmp/l6.json >/tmp/l6.out 2>&1
  else
    ./lab6 time --impl reference --exercise "$ex" --shape "$shape" --max-seconds 1 --results /tmp/l6.json \
      >/tmp/l6.out 2>&1
  fi
  echo "== $label: $ex at $shape: exit $?"
  grep -E "ERROR|wrong|error" /tmp/l6.out | head -5
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print({k: d[k] for k in ("correct", "message") if k in d})' /tmp/l6.json 2>/dev/null || echo "(no JSON)"
}
for ex in transpose_padded transpose_tiled; do
  run plain $ex 8192x8192
  run plain-timed-shape $ex 8192x16384
  run ncu-2-launches $ex 8192x8192 --clock-control none --print-summary none -k regex:transpose --launch-skip 0 \
    --launch-count 2
  run ncu-application-replay $ex 8192x8192 --clock-control none --print-summary none -k regex:transpose \
    --launch-skip 0 --launch-count 2 --replay-mode application
done
