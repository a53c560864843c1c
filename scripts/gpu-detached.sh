#!/usr/bin/env bash
# Runs scripts/gpu-check.sh phases for longer than one command of the lent GPU machine may run (10 minutes), over
# several calls. The machine ends every process a command leaves running when the command returns, except one in a
# process session of its own: `start` copies the tree (a later call may replace the working tree under a running
# job) and starts the steps one after another in a session of their own (setsid); `wait`, call after call, waits for
# them to end and brings back what they wrote so far as $OUT/NAME.tgz.
#
#   scripts/gpu-detached.sh start NAME COMMIT STEP...    STEP: PHASES, or PHASES:VAR=VALUE,VAR=VALUE (that step's env)
#   scripts/gpu-detached.sh wait NAME SECONDS
#
# e.g. `start x4 COMMIT exploits "scaling:SCALING_GPUS=2 4,SCALING_STUDENTS=2"`, then `wait x4 540` in each call until
# it says "done", each call made as soon as the last returns: the machine goes back when it has been idle about 30 s,
# and the job goes with it (the next `wait` then says "no job"). Keep SECONDS well below the call's limit (and the
# session's device time left): the tar is made after the wait, and a call stopped at its limit brings nothing back.
# `wait` says at once when the job ended without finishing (its session was killed, the machine is a fresh one): no
# call is spent waiting on a job that is gone.
# `start` refuses a NAME whose job is still running (it would delete the job's files under it).
# GPU_DETACHED_DIR (default /tmp/gpu-detached) holds the jobs; GPU_CHECK (default: the copy's scripts/gpu-check.sh)
# is what each step runs.
set -uo pipefail
jobs=${GPU_DETACHED_DIR:-/tmp/gpu-detached}
usage="usage: scripts/gpu-detached.sh start NAME COMMIT STEP... | wait NAME SECONDS"

case "${1:-}" in
start)
  [ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
  name=$2 commit=$3
  shift 3
  dir=$jobs/$name
  root=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -f "$dir/done" ] && [ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    echo "job $name is still running (session $(cat "$dir/pid")): wait for it, or name another" >&2
    exit 2
  fi
  rm -rf "$dir" && mkdir -p "$dir/tree" "$dir/out" || exit 1
  # The tree without its build folders and history (gpu-check.sh builds in a folder of its own).
  tar -C "$root" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$dir/tree" -xf - || exit 1
  check=${GPU_CHECK:-$dir/tree/scripts/gpu-check.sh}
  # The job: its session's leader writes its pid (for `wait` to tell a job gone from one still running), runs each
  # step with its own variables, and marks the end.
  setsid bash -c '
    dir=$1 check=$2 commit=$3
    shift 3
    echo $$ >"$dir/pid"
    for step in "$@"; do
      phases=${step%%:*} vars=()
      [[ "$step" == *:* ]] && IFS=, read -ra vars <<<"${step#*:}"
      (cd "$dir/tree" && env "${vars[@]}" "$check" "$dir/out" "$commit" "$phases") \
        >"$dir/console-${phases//,/+}.txt" 2>&1
      echo "$phases exited $? at $(date -u +%T)" >>"$dir/steps.log"
    done
    touch "$dir/done"' job "$dir" "$check" "$commit" "$@" </dev/null >/dev/null 2>&1 &
  for _ in $(seq 50); do [ -s "$dir/pid" ] && break; sleep 0.1; done
  echo "started $name in $dir (session $(cat "$dir/pid" 2>/dev/null))"
  ;;
wait)
  [ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
  name=$2 seconds=$3
  dir=$jobs/$name
  [ -d "$dir" ] || { echo "no job $name in $jobs: this machine is not the one that started it"; exit 3; }
  alive() { [ -f "$dir/done" ] || { [ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }; }
  end=$((SECONDS + seconds))
  while [ ! -f "$dir/done" ] && alive && [ $SECONDS -lt $end ]; do sleep 2; done
  cat "$dir/steps.log" 2>/dev/null
  [ -n "${OUT:-}" ] && tar czf "$OUT/$name.tgz" -C "$dir" --exclude=./tree . && echo "brought back: $OUT/$name.tgz"
  if [ -f "$dir/done" ]; then
    echo "done"
  elif alive; then
    echo "still running after $seconds s"
  else
    echo "ended without finishing: its session was killed"
    exit 4
  fi
  ;;
*)
  echo "$usage" >&2
  exit 2
  ;;
esac
