#!/usr/bin/env bash
# The GPU check: build from a clean tree, run every test with the GPU required, grade the reference solutions and the
# stubs (the course checking itself), grade lab 1 twice to show grades repeat, and leave the JSON and console output
# in OUT_DIR.
#
#   scripts/gpu-check.sh OUT_DIR [COMMIT] [PHASE]
#
# PHASE is a comma-separated list of `tests` (clean build, the student's timed path for lab 1, every test), `ctest`
# (only the test step of `tests`, on the build directory there is), `grade`
# (self-check of every lab), `bench` (one submission of all seven labs graded on the warm build: the reference in the
# student slot, each lab's `wall_s` in grading-time.json and its "graded in" line in grading-time.txt), `repeat` (lab 1
# graded twice in a row), `counters` (shared-memory bank conflicts of lab 6's stubs and references, read by ncu, and
# `grade --concepts` on labs 1, 2, 3 and 6: docs/concepts.md), `exploits` (every file of tests/exploits graded as a
# student of its own by `grade batch`: refusals and grades in exploits.json, each against its first line's verdict in
# exploits-verdicts.txt), `fixtures` (each known-wrong fixture only compute-sanitizer catches, graded with `grade
# --sanitize`: fixtures-sanitized.txt and a JSON each), `class` (CLASS_STUDENTS students, default 3, each handing in
# every lab's reference, graded by `grade batch`: class-rate.txt, with the steady-state rate, and class-ratios.txt,
# the largest student/reference time ratios; CLASS_KILL_AFTER=S kills the batch with kill -9 after S seconds and
# starts it again: class-resume.txt), `scaling` (the same class on one GPU and on every GPU of the host, or
# SCALING_GPUS, sanitized, SCALING_STUDENTS a GPU: scaling.txt with the rates, the scaling (the steady state's, then
# the students' walls' with its bounds: scripts/class_scaling.py), each GPU's share and every lab's largest and
# smallest reference-as-student ratio; scaling-gN.txt and .json; scaling-gN-host.txt, the host's CPU load while
# it ran (scripts/host_load.py); scaling-phases.txt, where a student's seconds went on each GPU count;
# scaling-timeline.txt, how long two or more workers were in the same step at once (scripts/class_timeline.py); with
# SCALING_ALONE_CPUS=LIST also one GPU's class held to those CPUs, g1c; with SCALING_SHARE_CPUS=1 also each GPU count
# above one graded with `grade batch --share-cpus` (each worker on all the CPUs near its GPU), gNs, before the
# workers on cores of their own), `repeatability` (every lab's baseline, reference and known-middle fixture graded as the
# student REPEAT_BASELINE, REPEAT_REFERENCE and REPEAT_MIDDLE times, default 10, 10, 5: each exercise's performance
# fraction over the repeats in repeatability.txt, the grades in repeatability-IMPL.json, the goals met or missed in
# repeatability-goals.txt), `experiments` (each
# experiments/NAME/bench.cu, a GPU experiment of its own,
# built with nvcc and run: NAME.json; then its profile.sh, if it has one: NAME.sass and the like), or `all`
# (default). Every phase after `tests` uses the build directory that `tests` left, or makes one.
# The phases exist because one command on the lent GPU machine may run 10 minutes at most, and the machine stays
# warm only about 30 s between calls (a later call often finds a fresh one): make each call whole, building first
# when it starts on a fresh machine (cmake + make -j16: about 70 s), and bring OUT_DIR back as one tar file. On an
# H100 (commits f53ea7b and 94a7821): `tests` 9.5 minutes (433 tests six at a time), `grade` 5.5, `bench` 2.2
# (133 s of grading), `counters` 2. GPU_CHECK_TESTS=REGEX splits `tests` over two calls, e.g. '^lab[1-4]\.' and
# '^(lab[5-7]|harness|grader|labs|kit|stubs)\.'. Phases that take longer than one call (a class on four GPUs, the
# repeatability benchmark) go through scripts/gpu-detached.sh, which runs them on past the call that starts them.
#
# GPU_CHECK_EXPERIMENTS="lab04_bytes_in_flight lab05_naive" runs only those experiments (default: every one).
# GPU_CHECK_SANITIZE=0 leaves out `tests`' step that grades lab 1 under compute-sanitizer (up to 3 minutes).
# COURSE_LABS="01_coalescing;02_divergence" limits the build and the grading to those labs (default: all).
# Dependencies missing on the GPU machine (CLI11) are found under .deps/root/usr when present: scripts/fetch-gpu-deps.sh
# makes that folder; carry it with the call.
set -uo pipefail
out=$(mkdir -p "${1:?usage: scripts/gpu-check.sh OUT_DIR [COMMIT]}" && cd "$1" && pwd)
commit=${2:-unknown}
phase=${3:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-/tmp/course-build}
jobs=$(nproc)
export COURSE_REQUIRE_GPU=1
status=0
step() { echo; echo "== $(date -u +%H:%M:%S) $*"; }

prefix=(-DCOURSE_LABS="${COURSE_LABS:-}")
[ -d "$root/.deps/root/usr" ] && prefix+=(-DCMAKE_PREFIX_PATH="$root/.deps/root/usr")
labs=all
[ -n "${COURSE_LABS:-}" ] && labs=$(echo "$COURSE_LABS" | tr ';' ' ')

runs() { [ "$phase" = all ] || [[ ",$phase," == *",$1,"* ]]; }
builds() { [ -z "${COURSE_LABS:-}" ] || [[ ";$COURSE_LABS;" == *";$1;"* ]]; }

# A fresh machine: the later phases need a build (the experiments alone do not: each bench is built by itself).
if ! runs tests && [ "$phase" != experiments ] && [ ! -f "$build/CMakeCache.txt" ]; then
  step "configure and build everything (no build directory at $build)"
  cmake -S "$root" -B "$build" -G "Unix Makefiles" "${prefix[@]}" >"$out/build.log" 2>&1 &&
    make -C "$build" -j"$jobs" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi

if runs tests; then
step "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

step "configure (clean build directory $build)"
rm -rf "$build"
cmake -S "$root" -B "$build" -G "Unix Makefiles" "${prefix[@]}" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

# At most 8 files come back from the GPU machine: tar OUT_DIR into one file when more are wanted.
# The student's path, timed as the issue states it: a fresh configured build directory, one lab, one grade.
if builds 01_coalescing; then
  step "make lab1 && ./grade lab1, as the README types it (fresh build directory, no -j)"
  start=$(date +%s)
  (cd "$build" && make lab1 >>"$out/build.log" 2>&1 && echo "make lab1: $(( $(date +%s) - start )) s" &&
     ./grade lab1 --commit "$commit" --output "$out/student-lab1.json") \
    | tee "$out/student-lab1.txt" || status=1
  echo "make lab1 && ./grade lab1: $(( $(date +%s) - start )) s" | tee -a "$out/student-lab1.txt"
fi

step "build everything"
make -C "$build" -j"$jobs" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }

if builds 01_coalescing; then
  step "the runners' sandbox on this machine (seccomp, Landlock ABI): runners/lab1-reference --sandbox"
  "$build/runners/lab1-reference" --sandbox 2>&1 | tee -a "$out/boundary.log"
  # At 0e2a19f lab 1's checks that fail every case did not end: the hint's classification, fixed in 3ffca93, was
  # found on the CPU. The same check with the sandbox (COURSE_RUNNER_SANDBOX unset: all of it) and without (0)
  # confirms that the sandbox changes nothing there; only if it does, each part alone. At most 2 minutes in all.
  sandbox_check() {
    local start rc
    start=$(date +%s)
    (cd "$build" && COURSE_RUNNER_SANDBOX=$1 timeout 30 ./lab1 check --impl wrong_zeros --exercise scale \
       --seeds 1,2 --expect-reject >/dev/null 2>&1)
    rc=$?
    echo "lab1 check --impl wrong_zeros, COURSE_RUNNER_SANDBOX=$1: exit $rc in $(( $(date +%s) - start )) s" \
      "(0: rejected as it should be; 124: did not end in 30 s)" | tee -a "$out/boundary.log"
    return $rc
  }
  sandbox_check 0
  sandbox_check all || { sandbox_check seccomp; sandbox_check landlock; }
fi

if builds 01_coalescing && [ "$(id -u)" = 0 ]; then
  step "run as root, runners drop to nobody and still start from a folder only root can enter"
  private=$(mktemp -d /root/course-private.XXXXXX)
  cp -r "$build/lab1" "$build/runners" "$private/" && chmod 700 "$private"
  (cd "$private" && ./lab1 check --impl reference --exercise scale --seeds 1) 2>&1 | tail -2 |
    tee -a "$out/boundary.log"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "FAILED: lab1 check from a root-only folder"; status=1; }
  rm -rf "$private"
fi

if builds 01_coalescing && [ "${GPU_CHECK_SANITIZE:-1}" != 0 ]; then
  step "compute-sanitizer as a gate: the reference of lab 1 must come out clean (runners, IPC buffers, nobody)"
  # Three minutes at most: its cost is not known yet (docs/sanitizer.md), and every test is still to run.
  (cd "$build" && timeout 180 ./grade lab1 --impl reference --sanitize --commit "$commit" \
     --output "$out/sanitize-lab1.json") \
    2>&1 | tail -8 | tee -a "$out/boundary.log"
fi

if builds 01_coalescing; then
  step "a hostile kernel on a private stream never joined to the harness's: graded at its true time?"
  (cd "$build" && ./grade lab1 --impl hostile_scale-private_stream --exercise scale --commit "$commit" \
     --output "$out/hostile-lab1.json") 2>&1 | tee -a "$out/boundary.log" || status=1
fi

fi

if runs tests || runs ctest; then
step "every test that can use the GPU, GPU required"
# The static checks of submissions, the README's commands, the sheets and the slides run on the CPU alone and CI runs
# them on every commit; here they would only spend the 10 minutes one command on the GPU machine may take.
# GPU_CHECK_TESTS=REGEX runs only the tests it matches (ctest -R), to split the phase over two calls: the phase
# `ctest` runs this step alone, on the build directory a `tests` call left (or a new one).
(cd "$build" && ctest -j6 --output-on-failure -LE "static_check|readme" -E "^(slides|sheets|cmake)\\." \
   ${GPU_CHECK_TESTS:+-R "$GPU_CHECK_TESTS"}) >"$out/ctest.log" 2>&1 || status=1
grep -E "tests passed|Failed|\*\*\*" "$out/ctest.log" | tail -25
fi

if runs grade; then
step "self-check: references must get full marks, stubs almost no performance points"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | grep -oE '[a-z][0-9]{2,4}[a-z]?' | head -1)
(cd "$build" && ./grade $labs --self-check --commit "$commit" --output "$out/${gpu:-gpu}.json") \
  | tee "$out/self-check.txt" || status=1
fi

if runs bench; then
step "grading time: one submission of every lab (the references as the student), warm build"
start=$(date +%s)
(cd "$build" && ./grade $labs --impl reference --commit "$commit" --output "$out/grading-time.json") \
  >"$out/grading-time.txt" 2>&1 || status=1
echo "all labs graded in $(( $(date +%s) - start )) s (goal: under 90 s on one H200)" | tee -a "$out/grading-time.txt"
grep -E "^lab[0-9]|graded in" "$out/grading-time.txt"
fi

if runs repeat && builds 01_coalescing; then
step "lab 1 graded twice in a row: the points must agree within 1%"
(cd "$build" && ./grade lab1 --repeat 2 --commit "$commit" --output "$out/repeat-lab1.json") \
  | tee "$out/repeat-lab1.txt" || status=1
fi

if runs repeatability; then
step "repeatability: baseline, reference and known middle graded as the student, each exercise's f over the repeats"
# Goals (issue 28): the baseline's f at most 0.05 every time, the reference's 1 every time, the middle's spread at
# most 0.10 (and two GPU kinds within 0.10 of each other). Not sanitized: the timed runs are what repeats or not.
for plan in baseline:"${REPEAT_BASELINE:-10}" reference:"${REPEAT_REFERENCE:-10}" middle:"${REPEAT_MIDDLE:-5}"; do
  impl=${plan%%:*}
  [ "${plan##*:}" -gt 0 ] || continue  # a count of 0 leaves that implementation out (a later call may run it)
  (cd "$build" && ./grade $labs --impl "$impl" --repeat "${plan##*:}" --commit "$commit" \
     --output "$out/repeatability-$impl.json") >"$out/repeatability-$impl.txt" 2>&1 || status=1
  grep -E "^repeat f " "$out/repeatability-$impl.txt" | tee -a "$out/repeatability.txt"
done
# The goals, held by the grader over the files this call or an earlier one wrote: a line each, "MISSED" where one is
# (another GPU kind's files beside them: grade repeatability -h).
graded=()
for impl in baseline reference middle; do
  [ -f "$out/repeatability-$impl.json" ] && graded+=("$out/repeatability-$impl.json")
done
(cd "$build" && ./grade repeatability "${graded[@]}") >"$out/repeatability-goals.txt" 2>&1 || status=1
tail -1 "$out/repeatability-goals.txt"
fi

if runs counters && builds 06_bank_conflicts; then
step "shared-memory bank conflicts of lab 6, stub and reference (ncu)"
# In `lab6 time` the exercise's kernels launch first as: the reference's checked run (launch 0), then the
# baseline's (launch 1). For the transposes each exercise's reference is the next one's baseline
# (solutions/06_bank_conflicts/baseline.cu).
: >"$out/lab06-bank-conflicts.txt"
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,gpu__time_duration.sum
for run in "transpose_tiled transpose 8192x8192" "transpose_padded transpose 8192x8192" \
           "row_sums row_sums 65536x1000"; do
  read -r ex kernel shape <<<"$run"
  echo "== $ex at $shape: first kernel = reference, second = stub" | tee -a "$out/lab06-bank-conflicts.txt"
  (cd "$build" && ncu --clock-control none --print-summary none -k "regex:$kernel" --launch-skip 0 --launch-count 2 \
    --metrics "$metrics" \
    ./lab6 time --impl reference --exercise "$ex" --shape "$shape" --max-seconds 1 --results /tmp/lab6-ncu-time.json) \
    >/tmp/lab6-ncu.txt 2>&1
  tee -a "$out/lab06-bank-conflicts.txt" </tmp/lab6-ncu.txt
  # What this step wants is the two kernels' counters, not the run's verdict: under ncu the timings do not hold
  # (transpose_padded's reference came out at 141% of its ceiling, which `time` refuses, exit 112:
  # experiments/lab06_ncu_time), so the step fails only where a kernel's counters are missing.
  [ "$(grep -c 'smsp__sass_inst_executed_op_shared_ld.sum' /tmp/lab6-ncu.txt)" -eq 2 ] ||
    { echo "ncu did not read both kernels' counters"; status=1; }
done
fi

if runs counters; then
step "concept checks (grade --concepts: ncu counters, SASS) of labs 1, 2, 3 and 6, references then stubs"
# The values behind docs/concepts.md's expected ranges: the references must be in range, the shipped stubs not.
concept_labs=()
for lab in 01_coalescing:lab1 02_divergence:lab2 03_warp_shuffles:lab3 06_bank_conflicts:lab6; do
  builds "${lab%%:*}" && concept_labs+=("${lab##*:}")
done
if [ ${#concept_labs[@]} -gt 0 ]; then
  (cd "$build" && ./grade "${concept_labs[@]}" --impl reference --concepts --commit "$commit" --output "$out/concepts.json") \
    >"$out/concepts.txt" 2>&1 || status=1
  (cd "$build" && ./grade "${concept_labs[@]}" --impl stub --concepts --commit "$commit" \
    --output "$out/concepts-stub.json") >>"$out/concepts.txt" 2>&1 || status=1
  grep -E "concept|not measured|✓|✗" "$out/concepts.txt"
fi
fi

if runs fixtures; then
step "the fixtures only compute-sanitizer catches, each graded end to end as a student's (grade --sanitize)"
# The exercise loses its performance points with status memory-error or race, and the tool's first report.
: >"$out/fixtures-sanitized.txt"
for file in "$root"/solutions/[0-9][0-9]_*/wrong/*.cu; do
  head -1 "$file" | grep -q "decided on the GPU: compute-sanitizer" || continue
  lab=$(basename "$(dirname "$(dirname "$file")")")
  builds "$lab" || continue
  number=$((10#${lab%%_*}))
  impl=wrong_$(basename "$file" .cu)
  exercise=$(grep -m1 -oE '^REGISTER_LAUNCHER\("[a-z0-9_]+"' "$file" | cut -d'"' -f2)
  (cd "$build" && ./grade "lab$number" --impl "$impl" --exercise "$exercise" --sanitize --commit "$commit" \
     --output "$out/fixture-lab$number-$impl.json") >>"$out/fixtures-sanitized.txt" 2>&1 || status=1
done
grep -E "memory-error|race|^[a-z_]+ +[0-9]+/[0-9]+" "$out/fixtures-sanitized.txt"
fi

if runs exploits; then
step "the exploit suite graded as a class: each file of tests/exploits a student of its own (grade batch)"
# A file whose first line says "// expect: refused <rule>" must be refused by the static check, "// expect: compile
# error" must not compile (what it includes is out of its reach), "right only while its trick fails" must get every
# exercise it has right (it writes zeros where its trick works); the others (fair but unusual kernels, and tricks only
# a run can catch) are graded on the GPU, their grades recorded in exploits.json.
sub=/tmp/course-exploits
rm -rf "$sub" && mkdir -p "$sub/submissions" && chmod 755 "$sub"  # runners built there run as nobody under root
files=()  # the exploit files of the labs this run builds, each graded as the student NN-<file name>
for file in "$root"/tests/exploits/[0-9][0-9]_*/*.cu; do
  lab=$(basename "$(dirname "$file")")
  builds "$lab" && files+=("$file")
done
student_of() { local lab; lab=$(basename "$(dirname "$1")"); echo "${lab%%_*}-$(basename "$1" .cu)"; }
for file in "${files[@]}"; do
  into="$sub/submissions/$(student_of "$file")/$(basename "$(dirname "$file")")"
  mkdir -p "$into" && cp "$file" "$into/student.cu"
  # What a student may hand in beside the file: the folders next to it (06's doctored harness/launcher.hpp).
  find "$(dirname "$file")" -mindepth 1 -maxdepth 1 -type d -exec cp -r {} "$into/" \;
done
(cd "$build" && ./grade batch "$sub/submissions" --results "$sub/results" --commit "$commit") \
  >"$out/exploits.txt" 2>&1 || status=1
cp "$sub/results/class.json" "$out/exploits.json" 2>/dev/null
(cd "$build" && ./grade export --format csv --output "$out/exploits.csv" "$sub/results/class.json") || status=1
for file in "${files[@]}"; do
  student=$(student_of "$file")
  expect=accepted
  head -1 "$file" | grep -q '^// expect: refused' && expect=refused
  head -1 "$file" | grep -q '^// expect: compile error' && expect=compile-error
  head -1 "$file" | grep -q 'right only while its trick fails' && expect=right
  got=accepted
  record="$sub/results/students/$student.json"
  if [ ! -f "$record" ]; then got=unrecorded; elif grep -q '"error": *"[^"]*refused:' "$record"; then got=refused
  elif grep -q '"error": *"[^"]*compile error:' "$record"; then got=compile-error
  # Right answers where it has launchers: no exercise wrong, refused or crashed (its trick worked otherwise).
  elif [ "$expect" = right ]; then
    grep -qE '"status": *"(wrong|bad-output|crash|cuda-error|timeout)"' "$record" && got=wrong || got=right; fi
  verdict=ok
  [ "$expect" = "$got" ] || verdict=MISMATCH
  echo "$verdict $student: expected $expect, got $got"
done | tee "$out/exploits-verdicts.txt"  # a pipeline's loop runs in a subshell: its verdicts are read back below
grep -q '^MISMATCH' "$out/exploits-verdicts.txt" && status=1
grep -c '^ok' "$out/exploits-verdicts.txt" | sed 's/$/ exploit files as expected/'
fi

# A class in DIR/submissions: N students, each handing in every built lab's reference.
hand_in_references() {
  local sub=$1 n=$2 i lab name
  rm -rf "$sub" && mkdir -p "$sub/submissions" && chmod 755 "$sub"  # runners built there run as nobody under root
  for i in $(seq 1 "$n"); do
    for lab in "$root"/solutions/[0-9][0-9]_*; do
      name=$(basename "$lab")
      builds "$name" || continue
      mkdir -p "$sub/submissions/student$i/$name" && cp "$lab/solution.cu" "$sub/submissions/student$i/$name/student.cu"
    done
  done
}

# The steady state of a batch that started at START with W workers and graded N students recorded after DIR/restart:
# the first students also wait for their own builds, which later students' builds hide behind the grading of the
# ones before. The first W records come together, and from the first record to the last, N - W students are graded
# at the class's pace. Prints one line, or nothing where N <= W.
steady_state() {
  local sub=$1 n=$2 w=$3 start=$4 first last
  first=$(ls -tr $(find "$sub/results/students" -name '*.json' -newer "$sub/restart") 2>/dev/null | head -1)
  last=$(ls -t "$sub"/results/students/*.json 2>/dev/null | head -1)
  if [ "$n" -gt "$w" ] && [ -n "$first" ]; then
    awk -v n="$n" -v w="$w" -v a="$(date -r "$first" +%s.%N)" -v b="$(date -r "$last" +%s.%N)" -v f="$start" 'BEGIN { p = (b - a) / (n - w); printf "steady state on %d GPU(s): %.1f s a student after the first (recorded %.1f s after the start), 100 students in %.2f h\n", w, p, a - f, (a - f + (100 - w) * p) / 3600 }'
  fi
}

if runs class; then
step "a class: CLASS_STUDENTS students (default 3), each handing in every lab's reference, graded by grade batch"
sub=/tmp/course-class
n=${CLASS_STUDENTS:-3}
hand_in_references "$sub" "$n"
start=$(date +%s.%N)
if [ -n "${CLASS_KILL_AFTER:-}" ]; then
  # Killed outright mid-way (kill -9 of the batch and everything it started) and started again: what was recorded is
  # kept, nothing is graded twice (the second run says how many it found recorded), and every student ends recorded.
  (cd "$build" && exec setsid ./grade batch "$sub/submissions" --results "$sub/results" --commit "$commit") \
    >"$out/class-killed.txt" 2>&1 &
  killed=$!
  sleep "$CLASS_KILL_AFTER"
  kill -9 -- "-$killed" 2>/dev/null
  wait "$killed" 2>/dev/null
  before=$(ls "$sub"/results/students/*.json 2>/dev/null | wc -l)
  echo "killed with kill -9 after ${CLASS_KILL_AFTER} s: $before of $n students recorded" | tee "$out/class-resume.txt"
fi
touch "$sub/restart"  # the records of this run are newer: the rates below are measured on them alone
graded=$(( n - ${before:-0} ))
start=$(date +%s.%N)
(cd "$build" && ./grade batch "$sub/submissions" --results "$sub/results" --commit "$commit") \
  >"$out/class.txt" 2>&1 || status=1
end=$(date +%s.%N)
if [ -n "${CLASS_KILL_AFTER:-}" ]; then
  grep -m1 'recorded before' "$out/class.txt" | tee -a "$out/class-resume.txt"
  after=$(ls "$sub"/results/students/*.json 2>/dev/null | wc -l)
  echo "after the restart: $after of $n students recorded" | tee -a "$out/class-resume.txt"
  grep -q "($before recorded before" "$out/class.txt" && [ "$after" -eq "$n" ] || { echo "resume FAILED"; status=1; }
fi
cp "$sub/results/class.json" "$out/class.json" 2>/dev/null
# Every student handed in the reference: how far its timed runs strayed from the reference's in the same process.
python3 "$root/scripts/class_ratios.py" "$out/class.json" >"$out/class-ratios.txt" 2>&1 || status=1
awk -v n="$graded" -v s="$start" -v e="$end" 'BEGIN { w = e - s; printf "%d students, every lab, graded in %.1f s: %.1f s a student, 100 students in %.2f h at that rate (goal: under 2 h on one H200, proportionally less on more)\n", n, w, w / n, 100 * w / n / 3600 }' |
  tee "$out/class-rate.txt"
w=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$w" -ge 1 ] || w=1
steady_state "$sub" "$graded" "$w" "$start" | tee -a "$out/class-rate.txt"
fi

if runs scaling; then
# The same class on 1 GPU, then on SCALING_GPUS (default: every GPU of the host, space-separated counts, e.g. "2 4"),
# sanitized (grade batch's default), SCALING_STUDENTS students a GPU (default 3): the rate of each, the scaling
# against one GPU of this host, each GPU's share, and the largest reference-as-student ratio of every lab.
all_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
per=${SCALING_STUDENTS:-3}
step "scaling: $per students a GPU, each handing in every lab's reference, on 1 and ${SCALING_GPUS:-$all_gpus} GPU(s)"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader | tee "$out/scaling-gpus.txt"
nvidia-smi topo -m >>"$out/scaling-gpus.txt" 2>&1
# The host's cores and hardware threads: which CPUs grade_batch's workers may share a core through (placement.hpp).
{
  lscpu | grep -E '^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA)'
  echo "cpu0 siblings: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)"
} >>"$out/scaling-gpus.txt" 2>&1
# SCALING_ALONE_CPUS=LIST (e.g. 0-15, a quarter of a 64-CPU host) adds a run on one GPU with the batch held to those
# CPUs (taskset), named g1c: a worker's share of the cores without other workers beside it. Against g1 it says what
# fewer cores cost a worker; against the several-GPU runs, what the other workers cost it.
# SCALING_DRIVER_PROBE=MS times the driver's answers every MS ms on average while each class is graded
# (experiments/driver_lock/probe.cu, on the host's last GPU: the lock it measures is the whole host's): how busy the
# resource manager's lock was, scaling-gN-driver.json and a line in scaling.txt. SCALING_DRIVER_SAMPLES=MS samples
# who waits in the driver, in which call, every MS ms (experiments/check_contention/sample.py):
# scaling-gN-driver-samples.txt. The sampler reads every thread of every lab process and slows the class beside it
# (results/2026-11-28-h200x4-5c96eec), so it is asked for on its own: a run that measures the scaling leaves it out.
# SCALING_DRIVER_CENSUS=1 counts every driver call of every process and its seconds, by the role of the process
# (experiments/driver_lock/census.cpp, preloaded into every process of the host through /etc/ld.so.preload while
# each class is graded, as root): scaling-census.txt, a student's calls and seconds by role and kind on each GPU
# count, and their growth from one GPU to the most.
probe="" census=""
if [ -n "${SCALING_DRIVER_CENSUS:-}" ]; then
  census=/tmp/course-census.so
  if [ "$(id -u)" != 0 ] || [ -e /etc/ld.so.preload ]; then
    echo "no driver census: it needs root and no /etc/ld.so.preload of the host's own"; census=""
  elif ! g++ -O2 -shared -fPIC -o "$census" "$root/experiments/driver_lock/census.cpp" -ldl \
      >"$out/driver-census-build.log" 2>&1 || ! chmod 755 "$census"; then  # runners run as nobody: readable to all
    echo "no driver census: $out/driver-census-build.log"; census=""
  else
    trap 'rm -f /etc/ld.so.preload' EXIT
  fi
fi
if [ -n "${SCALING_DRIVER_PROBE:-}" ]; then
  probe=/tmp/course-driver-probe
  nvcc -O3 -std=c++17 -arch=sm_90 -o "$probe" "$root/experiments/driver_lock/probe.cu" \
    >"$out/driver-probe-build.log" 2>&1 || { echo "no driver probe: $out/driver-probe-build.log"; probe=""; }
fi
shared=()
[ "${SCALING_SHARE_CPUS:-0}" = 1 ] && for g in ${SCALING_GPUS:-$all_gpus}; do [ "$g" -gt 1 ] && shared+=("${g}s"); done
for g in 1 ${SCALING_ALONE_CPUS:+1c} "${shared[@]}" ${SCALING_GPUS:-$all_gpus}; do
  gpus=${g%[cs]}
  [ "$gpus" -le "$all_gpus" ] || { echo "only $all_gpus GPU(s): no run on $g"; continue; }
  [ "$g" = 1 ] && [ -f "$out/scaling-g1.txt" ] && continue
  cpus=() on="" share=()
  [ "$g" = 1c ] && cpus=(taskset -c "$SCALING_ALONE_CPUS") on=" on CPUs $SCALING_ALONE_CPUS"
  [ "${g%s}" != "$g" ] && share=(--share-cpus) on=" sharing the CPUs"
  sub=/tmp/course-scaling-$g
  n=$(( per * gpus ))
  hand_in_references "$sub" "$n"
  touch "$sub/restart"
  # The host's CPU time and run queue while the class is graded (/proc/stat every 2 s): host_load.py sums it.
  (while :; do echo "$(date +%s.%N) $(grep -E '^(cpu |ctxt|procs_running|procs_blocked)' /proc/stat | tr '\n' ' ')"
     sleep 2; done) >"$out/scaling-g$g-host.txt" 2>/dev/null &
  sampler=$!
  prober=""
  if [ -n "$probe" ]; then
    # Its idle calls first (200, about a second), before the class starts.
    CUDA_VISIBLE_DEVICES=$(( all_gpus - 1 )) "$probe" "$SCALING_DRIVER_PROBE" 200 >"$out/scaling-g$g-driver.json" &
    prober=$!
    sleep 3
  fi
  if [ -n "${SCALING_DRIVER_SAMPLES:-}" ]; then
    python3 "$root/experiments/check_contention/sample.py" "g$g" "$SCALING_DRIVER_SAMPLES" \
      >"$out/scaling-g$g-driver-samples.txt" 2>&1 &
    prober="$prober $!"
  fi
  if [ -n "$census" ]; then
    rm -rf /tmp/course-census && mkdir -m 1777 /tmp/course-census && echo "$census" >/etc/ld.so.preload
  fi
  start=$(date +%s.%N)
  (cd "$build" && "${cpus[@]}" ./grade batch "$sub/submissions" --results "$sub/results" --commit "$commit" \
     --gpus "$(seq -s, 0 $(( gpus - 1 )))" "${share[@]}") >"$out/scaling-g$g.txt" 2>&1 || status=1
  end=$(date +%s.%N)
  if [ -n "$census" ]; then
    rm -f /etc/ld.so.preload && rm -rf "/tmp/course-census-g$g" && mv /tmp/course-census "/tmp/course-census-g$g"
  fi
  kill "$sampler" 2>/dev/null
  [ -n "$prober" ] && { kill -INT $prober; wait $prober; }
  cp "$sub/results/class.json" "$out/scaling-g$g.json" 2>/dev/null
  {
    awk -v g="$gpus" -v on="$on" -v n="$n" -v s="$start" -v e="$end" 'BEGIN { printf "%d GPU(s)%s: %d students graded in %.1f s, %.1f s a student\n", g, on, n, e - s, (e - s) / n }'
    # Runs held to fewer CPUs or sharing them are not among the GPU counts the steady-state scaling below compares.
    steady_state "$sub" "$n" "$gpus" "$start" | { if [ -n "$on" ]; then sed "s/^steady state on/steady state$on,/"; else cat; fi; }
    grep '^  GPU ' "$out/scaling-g$g.txt"
    python3 "$root/scripts/host_load.py" "$out/scaling-g$g-host.txt"
    [ -n "$probe" ] && python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
print('driver lock: %.1f%% of %d calls slower than twice idle (median %.3f ms, 90th percentile %.3f, against %.3f'
      ' idle), %.3f ms waited a call on average' % (100 * d['slower_than_twice_idle'], d['calls'], d['median_ms'],
      d['p90_ms'], d['idle_median_ms'], d['mean_wait_ms']))" "$out/scaling-g$g-driver.json"
    python3 "$root/scripts/class_ratios.py" "$out/scaling-g$g.json" 0 --per-lab
  } | tee -a "$out/scaling.txt"
done
# Scaling: the steady-state time a student on one GPU over that on g GPUs (1.8 on two and 3.4 on four are the goals).
awk '/^steady state on/ { g = $4 + 0; t[g] = $6 } END { for (g in t) if (g > 1 && t[1] > 0) printf "scaling on %d GPUs: %.2fx one GPU of this host (steady state)\n", g, t[1] / t[g] }' \
  "$out/scaling.txt" | tee -a "$out/scaling.txt"
# The same scaling from the students' grading walls, with the bounds its few students leave it.
python3 "$root/scripts/class_scaling.py" "$out"/scaling-g*.json 2>&1 | tee -a "$out/scaling.txt"
if [ -n "$census" ]; then
  most=$(ls -d /tmp/course-census-g* | sed 's/.*-g//' | grep -v c | sort -n | tail -1)
  python3 "$root/experiments/driver_lock/census.py" /tmp/course-census-g1 "$per" \
    "/tmp/course-census-g$most" $(( per * most )) >"$out/scaling-census.txt" 2>&1 || status=1
fi
# Where each student's seconds went on each GPU count: what the workers contend for.
python3 "$root/scripts/class_phases.py" "$out"/scaling-g*.json >"$out/scaling-phases.txt" 2>&1 || status=1
# Whether the workers still grade in step: the seconds two or more were in the same step at once.
python3 "$root/scripts/class_timeline.py" "$out"/scaling-g*.json >"$out/scaling-timeline.txt" 2>&1 || status=1
fi

if runs experiments; then
step "experiments: each experiments/*/bench.cu built alone and run, its JSON in <folder>.json"
for bench in "$root"/experiments/*/bench.cu; do
  name=$(basename "$(dirname "$bench")")
  [ -z "${GPU_CHECK_EXPERIMENTS:-}" ] || [[ " $GPU_CHECK_EXPERIMENTS " == *" $name "* ]] || continue
  nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o "/tmp/$name" "$bench" -lcublas -lcuda >"$out/$name.build.log" 2>&1 &&
    "/tmp/$name" >"$out/$name.json" 2>"$out/$name.log" || { echo "$name failed"; tail -5 "$out/$name.log"; status=1; }
  echo "$name: $(wc -c <"$out/$name.json") bytes of JSON"
  # An experiment's profile.sh, when it has one, reads the built bench with the CUDA tools (SASS, ncu).
  if [ -f "$(dirname "$bench")/profile.sh" ]; then
    bash "$(dirname "$bench")/profile.sh" "/tmp/$name" "$out/$name" || { echo "$name: profile.sh failed"; status=1; }
  fi
done
fi

exit $status
