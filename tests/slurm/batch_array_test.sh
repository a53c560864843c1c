#!/usr/bin/env bash
# A real Slurm on this machine grades a small class as a job array (docs/batch.md): this script starts slurmctld and
# slurmd for one node, in a folder of its own with a minimal slurm.conf (auth/none: nothing but this machine talks
# to it), runs `grade batch --slurm --submit` over four fake students graded by the fake lab (tests/fakes), waits
# for the array and the merge job after it, and checks the merged class file.
#
#   batch_array_test.sh GRADE FAKE_LAB FAKE_LABS_DIR
#
# The node offers one fake GPU per device file in SLURM_TEST_GPU_FILES (default /dev/null: gres.conf needs a file per
# GPU), so the scripts' `--gres=gpu:1` is scheduled as on a real cluster; SLURM_TEST_GPU_FILES=none drops the gres
# and submits with --gres ''.
# Exit 77 (ctest: skipped) where slurm-wlm is not installed or this is not root (slurmd must be); .ci/run installs it.
set -eu  # no pipefail: `grep -q` ends a pipe early on purpose
grade=$1 fake_lab=$2 labs_dir=$3
for tool in slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found (apt-get install slurm-wlm)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: slurmd must run as root"; exit 77; }

dir=$(mktemp -d /tmp/slurm-test-XXXXXX)
cleanup() {
  for daemon in slurmd slurmctld; do
    [ -f "$dir/$daemon.pid" ] && kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for log in "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/results/slurm/*.log; do
    [ -f "$log" ] && { echo "--- $log"; tail -n 30 "$log"; }
  done
  exit 1
}

host=$(hostname -s)
files=${SLURM_TEST_GPU_FILES:-/dev/null}
[ "$files" = none ] && files=""
gpus=$(echo $files | wc -w)
port=$((20000 + RANDOM % 20000))
mkdir -p "$dir/state" "$dir/spool"
gres_node="" gres_types=""
if [ "$gpus" -gt 0 ]; then
  gres_node=" Gres=gpu:$gpus" gres_types="GresTypes=gpu"
  echo "AutoDetect=off" > "$dir/gres.conf"
  for file in $files; do echo "Name=gpu File=$file" >> "$dir/gres.conf"; done
fi
cat > "$dir/slurm.conf" <<CONF
ClusterName=gradetest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
$gres_types
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000$gres_node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^idle' && break
  sleep 1
done
sinfo -h -o %T | grep -qE '^idle' || fail "the node never became idle: $(sinfo -h -o '%T %E' 2>&1)"

# Four fake students for the fake lab: the "compiler" copies the file, which the fake lab reads as its mode.
subs=$dir/submissions
mkdir -p "$subs"/{amy,bob,cat,dan} "$dir/runners" "$dir/contract"
for s in amy bob dan; do echo "FAKE_LAB_MODE=good" > "$subs/$s/lab1.cu"; done
echo "FAKE_LAB_MODE=slow_student" > "$subs/cat/lab1.cu"
touch "$dir/runners/lab1-reference" "$dir/runners/lab1-baseline"
cat > "$dir/lab1.json" <<JSON
{"schema": 1, "lab": 1, "id": "01_fake", "lab_binary": "$fake_lab",
 "runners_dir": "$dir/runners", "contract": "$dir/contract", "compile": ["/bin/cp", "{source}", "{object}"],
 "link": ["/bin/cp", "{object}", "{output}"]}
JSON
gres_args=()
[ "$gpus" -gt 0 ] || gres_args=(--gres '')
out=$("$grade" batch "$subs" --labs-dir "$labs_dir" --recipes "$dir" --results "$dir/results" --commit abc1234 \
      --slurm --array-size 2 --submit --partition test --time-limit 10 "${gres_args[@]}" 2>&1) ||
  fail "grade batch --slurm --submit: $out"
echo "$out"

for _ in $(seq 180); do
  [ -z "$(squeue -h 2>/dev/null)" ] && [ -f "$dir/results/class.json" ] && break
  sleep 1
done
[ -f "$dir/results/class.json" ] || fail "no class.json after 180 s; queue: $(squeue 2>&1)"
class=$dir/results/class.json
for s in amy bob cat dan; do
  grep -q "\"student\": \"$s\"" "$class" || fail "$s is missing from class.json"
done
[ "$(grep -c '"student": "' "$class")" = 4 ] || fail "class.json does not list exactly 4 students"
grep -q '"kind": "class"' "$class" || fail "class.json is not a class file"
grep -q '"error": null' "$class" || fail "class.json has no student graded without error"
ls "$dir/results/slurm/shard-0.log" "$dir/results/slurm/shard-1.log" >/dev/null || fail "a shard left no log"
grep -q "shard 0/2" "$dir/results/slurm/shard-0.log" || fail "shard 0 did not run as shard 0/2"
grep -q "shard 1/2" "$dir/results/slurm/shard-1.log" || fail "shard 1 did not run as shard 1/2"
echo "PASS: 4 students graded by a 2-task Slurm array and merged"
