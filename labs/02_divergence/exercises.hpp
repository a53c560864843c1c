#pragma once
// Lab 02's exercise parameters, shared by the problems (exercises.cpp) and what the referee times beside them
// (support/measures.cpp).
namespace lab02 {

/// Steps per element in "branches": 512 dependent FMAs (1024 flops) per 8 bytes moved, 128 flops per byte, far above
/// the ~16 flops per byte where an H200 turns from memory-bound to compute-bound: the arithmetic decides.
inline constexpr int kIterations = 512;

/// "regroup": elements are drawn uniformly from the integers kInputLo..kInputHi, the ones at or above the shape's
/// threshold heavy. A heavy element takes kHeavySteps dependent FMAs, a light one kLightSteps: at 2^24 elements with
/// 1 in 16 heavy the heavy chains are 94% of the flops, so the heavy path decides the time.
inline constexpr int kHeavySteps = 4096;
inline constexpr int kLightSteps = 16;  ///< see kHeavySteps
inline constexpr int kInputLo = 1;      ///< see kHeavySteps
inline constexpr int kInputHi = 16;     ///< see kHeavySteps

}  // namespace lab02
