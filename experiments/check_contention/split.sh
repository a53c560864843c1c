#!/usr/bin/env bash
# Experiment (issue 31): a worker's first timed turn waits until every lab's check run has ended, and lab 07's check
# alone took three times any other lab's (results/2026-11-28-h200x2-14d9f06/check-contention.txt: 6.92 s against at
# most 2.81; 9.65 s against at most 5.80 with every lab's at once on one GPU). Would a run per exercise of the slowest
# lab, at once, shorten the step, although each run makes two CUDA contexts more?
#   each       SPLIT_LAB's check of each exercise alone, one after another, and of all of them in one run
#   whole      every lab's check at once on GPU 0, SPLIT_LAB's in one run (a worker's check step today)
#   split      the same with SPLIT_LAB's exercises in a run each, at once with the rest
# whole and split alternate ROUNDS times (default 3). Checks are the reference's at seeds 1,2,3 with the manifests'
# work queues, on every CPU. Run on the GPU machine from the repository root with a built BUILD_DIR (default
# /tmp/course-build); prints a line per run (`scenario lab[:exercise] seconds exit`) and each scenario's wall.
#   experiments/check_contention/split.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-/tmp/course-build}
split=${SPLIT_LAB:-lab7}
rounds=${ROUNDS:-3}
cd "$build" || exit 1
labs=()
for lab in lab[0-9]; do [ -x "$lab" ] && labs+=("$lab"); done
manifest() { ls -d "$root"/labs/0"${1#lab}"_*/manifest.json; }
queues() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("work_queues", 1))' "$(manifest "$1")"; }
exercises=$(python3 -c 'import json, sys; print(*(x["name"] for x in json.load(open(sys.argv[1]))["exercises"]))' \
  "$(manifest "$split")")
now() { date +%s.%N; }

# check SCENARIO LAB [EXERCISE]: one check run on GPU 0; one line.
check() {
  local scenario=$1 lab=$2 exercise=${3:-} t0 rc
  local only=()
  [ -n "$exercise" ] && only=(--exercise "$exercise")
  t0=$(now)
  CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_MAX_CONNECTIONS=$(queues "$lab") \
    "./$lab" check --impl reference --seeds 1,2,3 "${only[@]}" >/dev/null 2>&1
  rc=$?
  awk -v s="$scenario" -v l="$lab${exercise:+:$exercise}" -v a="$t0" -v b="$(now)" -v rc="$rc" \
    'BEGIN { printf "%-8s %-28s %7.2f s exit %d\n", s, l, b - a, rc }'
}
scenario() {
  local name=$1 t0
  shift
  t0=$(now)
  "$@"
  awk -v s="$name" -v a="$t0" -v b="$(now)" 'BEGIN { printf "%-8s wall %.2f s\n", s, b - a }'
}
# at_once SCENARIO SPLIT: every lab's check at once, SPLIT_LAB's in a run per exercise where SPLIT is 1.
at_once() {
  local name=$1 each=$2 runs=()
  for lab in "${labs[@]}"; do
    if [ "$lab" = "$split" ] && [ "$each" = 1 ]; then
      for x in $exercises; do check "$name" "$lab" "$x" & runs+=($!); done
    else
      check "$name" "$lab" & runs+=($!)
    fi
  done
  wait "${runs[@]}"
}
one_by_one() {
  for x in $exercises; do check each "$split" "$x"; done
  check each "$split"
}

echo "== $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs, labs ${labs[*]}, split $split"
scenario each one_by_one
for _ in $(seq "$rounds"); do
  scenario whole at_once whole 0
  scenario split at_once split 1
done
