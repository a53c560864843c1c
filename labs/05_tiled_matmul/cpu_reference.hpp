#pragma once
// Lab 05's CPU references, in double precision. The GPU's float results are compared against these.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lab05::cpu {

/// Every element of C = A * B for row-major A (m x k), B (k x n): m * n * k multiply-adds, for small shapes.
std::vector<double> matmul(const std::vector<float>& a, const std::vector<float>& b, std::int64_t m, std::int64_t n,
                           std::int64_t k);

/// C's elements at the row-major `indices` (i * n + j) only: k multiply-adds each, for shapes whose full product
/// would take the CPU minutes (4096^3 is 6.9e10 multiply-adds).
std::vector<double> matmul_at(const std::vector<float>& a, const std::vector<float>& b, std::int64_t m,
                              std::int64_t n, std::int64_t k, const std::vector<std::size_t>& indices);

/// Which elements of an m x n output to check when not all of them: sorted, without repeats. Every pair of "edge"
/// rows and columns (0, 1, the last two, and both sides of every multiple of 128, the largest block tile), all of
/// the first, last and one random row and column (each thread of any tiling owns some element in them), and 4096
/// random elements (the interior of every thread tile, by chance).
std::vector<std::size_t> sample_indices(std::int64_t m, std::int64_t n, std::uint64_t seed);

}  // namespace lab05::cpu
