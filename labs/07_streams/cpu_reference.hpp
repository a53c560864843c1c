#pragma once
// Lab 07's CPU references, in double precision. The host arrays the pipelines write are compared against these.
#include <vector>

namespace lab07::cpu {

/// "pipeline": y[i] = x[i]^2 + 3 x[i] - 1.
std::vector<double> poly(const std::vector<float>& x);
/// "stencil_pipeline": y[i] = x[i-1] + 2 x[i] + x[i+1], with zeros outside [0, n).
std::vector<double> stencil(const std::vector<float>& x);

}  // namespace lab07::cpu
