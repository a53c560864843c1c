// A kernel that keeps one block of the GPU busy for a given time: another process's work, for the idle check's test
// (gpu_test.cpp, harness::IdleGpu).
#include <cuda_runtime_api.h>

namespace {

__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

}  // namespace

void launch_spin(unsigned long long ns, cudaStream_t stream) { spin<<<1, 32, 0, stream>>>(ns); }
