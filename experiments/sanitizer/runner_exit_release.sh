#!/usr/bin/env bash
# Whether the sanitizer fixture tests can fail on a runner's unclean exit: the GPU tests labN.wrong_*.sanitized
# (tests/sanitizer/sanitize_fixture.cpp) run on a copy of this tree whose runner leaves its stream and events to its
# static destructor, as it did before it released them when main() returns (harness/runner/src/main.cpp,
# ReleaseAtReturn). Expected: each test fails, saying a CUDA object outlived the runtime (cudaErrorCudartUnloading
# printed by the runner under the tool's front end). OUT_DIR gets rer-console.txt and rer-build.log.
#   experiments/sanitizer/runner_exit_release.sh OUT_DIR
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
exec > >(tee "$out/rer-console.txt") 2>&1
copy=/tmp/rer-tree build=/tmp/rer-build
rm -rf "$copy" "$build" && mkdir -p "$copy" "$build"
tar -C "$root" --exclude=./.git --exclude='./build*' --exclude=./results -cf - . | tar -C "$copy" -xf -
main=$copy/harness/runner/src/main.cpp
grep -q '~ReleaseAtReturn() { s.release_cuda(); }' "$main" ||
  { echo "the release is not where this script looks"; exit 1; }
sed -i 's/~ReleaseAtReturn() { s.release_cuda(); }/~ReleaseAtReturn() {}/' "$main"
echo "runner main() with the release taken out:"
grep -n 'ReleaseAtReturn() {}' "$main"
prefix=()
[ -d "$root/.deps/root/usr" ] && prefix+=(-DCMAKE_PREFIX_PATH="$root/.deps/root/usr")
cmake -S "$copy" -B "$build" -G "Unix Makefiles" "${prefix[@]}" >"$out/rer-build.log" 2>&1 &&
  make -C "$build" -j"$(nproc)" sanitize_fixture >>"$out/rer-build.log" 2>&1 ||
  { tail -30 "$out/rer-build.log"; exit 1; }
export COURSE_REQUIRE_GPU=1
(cd "$build" && ctest -R 'wrong_.*\.sanitized$' --output-on-failure)
status=$?
echo "ctest exited $status (expected: not 0, every test failing on cudaErrorCudartUnloading)"
failed_on_exit=$(grep -c 'a CUDA object outlived the runtime' "$out/rer-console.txt")
echo "tests that failed on a runner's exit: $failed_on_exit"
