#include "cpu_reference.hpp"

#include <harness/parallel.hpp>
#include <harness/random.hpp>

#include <algorithm>
#include <stdexcept>

namespace lab05::cpu {

namespace {
void check_shape(const std::vector<float>& a, const std::vector<float>& b, std::int64_t m, std::int64_t n,
                 std::int64_t k) {
  if (m < 1 || n < 1 || k < 1 || static_cast<std::int64_t>(a.size()) != m * k ||
      static_cast<std::int64_t>(b.size()) != k * n)
    throw std::invalid_argument("matmul: bad shape");
}
}  // namespace

std::vector<double> matmul(const std::vector<float>& a, const std::vector<float>& b, std::int64_t m, std::int64_t n,
                           std::int64_t k) {
  check_shape(a, b, m, n, k);
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)  // i-p-j order: the inner loop walks rows of B and C contiguously
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = a[i * k + p];
      const float* brow = &b[p * n];
      double* crow = &c[i * n];
      for (std::int64_t j = 0; j < n; ++j) crow[j] += aip * brow[j];
    }
  return c;
}

std::vector<double> matmul_at(const std::vector<float>& a, const std::vector<float>& b, std::int64_t m,
                              std::int64_t n, std::int64_t k, const std::vector<std::size_t>& indices) {
  check_shape(a, b, m, n, k);
  for (std::size_t idx : indices)
    if (idx >= static_cast<std::size_t>(m * n)) throw std::out_of_range("matmul_at: index outside C");
  std::vector<double> c(indices.size());
  // Samples over the host's cores: about 34,000 dot products of length 4096 at the timed shape, in every `time` run.
  // At least 2^20 multiply-adds a core, as elsewhere (harness/parallel.hpp).
  const auto min_samples = std::max<std::size_t>(1, (std::size_t{1} << 20) / static_cast<std::size_t>(k));
  harness::parallel_chunks(indices.size(), min_samples, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t q = begin; q < end; ++q) {
      const std::int64_t i = static_cast<std::int64_t>(indices[q]) / n, j = static_cast<std::int64_t>(indices[q]) % n;
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p) s += static_cast<double>(a[i * k + p]) * b[p * n + j];
      c[q] = s;
    }
  });
  return c;
}

std::vector<std::size_t> sample_indices(std::int64_t m, std::int64_t n, std::uint64_t seed) {
  const auto edges = [&](std::int64_t extent, std::uint64_t salt) {
    std::vector<std::int64_t> e = {0, 1, extent - 2, extent - 1};
    for (std::int64_t t = 128; t < extent; t += 128) {
      e.push_back(t - 1);
      e.push_back(t);
    }
    for (std::uint64_t r = 0; r < 8; ++r) e.push_back(static_cast<std::int64_t>(harness::hash64(seed + salt, r) % extent));
    std::erase_if(e, [&](std::int64_t v) { return v < 0 || v >= extent; });
    return e;
  };
  const auto rows = edges(m, 11), cols = edges(n, 23);
  std::vector<std::size_t> s;
  for (auto i : rows)
    for (auto j : cols) s.push_back(static_cast<std::size_t>(i * n + j));
  const std::int64_t random_row = static_cast<std::int64_t>(harness::hash64(seed, 101) % m);
  const std::int64_t random_col = static_cast<std::int64_t>(harness::hash64(seed, 103) % n);
  for (std::int64_t i : {std::int64_t{0}, m - 1, random_row})
    for (std::int64_t j = 0; j < n; ++j) s.push_back(static_cast<std::size_t>(i * n + j));
  for (std::int64_t j : {std::int64_t{0}, n - 1, random_col})
    for (std::int64_t i = 0; i < m; ++i) s.push_back(static_cast<std::size_t>(i * n + j));
  for (std::uint64_t r = 0; r < 4096; ++r) s.push_back(static_cast<std::size_t>(harness::hash64(seed + 7, r) % (m * n)));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace lab05::cpu
