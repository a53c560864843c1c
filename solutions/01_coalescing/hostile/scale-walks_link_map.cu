// expect: compile error link_map_walk.hpp
// Hostile fixture, must be harmless (only sandboxed): a scale that first finds open and dlopen by walking its runner's
// link map in memory (tests/harness/link_map_walk.hpp: no name a static check can see) and tries to read a file and
// load cuBLAS through them. The runner's lock-down (harness/sandbox.hpp) refuses both, so it computes the right
// answer; if either works it writes zeros instead, so the GPU test `lab1.hostile_scale-walks_link_map.harmless` fails
// when the lock-down is gone, and `lab1.hostile_scale-walks_link_map.unsandboxed.rejected` shows it is gone there.
// (Its include of the walker is what the static check refuses: a submission would carry the walker inline.)
#include "coalescing.hpp"

#include <harness/launcher.hpp>

#include "../../../tests/harness/link_map_walk.hpp"

#include <fcntl.h>

namespace {

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream);

bool reaches_outside() {
  using OpenFn = int (*)(const char*, int, ...);
  using LoadFn = void* (*)(const char*, int);
  const void* own = reinterpret_cast<const void*>(&launch_scale);
  const auto open_fn = reinterpret_cast<OpenFn>(link_map_walk::find(own, "open"));
  const auto load_fn = reinterpret_cast<LoadFn>(link_map_walk::find(own, "dlopen"));
  if (!open_fn || !load_fn) return true;  // the walk itself failed: say so the loud way
  return open_fn("/etc/passwd", O_RDONLY) >= 0 || load_fn("libcublas.so.13", 2 /* RTLD_NOW */) != nullptr;
}

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  static const bool reached = reaches_outside();
  if (reached) {
    CUDA_CHECK(cudaMemsetAsync(y, 0, n * sizeof(float), stream));  // the marker: a wrong answer
    return;
  }
  if (n == 0) return;
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
