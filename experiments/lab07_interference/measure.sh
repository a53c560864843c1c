#!/usr/bin/env bash
# Experiment (issue 31): which of another worker's host work moves lab 07's pipelines, graded by overlap. With the
# reference handed in as the student, the pipelines' student/reference ratio spread from 0.955 to 1.041 on two H200s
# with two workers, 0.978 to 1.024 on one GPU held to half of the CPUs with no other worker, 0.992 to 1.012 on one GPU
# with all of them (results/2026-11-28-h200x2-14d9f06): both directions, so noise rather than a slower student. Each
# scenario grades lab 07 REPEATS times (the reference as the student, no sanitizer) on GPU 0, held to the first half
# of the CPUs (a worker's share on a host of two GPUs), while the other half runs:
#   quiet    nothing
#   cpu      a busy loop on each CPU (the host's cores or hardware threads, which a VM may not show)
#   memory   dd from /dev/zero to /dev/null in 256 MiB blocks on each CPU (the kernel writes zeros through DRAM)
#   bursts   on each CPU, over and over: a dd of one 1 GiB block (fresh pages the kernel clears, then zeros copied
#            in), then a rest of 0.1 to 0.9 s: writes in bursts, as a worker's referee faulting in its inputs over
#            all its cores did (results/2026-11-29-h200x2-6304b4f), where `memory` writes without a pause
#   checks   every lab's check at once, over and over, on GPU 1 (another worker's check step; needs two GPUs)
# Prints one line per exercise graded: scenario, repeat, exercise, the reference's and the student's overlap and the
# ratio that grades it (reference over student), or for pinned_memory the median times' ratio. Run on the GPU machine
# from the repository root with a built BUILD_DIR (default /tmp/course-build).
#   experiments/lab07_interference/measure.sh [REPEATS]   (default 3)
set -uo pipefail
build=${BUILD_DIR:-/tmp/course-build}
repeats=${1:-3}
cd "$build" || exit 1
cpus=$(nproc)
half=$((cpus / 2))
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
work=$(mktemp -d)
echo "== $gpus GPU(s), $cpus CPUs: grading on CPUs 0-$((half - 1)), the rest on $half-$((cpus - 1)); $repeats repeats"

grade_lab7() {  # SCENARIO
  local r
  for r in $(seq "$repeats"); do
    CUDA_VISIBLE_DEVICES=0 taskset -c "0-$((half - 1))" ./grade lab7 --impl reference --no-sanitize \
      --output "$work/$1-$r.json" >/dev/null 2>&1 || echo "$1 $r: grade exited $?"
    python3 - "$work/$1-$r.json" "$1" "$r" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for run in doc["runs"]:
    for lab in run["labs"]:
        for ex in lab["exercises"]:
            m, t = ex.get("metrics") or {}, ex.get("median_ms") or {}
            if "overlap_reference" in m:
                print(f"{sys.argv[2]:<8} {sys.argv[3]} {ex['name']:<17} overlap reference {m['overlap_reference']:.3f} "
                      f"student {m['overlap_student']:.3f} ratio {m['overlap_reference'] / m['overlap_student']:.3f}")
            elif t.get("reference"):
                print(f"{sys.argv[2]:<8} {sys.argv[3]} {ex['name']:<17} time reference {t['reference']:.3f} ms "
                      f"student {t['student']:.3f} ms ratio {t['student'] / t['reference']:.3f}")
PY
  done
}

# on_other_half COMMAND...: COMMAND on each CPU of the other half, in the background, each in a process group of its
# own (setsid, which a background job of a script needs no fork for: the pid in $burners leads the group), so that
# stop_burners ends what a loop of them has started too (`bursts`' dd in flight), not the loop alone.
burners=()
on_other_half() {
  local c
  for c in $(seq "$half" $((cpus - 1))); do setsid taskset -c "$c" "$@" >/dev/null 2>&1 & burners+=($!); done
}
stop_burners() {
  local b
  for b in "${burners[@]}"; do kill -- "-$b" 2>/dev/null; done
  wait "${burners[@]}" 2>/dev/null
  burners=()
}

grade_lab7 quiet
on_other_half sh -c 'while :; do :; done'
grade_lab7 cpu
stop_burners
on_other_half dd if=/dev/zero of=/dev/null bs=256M count=100000000
grade_lab7 memory
stop_burners
on_other_half bash -c 'while :; do dd if=/dev/zero of=/dev/null bs=1G count=1; sleep "0.$((RANDOM % 9 + 1))"; done'
grade_lab7 bursts
stop_burners
if [ "$gpus" -ge 2 ]; then
  (while [ ! -f "$work/stop" ]; do
     for lab in lab[0-9]; do
       [ -x "$lab" ] && CUDA_VISIBLE_DEVICES=1 taskset -c "$half-$((cpus - 1))" "./$lab" check --impl reference \
         --seeds 1,2,3 >/dev/null 2>&1 &
     done
     wait
   done) &
  checks=$!
  grade_lab7 checks
  touch "$work/stop"
  wait "$checks"
fi
rm -rf "$work"
