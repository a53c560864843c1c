// Experiment (issue 31): how busy a host's NVIDIA driver is while a class is graded. The driver's resource manager
// (contexts, allocations, mappings) takes one lock for the whole host for most of its calls, so every worker of a
// several-GPU batch waits for the others' calls (experiments/context_contention: contexts made one at a time whatever
// the number of GPUs). If one worker alone keeps that lock busy a fraction f of the time, and a student's calls hold
// it as long on any number of GPUs, no number of GPUs grades more than 1/f times as fast as one.
// The probe asks the resource manager for something small at random moments and times each answer: 32 MiB of device
// memory allocated and freed (cudaMalloc, cudaFree: at this size each goes to the resource manager, a third of a
// millisecond on an idle host, not an answer from the runtime's cache). A call that finds the lock free takes its
// idle time; one that finds it held waits for the holder. Calls
// made at random moments find the lock held as often as it is held, so the share of calls slower than twice the idle
// median is about how busy the lock was (and a lower bound: a short hold can be missed by that threshold).
// It first times IDLE calls (started before the class, the host idle), then calls every INTERVAL_MS on average
// (exponentially spaced) until SIGINT or SIGTERM, and prints one JSON object on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o probe probe.cu && CUDA_VISIBLE_DEVICES=0 ./probe 20 200 > driver-lock.json
#include <cuda_runtime.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

#include "../cuda_check.cuh"

namespace {

volatile std::sig_atomic_t g_stop = 0;

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One allocation and its free, in seconds.
double call() {
  constexpr std::size_t kBytes = std::size_t{32} << 20;
  const double from = now_s();
  void* p = nullptr;
  CHECK(cudaMalloc(&p, kBytes));
  CHECK(cudaFree(p));
  return now_s() - from;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

void sleep_s(double s) {
  timespec t{static_cast<time_t>(s), static_cast<long>((s - static_cast<double>(static_cast<time_t>(s))) * 1e9)};
  nanosleep(&t, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  const double interval_s = (argc > 1 ? std::atof(argv[1]) : 20.0) / 1000;
  const int idle_calls = argc > 2 ? std::atoi(argv[2]) : 200;
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  CHECK(cudaFree(nullptr));  // the context, before any call is timed
  std::vector<double> idle;
  for (int i = 0; i < idle_calls; ++i) {
    idle.push_back(call());
    sleep_s(0.002);
  }
  const double idle_median = quantile(idle, 0.5);
  std::mt19937_64 gen(12345);
  std::exponential_distribution<double> gap(1 / interval_s);
  std::vector<double> loaded;
  const double from = now_s();
  while (!g_stop) {
    sleep_s(gap(gen));
    if (g_stop) break;
    loaded.push_back(call());
  }
  const double seconds = now_s() - from;
  std::size_t slow = 0;
  double excess = 0;
  for (const double t : loaded) {
    if (t > 2 * idle_median) ++slow;
    excess += std::max(0.0, t - idle_median);
  }
  const double n = std::max<double>(1, static_cast<double>(loaded.size()));
  std::printf(
      "{\"idle_calls\": %zu, \"idle_median_ms\": %.4f, \"idle_p90_ms\": %.4f, \"calls\": %zu, \"seconds\": %.1f, "
      "\"median_ms\": %.4f, \"p90_ms\": %.4f, \"p99_ms\": %.4f, \"slower_than_twice_idle\": %.4f, "
      "\"mean_wait_ms\": %.4f}\n",
      idle.size(), 1e3 * idle_median, 1e3 * quantile(idle, 0.9), loaded.size(), seconds, 1e3 * quantile(loaded, 0.5),
      1e3 * quantile(loaded, 0.9), 1e3 * quantile(loaded, 0.99), static_cast<double>(slow) / n, 1e3 * excess / n);
  return 0;
}
