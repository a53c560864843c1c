#!/usr/bin/env bash
# Whether the runners' sandbox stands in the way of compute-sanitizer: labs 1 and 6 built from /tmp/src (the tree
# scripts/gpu-check.sh runs from) with the sandbox kept up under a CUDA tool (the early return of 2152708 patched
# out), then the known-wrong fixtures' and the references' sanitizer runs; one line each on the console, each run's
# output in OUT_DIR/sbx-LAB-IMPL-TOOL.txt.
#   experiments/sanitizer/sandbox_under_tool.sh OUT_DIR
out=$1
rm -rf /tmp/src2 /tmp/b2 && cp -r /tmp/src /tmp/src2
sed -i 's/^  if (g_tool_attached) return;.*$/  \/\/ patched: sandbox on under tools/' \
  /tmp/src2/harness/runner/src/main.cpp
grep -n "patched" /tmp/src2/harness/runner/src/main.cpp
cmake -S /tmp/src2 -B /tmp/b2 -G "Unix Makefiles" -DCOURSE_LABS="01_coalescing;06_bank_conflicts" \
  -DCMAKE_PREFIX_PATH=/tmp/src2/.deps/root/usr > "$out/b2.log" 2>&1 &&
  make -C /tmp/b2 -j16 lab1 lab6 lab1-fixtures lab6-fixtures >> "$out/b2.log" 2>&1 ||
  { echo build failed; tail "$out/b2.log"; }
cd /tmp/b2 || exit 1
timeout 60 compute-sanitizer --tool memcheck runners/lab1-reference --sandbox 2>&1 | tail -3
for spec in "lab1 wrong_shared_past_end dot memcheck" \
            "lab6 wrong_reused_tile_no_barrier transpose_padded racecheck" \
            "lab1 reference scale memcheck" "lab6 reference transpose_padded racecheck"; do
  set -- $spec
  s=$(date +%s)
  timeout 120 compute-sanitizer --tool "$4" --target-processes all --target-processes-filter "regex:^$1-" \
    --error-exitcode 86 --print-limit 10 "./$1" check --impl "$2" --exercise "$3" --seeds 1 --small \
    > "$out/sbx-$1-$2-$4.txt" 2>&1
  echo "sandboxed under tool: $spec: exit $? in $(( $(date +%s) - s )) s;" \
    "$(grep -m1 -E '^========= (Invalid|Error|ERROR)' "$out/sbx-$1-$2-$4.txt")"
done
