#!/usr/bin/env bash
# Whether a referee can start its runner through compute-sanitizer's front end (the tool around the runner alone,
# the referee not under it), the way a lab's tools share one referee (docs/sanitizer.md: `labN check --tools`). Labs 1
# and 6 built from this tree, then each case twice: the tool around the referee, watching only the runners
# (as `grade` ran the sanitizer before `--tools`), and `labN check --sanitizer PATH --tools TOOL`, which writes the
# tool's verdict line to OUT_DIR/rut-*.jsonl. One line a run on the console: exit code, seconds, the first finding,
# and the verdict line (also in OUT_DIR/rut-console.txt); each run's output in OUT_DIR/rut-*.txt. A run still going
# after 15 s has its processes written to OUT_DIR/rut-*-hang.txt: their states (T: stopped), each runner's
# environment's names (whether it can tell a tool is attached: harness/common/src/protocol.cpp) and every lab
# process's descriptors. First, what a program the front end starts inherits (descriptors, variables).
# RUT_FORMS adds runner_front_end_as_root (the runner's user kept, COURSE_RUNNER_UID=0).
#   [RUT_SPECS="lab1-wrong_shared_past_end ..."] [RUT_FORMS="..."] [RUT_SECONDS=60] \
#     experiments/sanitizer/runner_under_tool.sh OUT_DIR
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
exec > >(tee "$out/rut-console.txt") 2>&1
tool=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
build=/tmp/rut-build
rm -rf "$build"
cmake -S "$root" -B "$build" -G "Unix Makefiles" -DCOURSE_LABS="01_coalescing;06_bank_conflicts" \
  -DCMAKE_PREFIX_PATH="$root/.deps/root/usr" > "$out/rut-build.log" 2>&1 &&
  make -C "$build" -j"$(nproc)" lab1 lab6 lab1-fixtures lab6-fixtures >> "$out/rut-build.log" 2>&1 ||
  { echo "build failed"; tail "$out/rut-build.log"; exit 1; }
cd "$build" || exit 1
chmod -R a+rX "$build"  # the runners run as nobody when this is root
echo "compute-sanitizer: $tool ($("$tool" --version | tail -1)); as $(id -un)"
# What a program the front end starts gets of the referee's: descriptors 3 to 5 (the runner's pipes and socket) and
# the tool's variables, as this user and as nobody (the runners' user when this is root).
probe='ls -l /proc/$$/fd | sed -n "s/.* \([0-9]*\) -> /fd \1 -> /p";'
probe+=' env | grep -E "^(CUDA_INJ|COMPUTE_SAN|LD_PRE|NV_)" | cut -c1-90'
for who in "" "setpriv --reuid=65534 --regid=65534 --clear-groups"; do
  echo "-- probe through the front end${who:+ as nobody}:"
  (cd /tmp && timeout 30 $who "$tool" --tool memcheck --error-exitcode 86 /bin/sh -c "$probe" 3</dev/null 4>/dev/null \
    5</dev/null 2>&1 | grep -v "^========= ERROR SUMMARY" | head -20)
done
specs=${RUT_SPECS:-all}
seconds_a_run=${RUT_SECONDS:-60}
for spec in "lab1 wrong_shared_past_end dot memcheck" \
            "lab6 wrong_reused_tile_no_barrier transpose_padded racecheck" \
            "lab1 reference scale memcheck" "lab6 reference transpose_padded racecheck" \
            "lab1 reference scale,dot,column_sums memcheck" \
            "lab6 reference transpose_tiled,transpose_padded,row_sums racecheck"; do
  set -- $spec
  [ "$specs" = all ] || [[ " $specs " == *" $1-$2 "* ]] || continue
  name="$1-$2-$3-$4"
  name=${name//,/+}
  for form in ${RUT_FORMS:-around_referee runner_front_end}; do
    s=$(date +%s.%N)
    (sleep 15
     {
       ps -eo pid,ppid,user,stat,etimes,args --forest | grep -E "lab[16]|sanit" | grep -v -E "grep|runner_under"
       for q in $(pgrep -f "lab[16]"); do
         echo "-- $q $(tr '\0' ' ' < "/proc/$q/cmdline" 2>/dev/null | cut -c1-100): descriptors"
         ls -l "/proc/$q/fd" 2>/dev/null | sed -n 's/.* \([0-9]*\) -> /  \1 -> /p'
       done
       for q in $(pgrep -f "runners/lab[16]-"); do
         echo "-- runner $q: state $(awk '{print $3}' "/proc/$q/stat" 2>/dev/null), environment's names:"
         tr '\0' '\n' < "/proc/$q/environ" 2>/dev/null | cut -d= -f1 | tr '\n' ' '
         echo
       done
     } > "$out/rut-$name-$form-hang.txt" 2>&1) &
    watcher=$!
    if [ "$form" = around_referee ]; then
      timeout "$seconds_a_run" "$tool" --tool "$4" --target-processes all --target-processes-filter "regex:^$1-" \
        --error-exitcode 86 --print-limit 10 "./$1" check --impl "$2" --exercise "$3" --seeds 1 --small \
        > "$out/rut-$name-$form.txt" 2>&1
    else  # runner_front_end_as_root: the front end as this user (root: not nobody)
      [ "$form" = runner_front_end_as_root ] && export COURSE_RUNNER_UID=0
      timeout "$seconds_a_run" "./$1" check --impl "$2" --exercise "$3" --seeds 1 --small --sanitizer "$tool" \
        --tools "$4" --results "$out/rut-$name-$form.jsonl" > "$out/rut-$name-$form.txt" 2>&1
      unset COURSE_RUNNER_UID
    fi
    rc=$?
    e=$(date +%s.%N)
    kill "$watcher" 2>/dev/null && wait "$watcher" 2>/dev/null
    seconds=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
    printf '%-58s %-16s exit %3d in %5.2f s; %s; %s\n' "$spec" "$form" "$rc" "$seconds" \
      "$(grep -m1 -E '^========= (Invalid|Error|ERROR|Race|Warning)' "$out/rut-$name-$form.txt" | cut -c1-90)" \
      "$(grep -s -m1 '"tool"' "$out/rut-$name-$form.jsonl")"
  done
done
