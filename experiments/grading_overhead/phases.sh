#!/usr/bin/env bash
# Where each exercise's `labN time` spends its seconds on this GPU: every exercise of every built lab timed once with
# the reference in the student's slot, as grading does, one line each: wall = before results (the phases, the CUDA
# context on its own, the inputs' device work within generate) + exit (results written to process gone). Run on the
# GPU machine from the repository root with a built BUILD_DIR (default /tmp/course-build). Then lab 3's warp_sum
# again with every module loaded at start (CUDA_MODULE_LOADING=EAGER), to see whether first launches are what cost.
#   experiments/grading_overhead/phases.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-/tmp/course-build}
cd "$build" || exit 1
source "$here/timed_run.sh"
for lab in ./lab[0-9]; do
  names=$("$lab" list | python3 -c 'import json, sys; print(*(e["name"] for e in json.load(sys.stdin)["exercises"]))')
  for name in $names; do
    run "$(basename "$lab") $name" "$lab" time --impl reference --exercise "$name"
  done
done
[ -x ./lab3 ] && CUDA_MODULE_LOADING=EAGER run "lab3 warp_sum EAGER" ./lab3 time --impl reference --exercise warp_sum
