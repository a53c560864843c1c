#pragma once
// Lab 06's CPU references, in double precision. The GPU's float results are compared against them.
#include <cstdint>
#include <vector>

namespace lab06::cpu {

/// The transpose of a row-major rows x cols matrix: a row-major cols x rows matrix.
std::vector<double> transpose(const std::vector<float>& in, std::int64_t rows, std::int64_t cols);

/// The sum of each row of a row-major rows x cols matrix: `rows` values.
std::vector<double> row_sums(const std::vector<float>& in, std::int64_t rows, std::int64_t cols);

}  // namespace lab06::cpu
