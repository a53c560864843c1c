#!/usr/bin/env bash
# one-off: build, targeted tests, grade all (stub) with phase timings
set -u
OUT=$1
B=/tmp/pb
rm -rf /tmp/pb.done
cmake -S . -B $B -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr -DCMAKE_CUDA_ARCHITECTURES=90 >$OUT/build.log 2>&1
make -C $B -j16 >>$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
cd $B
COURSE_REQUIRE_GPU=1 ctest -R "harness\.|out_of_bounds|reads_past|lab7.cpu" --output-on-failure >$OUT/ctest-targeted.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed" $OUT/ctest-targeted.log | tail -8
./lab1 check --impl mutant:sampled_only --seeds 1 --exercise scale >$OUT/mutant-msg.txt 2>&1; echo "mutant rc=$?"
./lab5 time --impl mutant:sampled_only --exercise naive --max-seconds 1 >>$OUT/mutant-msg.txt 2>&1
./grade all --output $OUT/profile.json > $OUT/profile.txt 2>&1; echo "grade rc=$?"
grep -E "graded in|total|weighted" $OUT/profile.txt
