#pragma once
// Lab 02, warp divergence: the launcher contract every implementation of this lab (your student.cu, the reference,
// the baseline) provides. CUDA-free: host code includes it too.
//
// All pointers are device pointers aligned to at least 256 bytes. A launcher enqueues its work on `stream` and
// returns without synchronizing; the harness owns synchronization and timing.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace lab02 {

/// The two paths of exercise 1: element i starts at v = x[i] and applies `iterations` steps of
///   even i:  v = v * kEvenScale + kEvenShift
///   odd i:   v = v * kOddScale  + kOddShift
/// (one fused multiply-add per step; fmaf or `v * a + b`, which nvcc contracts to the same instruction).
inline constexpr float kEvenScale = 0.999f;
inline constexpr float kEvenShift = 0.125f;
inline constexpr float kOddScale = -0.999f;
inline constexpr float kOddShift = 0.5f;

/// Exercise 1, "branches": y[i] = the path of (i % 2) applied `iterations` times to x[i], for i in [0, n).
/// The result for element i must land in y[i], whichever thread computes it.
using BranchesLauncher = void (*)(const float* x, float* y, std::int64_t n, int iterations, cudaStream_t stream);

/// The segment length of exercise 2.
inline constexpr int kSegment = 256;

/// Exercise 2, "block_sums": sums[b] = x[256 b] + ... + x[min(256 b + 255, n - 1)] for b in [0, ceil(n / 256)):
/// the first pass of a tree reduction, one sum per 256-element segment (the last segment may be shorter).
using BlockSumsLauncher = void (*)(const float* x, float* sums, std::int64_t n, cudaStream_t stream);

/// The two paths of exercise 3: element i starts at v = x[i]; it is heavy when x[i] >= threshold and then applies
/// `heavy_steps` steps of v = v * kHeavyScale + kHeavyShift; otherwise it is light and applies `light_steps` steps of
/// v = v * kLightScale + kLightShift (one fused multiply-add per step, as in exercise 1).
/// The heavy scale is 1 - 2^-12 (exact in float): after the 4096 steps the tests use, a third of x survives
/// ((1 - 2^-12)^4096 = 0.37), so the results of different inputs stay far apart next to the rounding error. The
/// heavy path drifts towards -1, the light one towards 32: for the inputs 1..16 their results never meet.
inline constexpr float kHeavyScale = 0.999755859375f;  // 1 - 2^-12
inline constexpr float kHeavyShift = -0.000244140625f;  // -2^-12
inline constexpr float kLightScale = 0.96875f;          // 1 - 2^-5
inline constexpr float kLightShift = 1.0f;

/// Exercise 3, "regroup": y[i] = the heavy path of x[i] if x[i] >= threshold, else its light path, for i in [0, n).
/// The result for element i must land in y[i], whichever thread computes it, and x must not be written.
///
/// What you may assume: 1 <= n < 2^31 (an element's index fits an int); heavy_steps, light_steps >= 0; the values of
/// x are finite (the tests use integers 1..16, so a threshold t makes the elements >= t heavy: 1 in 16 at t = 16,
/// every one at t = 1, none at t = 17). y arrives poisoned (NaN): every element must be written. Which elements are
/// heavy, and how many, is known only on the device (a launcher does not synchronize, so the host cannot read it).
///
/// Scratch: `worklist` has room for n ints and `count` for one int, both yours to use as you like during the call
/// (the indices of the heavy elements and their number, for example). Their contents on entry are garbage: the
/// harness fills them with 0x7FFFFFFF words (every int reads INT_MAX) before every checked run, and during timing
/// every call finds what the previous call left. A launcher that counts in them must therefore reset its counter itself, on
/// `stream`, at every call (cudaMemsetAsync(count, 0, sizeof(int), stream)), not once. Writes outside them are caught.
using RegroupLauncher = void (*)(const float* x, float* y, std::int64_t n, float threshold, int heavy_steps,
                                 int light_steps, int* worklist, int* count, cudaStream_t stream);

}  // namespace lab02
