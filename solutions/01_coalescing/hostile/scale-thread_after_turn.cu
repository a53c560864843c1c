// expect: compile error link_map_walk.hpp
// Hostile fixture, must be harmless (only sandboxed): a scale that starts a thread of its own, through pthread_create
// found by walking its runner's link map (tests/harness/link_map_walk.hpp), to keep the GPU busy with kernels of its
// own after its launcher has returned: whoever is timed next would run slower. The runner's lock-down refuses the
// thread (the test `lab1.hostile_scale-thread_after_turn.harmless` passes: it computes the right answer); without the
// lock-down the referee finds the thread at the end of the runner's turn and refuses the runner
// (`lab1.hostile_scale-thread_after_turn.unsandboxed.rejected`, referee/include/harness/runner.hpp).
#include "coalescing.hpp"

#include <harness/launcher.hpp>

#include "../../../tests/harness/link_map_walk.hpp"

#include <pthread.h>

#include <chrono>

namespace {

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

// 1 ms kernels one after another on a stream of its own, for 3 s: long after the launcher has returned.
void* keep_busy(void*) {
  cudaStream_t own;
  if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) return nullptr;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < end) {
    spin<<<1, 32, 0, own>>>(1'000'000ull);
    cudaStreamSynchronize(own);
  }
  return nullptr;
}

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  static const bool started = [] {
    using ThreadFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
    const auto create = reinterpret_cast<ThreadFn>(
        link_map_walk::find(reinterpret_cast<const void*>(&keep_busy), "pthread_create"));
    pthread_t thread;
    return create && create(&thread, nullptr, keep_busy, nullptr) == 0;
  }();
  (void)started;
  if (n == 0) return;
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
