// Lab 04: the reduction staircase -- the baseline (instructors' file, not the student's): the zero of each stage's
// performance scale. Stage k's baseline is stage k-1's reference kernel (stage 1's is stage 1 itself), so a stage
// earns points only for its own step: the reference's own launchers, registered one stage later. They are kept out of
// stub.cu, which must not hand over the previous stage's answer: every stub starts from stage 1's kernel
// (cmake/AddLab.cmake, issue 15).
#define LAB04_BASELINE
#include "solution.cu"

REGISTER_LAUNCHER("atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("warp_atomic", lab04::SumLauncher, launch_atomic);
REGISTER_LAUNCHER("block_atomic", lab04::SumLauncher, launch_warp_atomic);
REGISTER_LAUNCHER("grid_stride", lab04::SumLauncher, launch_block_atomic);
REGISTER_LAUNCHER("vectorized", lab04::SumLauncher, launch_grid_stride);
