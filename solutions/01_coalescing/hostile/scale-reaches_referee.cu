// expect: refused files
// Hostile fixture, must be harmless: a scale that first tries to reach its referee (the lab binary that started its
// runner) through /proc: its memory, and its results pipe (fd 3). A runner that could open either could forge any
// verdict. The referee is not dumpable, and a runner started by root drops to an unprivileged user, so both opens
// must fail; then it computes the right answer. If it reaches the referee it writes zeros instead, so the GPU test
// `lab1.hostile_scale-reaches_referee.harmless` (a check that must pass) fails when the defense is gone.
#include "coalescing.hpp"

#include <harness/launcher.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace {

bool reaches_referee() {
  const std::string proc = "/proc/" + std::to_string(::getppid());
  for (const auto& [path, flags] : {std::pair{proc + "/mem", O_RDONLY}, std::pair{proc + "/fd/3", O_WRONLY}}) {
    const int fd = ::open(path.c_str(), flags);
    if (fd >= 0) {
      ::close(fd);
      return true;
    }
  }
  return false;
}

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, float alpha) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i];
}

void launch_scale(const float* x, float* y, std::int64_t n, float alpha, cudaStream_t stream) {
  static const bool reached = reaches_referee();
  if (reached) {
    CUDA_CHECK(cudaMemsetAsync(y, 0, n * sizeof(float), stream));  // the marker: a wrong answer
    return;
  }
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n, alpha);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

REGISTER_LAUNCHER("scale", lab01::ScaleLauncher, launch_scale);
