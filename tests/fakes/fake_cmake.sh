#!/usr/bin/env bash
# fake_cmake.sh: stands in for cmake when tests/grader/test_autograder.cpp runs autograder/run_autograder without a
# GPU or a CUDA build. It checks what a real configure would (each LABN_STUDENT_SOURCE names a file) and "builds" a
# lab by placing the fake lab binary (FAKE_LAB_BINARY) as labN and the real grade (GRADE_BINARY) beside it. A student
# source containing FAKE_COMPILE_ERROR fails the build as nvcc would, naming the file and line; one containing
# FAKE_REFUSED, as the static check would (docs/static-check.md), each followed by make's own lines as in a real build.
# Every call is appended to FAKE_CMAKE_LOG, so the test sees what run_autograder asked for.
set -euo pipefail
echo "$*" >> "${FAKE_CMAKE_LOG:-/dev/null}"

if [ "${1:-}" = "--build" ]; then
  build=$2
  shift 2
  targets=()
  while [ $# -gt 0 ]; do
    case $1 in
      --target) shift; while [ $# -gt 0 ] && [[ $1 != -* ]]; do targets+=("$1"); shift; done ;;
      *) shift ;;
    esac
  done
  for target in "${targets[@]}"; do
    case $target in
      grade) ln -sf "$GRADE_BINARY" "$build/grade" ;;
      lab[0-9]*)
        source=$(sed -n "s/^${target^^}_STUDENT_SOURCE=//p" "$build/fake-cache")
        line=$(grep -n FAKE_COMPILE_ERROR "$source" | head -n 1 | cut -d: -f1 || true)
        if [ -n "$line" ]; then
          echo "[ 50%] Building CUDA object $target"
          echo "$source($line): error: identifier \"FAKE_COMPILE_ERROR\" is undefined"
          echo "1 error detected in the compilation of \"$source\"."
          echo "gmake[3]: *** [CMakeFiles/${target}_student.dir/build.make:77: $target.o] Error 2"
          exit 2
        fi
        if grep -q FAKE_REFUSED "$source"; then
          echo "$source: refused: calls 'cudaStreamCreate' (rule 'streams': lab 01 allows no streams of your own)"
          echo "gmake[3]: *** [CMakeFiles/${target}_student_static_check.dir/build.make:76: static-check] Error 1"
          exit 2
        fi
        cp "$FAKE_LAB_BINARY" "$build/$target" ;;
    esac
  done
  exit 0
fi

# Configure: -S SOURCE -B BUILD -DNAME=VALUE ...; the cache is a file of NAME=VALUE lines.
build=
for arg in "$@"; do
  [ "${prev:-}" = "-B" ] && build=$arg
  prev=$arg
done
mkdir -p "$build"
: > "$build/fake-cache"
for arg in "$@"; do
  case $arg in
    -D*_STUDENT_SOURCE=*)
      value=${arg#*=}
      name=${arg#-D}
      name=${name%%=*}
      [ -f "$value" ] || { echo "CMake Error at cmake/AddLab.cmake:34 (message):"; echo "  $name: no such file: $value"; exit 1; }
      echo "$name=$value" >> "$build/fake-cache" ;;
  esac
done
echo "-- Build files have been written to: $build"
