// Where `labN time` spends its "generate" phase: each exercise of the lab this is linked with, made and generated at
// its timed shape in host-only mode (no GPU: the uploads are not counted, the host work is). From the repository root,
// after a build, for lab N (every object of its lab sources, support kernels included; lab 5 needs cuBLAS):
//   g++ -std=c++20 -O2 -Iharness/include -I/usr/local/cuda/include experiments/generate_cost/bench.cpp \
//       $(find build/CMakeFiles/labN_sources.dir -name '*.o') build/harness/libharness.a \
//       -L/usr/local/cuda/lib64 -lcublas -lcudart -lpthread -o /tmp/gen && /tmp/gen
// On the 2-core CI machine perf put about 60% of lab 1's generate in page faults and clearing.
#include <harness/problem.hpp>

#include <chrono>
#include <cstdio>

int main() {
  harness::set_host_only(true);
  for (const auto& spec : harness::lab().exercises) {
    const auto t0 = std::chrono::steady_clock::now();
    auto p = spec.make(spec.timed_shape);
    const auto t1 = std::chrono::steady_clock::now();
    p->generate(12345);
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("%-18s %-14s make %.3f s  generate %.3f s\n", spec.name.c_str(), spec.timed_shape.str().c_str(),
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
  }
}
