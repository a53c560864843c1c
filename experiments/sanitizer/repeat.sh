#!/usr/bin/env bash
# Repeats one sanitizer run (default: lab 6 stub, transpose_tiled, racecheck) N times, each as `grade --sanitize` ran
# it at 2aa2391 (every process watched); when one has not ended after 30 s, writes what its processes wait on
# (hang-N.txt). One line a run in OUT_DIR/reps.txt.
#   experiments/sanitizer/repeat.sh BUILD_DIR OUT_DIR [N] [EXERCISE] [IMPL] [TOOL]
b=$1; out=$2; n=${3:-4}; ex=${4:-transpose_tiled}; impl=${5:-stub}; tool=${6:-racecheck}
cd "$b" || exit 1
for i in $(seq 1 "$n"); do
  s=$(date +%s)
  timeout 75 compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 86 --print-limit 10 \
    ./lab6 check --impl "$impl" --exercise "$ex" --seeds "$i" --small > "$out/rep-$i.txt" 2>&1 &
  p=$!
  for _ in $(seq 1 30); do sleep 1; kill -0 $p 2>/dev/null || break; done
  if kill -0 $p 2>/dev/null; then
    {
      echo "== run $i still going at 30 s"
      ps -eo pid,ppid,stat,etimes,pcpu,nlwp,wchan:32,args --forest | grep -E "lab6|sanit|runner" |
        grep -v -E "grep|repeat.sh"
      for q in $(pgrep -f "runners/lab6|lab6 check"); do
        echo "-- $q $(cat /proc/$q/comm)"
        head -6 /proc/$q/stack 2>/dev/null
        for t in /proc/$q/task/*; do
          echo "   $(basename $t) $(cat $t/comm) $(cat $t/wchan 2>/dev/null) $(awk '{print $3}' $t/stat)"
        done | sort -k3 | uniq -c -f2 | head -12
      done
      nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
    } > "$out/hang-$i.txt" 2>&1
  fi
  wait $p
  echo "run $i ($impl $ex $tool seed $i): exit $? in $(( $(date +%s) - s )) s" | tee -a "$out/reps.txt"
done
