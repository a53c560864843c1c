# Sourced by measure.sh and phases.sh: `run LABEL COMMAND...` runs one `labN time` (COMMAND gets `--results`) and
# prints one line: its wall clock split into before results (its phases) and exit (results written to process gone),
# with the medians of the student, reference and baseline (phases_line.py).
run() {
  local label=$1; shift
  local t0 t1 written
  rm -f /tmp/timed_run.json
  t0=$(date +%s.%N)
  "$@" --results /tmp/timed_run.json >/dev/null 2>&1
  t1=$(date +%s.%N)
  written=$(stat -c %.9Y /tmp/timed_run.json 2>/dev/null || echo "$t1")
  python3 "$(dirname "${BASH_SOURCE[0]}")/phases_line.py" "$label" "$t0" "$t1" "$written" /tmp/timed_run.json
}
