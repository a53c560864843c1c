// CHECK(call) for the experiments' standalone benches (each built alone with nvcc, without the harness): a failed
// CUDA runtime call prints where and why, and ends the bench.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)
