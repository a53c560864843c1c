#!/usr/bin/env bash
# Experiment (issue 31): why a student's check runs take twice as long when four workers grade on four GPUs of one
# host as when one grades on one GPU, though the host's CPUs stay mostly idle. Each worker starts every lab's check
# run at once (`labN check`, a referee and its runner, each with a CUDA context of its own). The runs of one worker
# share its GPU; the runs of different workers share only the host (its CPUs, memory, PCIe, the driver). So:
#   alone    each lab's check alone on GPU 0, one after another
#   one-gpu  every lab's check at once on GPU 0 (one worker's check step)
#   all-gpus every lab's check at once on each GPU, each GPU's runs on its own CPUs (every worker's check step)
#   beside   lab PROBE_LAB alone on GPU 0 while every other GPU runs every lab's check: what the other GPUs alone do
#            to a run that has its GPU to itself
# During each, experiments/check_contention/sample.py samples where the lab processes' threads are (on a CPU, or in
# which system call and kernel function), since the GPU machine has no strace or perf.
# Checks are the reference's (`--impl reference`) at seeds 1,2,3, with the manifests' work queues (a grading process's
# CUDA_DEVICE_MAX_CONNECTIONS). Run on the GPU machine from the repository root with a built BUILD_DIR (default
# /tmp/course-build); prints one line per run (`scenario gpu lab seconds exit`) and each scenario's wall.
#   experiments/check_contention/measure.sh [OUT_DIR]   (OUT_DIR, default /tmp: the samplers' tables)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-/tmp/course-build}
out=${1:-/tmp}
mkdir -p "$out" || exit 1
probe=${PROBE_LAB:-3}
cd "$build" || exit 1
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
cpus=$(nproc)
labs=()
for lab in lab[0-9]; do [ -x "$lab" ] && labs+=("$lab"); done
# A lab's work queues, as the grader gives its processes (Manifest::work_queues, default 1).
queues() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("work_queues", 1))' \
    "$(ls -d "$root"/labs/0"${1#lab}"_*/manifest.json)"
}
now() { date +%s.%N; }

# check SCENARIO GPU LAB: one check run on GPU, on that GPU's share of the CPUs; one line.
check() {
  local scenario=$1 gpu=$2 lab=$3
  local per=$((cpus / gpus)) t0 t1 rc
  t0=$(now)
  CUDA_VISIBLE_DEVICES=$gpu CUDA_DEVICE_MAX_CONNECTIONS=$(queues "$lab") \
    taskset -c "$((gpu * per))-$((gpu * per + per - 1))" "./$lab" check --impl reference --seeds 1,2,3 \
    >/dev/null 2>&1
  rc=$?
  t1=$(now)
  awk -v s="$scenario" -v g="$gpu" -v l="$lab" -v a="$t0" -v b="$t1" -v rc="$rc" \
    'BEGIN { printf "%-14s gpu %d %s %7.2f s exit %d\n", s, g, l, b - a, rc }'
}

# every LAB at once on each GPU in GPU_LIST. It waits for its own runs only: a bare `wait` would also wait for the
# sampler, which runs until told to stop.
at_once() {
  local scenario=$1 runs=()
  shift
  for gpu in "$@"; do for lab in "${labs[@]}"; do check "$scenario" "$gpu" "$lab" & runs+=($!); done; done
  wait "${runs[@]}"
}

scenario() {
  local name=$1 t0
  shift
  t0=$(now)
  "$@"
  awk -v s="$name" -v a="$t0" -v b="$(now)" 'BEGIN { printf "%-14s wall %.2f s\n", s, b - a }'
}

echo "== $gpus GPUs, $cpus CPUs, labs ${labs[*]}, probe lab$probe"
others=$(seq 1 $((gpus - 1)))
alone() { for lab in "${labs[@]}"; do check alone 0 "$lab"; done; }
# beside LABEL: the probe on GPU 0, every lab at once on every other GPU.
beside() {
  local label=$1
  check "$label" 0 "lab$probe" &
  local probe_run=$!
  # shellcheck disable=SC2086
  at_once "$label-others" $others
  wait "$probe_run"
}
# sampled NAME COMMAND...: a scenario with experiments/check_contention/sample.py reading where the lab processes
# wait, its table in OUT_DIR/sample-NAME.txt.
sampled() {
  local name=$1 sampler
  shift
  python3 "$root/experiments/check_contention/sample.py" "$name" >"$out/sample-$name.txt" 2>&1 &
  sampler=$!
  scenario "$name" "$@"
  kill -INT "$sampler"
  wait "$sampler"
}
sampled alone alone
sampled one-gpu at_once one-gpu 0
# shellcheck disable=SC2046
sampled all-gpus at_once all-gpus $(seq 0 $((gpus - 1)))
sampled beside beside beside
