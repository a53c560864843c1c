// How long the mismatch hint takes to classify a fully wrong output (harness/mismatch_hint.hpp): the two reruns'
// comparison (classify_reruns) and the pattern (classify_mismatch), at 2^22 elements that are all 0 where 1 is
// expected. The figures in docs/threat-model.md and results/README.md (267 s before commit 3ffca93, 0.16 s after, on
// the 2-core CI machine) are this program's output. No GPU needed; from the repository root, after a build:
//   g++ -std=c++20 -O2 -Iharness/include experiments/hint_classification/bench.cpp build/harness/libharness.a \
//       -L/usr/local/cuda/lib64 -lcudart -lpthread -o /tmp/hint_bench && /tmp/hint_bench
#include <harness/compare.hpp>
#include <harness/mismatch_hint.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  const std::size_t n = std::size_t{1} << 22;
  const std::vector<float> first(n, 0.0f), second(n, 0.0f);
  const std::vector<double> expected(n, 1.0);
  const auto tol = harness::Tolerance::exact();
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto reruns = harness::classify_reruns(first.data(), second.data(), expected.data(), n, tol);
  const auto t1 = Clock::now();
  const auto pattern = harness::classify_mismatch(first.data(), expected.data(), n, tol, {static_cast<std::int64_t>(n)});
  const auto t2 = Clock::now();
  std::printf("n = %zu wrong elements: classify_reruns %.3f s (%s), classify_mismatch %.3f s (%s)\n", n,
              std::chrono::duration<double>(t1 - t0).count(), std::string(harness::to_string(reruns.kind)).c_str(),
              std::chrono::duration<double>(t2 - t1).count(), std::string(harness::to_string(pattern.kind)).c_str());
}
