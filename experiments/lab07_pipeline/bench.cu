// Experiment (issue 12): how close can lab 07's pipeline come to its ceiling, the two copies at once (H2D and D2H of
// the whole 256 MiB array on two streams)? The reference issues H2D, kernel and D2H per chunk round-robin over
// streams; this sweeps the number of chunks and of streams, and a layout with one stream per stage (events order a
// chunk's kernel after its H2D and its D2H after its kernel), all in the same rounds as the ceiling. JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > pipeline-variants.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../rounds.cuh"

constexpr std::int64_t kN = std::int64_t{1} << 26;  // lab 07's timed shape: 256 MiB each way
constexpr int kMaxStreams = 8, kMaxChunks = 512;

__global__ void poly_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v * v + 3.0f * v - 1.0f;
  }
}
unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 1024)); }

struct Ctx {
  float *h_in, *h_out, *d_in, *d_out;
  cudaStream_t main, s[kMaxStreams];
  cudaEvent_t fork, join[kMaxStreams], copied[kMaxChunks], computed[kMaxChunks];
};

void fork_join(Ctx& c, int streams, const std::function<void()>& body) {
  CHECK(cudaEventRecord(c.fork, c.main));
  for (int k = 0; k < streams; ++k) CHECK(cudaStreamWaitEvent(c.s[k], c.fork, 0));
  body();
  for (int k = 0; k < streams; ++k) {
    CHECK(cudaEventRecord(c.join[k], c.s[k]));
    CHECK(cudaStreamWaitEvent(c.main, c.join[k], 0));
  }
}

// The reference's layout: chunk i's H2D, kernel and D2H in order on stream i % streams.
void round_robin(Ctx& c, int chunks, int streams) {
  const std::int64_t chunk = (kN + chunks - 1) / chunks;
  fork_join(c, streams, [&] {
    for (int i = 0; i < chunks; ++i) {
      const std::int64_t b = i * chunk, len = std::min(chunk, kN - b);
      const cudaStream_t s = c.s[i % streams];
      CHECK(cudaMemcpyAsync(c.d_in + b, c.h_in + b, len * 4, cudaMemcpyHostToDevice, s));
      poly_kernel<<<blocks_for(len), 256, 0, s>>>(c.d_in + b, c.d_out + b, len);
      CHECK(cudaMemcpyAsync(c.h_out + b, c.d_out + b, len * 4, cudaMemcpyDeviceToHost, s));
    }
  });
}

// One stream per stage: every H2D on s0 back to back, kernels on s1, D2H on s2, ordered per chunk by events.
void by_stage(Ctx& c, int chunks) {
  const std::int64_t chunk = (kN + chunks - 1) / chunks;
  fork_join(c, 3, [&] {
    for (int i = 0; i < chunks; ++i) {
      const std::int64_t b = i * chunk, len = std::min(chunk, kN - b);
      CHECK(cudaMemcpyAsync(c.d_in + b, c.h_in + b, len * 4, cudaMemcpyHostToDevice, c.s[0]));
      CHECK(cudaEventRecord(c.copied[i], c.s[0]));
      CHECK(cudaStreamWaitEvent(c.s[1], c.copied[i], 0));
      poly_kernel<<<blocks_for(len), 256, 0, c.s[1]>>>(c.d_in + b, c.d_out + b, len);
      CHECK(cudaEventRecord(c.computed[i], c.s[1]));
      CHECK(cudaStreamWaitEvent(c.s[2], c.computed[i], 0));
      CHECK(cudaMemcpyAsync(c.h_out + b, c.d_out + b, len * 4, cudaMemcpyDeviceToHost, c.s[2]));
    }
  });
}

// The ceiling: both copies of the whole array at once, each on a stream of its own (no kernel, no dependency).
void both_copies(Ctx& c, int chunks) {
  const std::int64_t chunk = (kN + chunks - 1) / chunks;
  fork_join(c, 2, [&] {
    for (int i = 0; i < chunks; ++i) {
      const std::int64_t b = i * chunk, len = std::min(chunk, kN - b);
      CHECK(cudaMemcpyAsync(c.d_in + b, c.h_in + b, len * 4, cudaMemcpyHostToDevice, c.s[0]));
      CHECK(cudaMemcpyAsync(c.h_out + b, c.d_out + b, len * 4, cudaMemcpyDeviceToHost, c.s[1]));
    }
  });
}

struct Variant {
  std::string name;
  std::function<void()> run;
  std::vector<float> ms;
};

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  Ctx c{};
  CHECK(cudaMallocHost(&c.h_in, kN * 4));
  CHECK(cudaMallocHost(&c.h_out, kN * 4));
  CHECK(cudaMalloc(&c.d_in, kN * 4));
  CHECK(cudaMalloc(&c.d_out, kN * 4));
  for (std::int64_t i = 0; i < kN; ++i) c.h_in[i] = static_cast<float>(i % 17) - 8.0f;
  CHECK(cudaStreamCreateWithFlags(&c.main, cudaStreamNonBlocking));
  for (auto& s : c.s) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&c.fork, cudaEventDisableTiming));
  for (auto& e : c.join) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  for (auto& e : c.copied) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  for (auto& e : c.computed) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  std::vector<Variant> v;
  v.push_back({"h2d_alone", [&] { CHECK(cudaMemcpyAsync(c.d_in, c.h_in, kN * 4, cudaMemcpyHostToDevice, c.main)); }});
  v.push_back({"d2h_alone", [&] { CHECK(cudaMemcpyAsync(c.h_out, c.d_out, kN * 4, cudaMemcpyDeviceToHost, c.main)); }});
  v.push_back({"both_copies_whole", [&] { both_copies(c, 1); }});
  v.push_back({"both_copies_64", [&] { both_copies(c, 64); }});
  v.push_back({"sequential", [&] {
                 CHECK(cudaMemcpyAsync(c.d_in, c.h_in, kN * 4, cudaMemcpyHostToDevice, c.main));
                 poly_kernel<<<blocks_for(kN), 256, 0, c.main>>>(c.d_in, c.d_out, kN);
                 CHECK(cudaMemcpyAsync(c.h_out, c.d_out, kN * 4, cudaMemcpyDeviceToHost, c.main));
               }});
  for (int chunks : {16, 32, 64, 128, 256})
    for (int streams : {2, 4, 8})
      v.push_back({"round_robin_" + std::to_string(chunks) + "c_" + std::to_string(streams) + "s",
                   [&, chunks, streams] { round_robin(c, chunks, streams); }});
  for (int chunks : {32, 64, 128, 256})
    v.push_back({"by_stage_" + std::to_string(chunks) + "c", [&, chunks] { by_stage(c, chunks); }});

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (auto& x : v) x.run();
  CHECK(cudaStreamSynchronize(c.main));
  constexpr int kRounds = 15;
  for (int round = 0; round < kRounds; ++round)
    for (std::size_t j = 0; j < v.size(); ++j) {
      auto& x = v[(j + round) % v.size()];
      CHECK(cudaEventRecord(start, c.main));
      x.run();
      CHECK(cudaEventRecord(stop, c.main));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      x.ms.push_back(ms);
    }
  for (std::int64_t i = 0; i < kN; i += 4099) {  // the last variant's output
    const float x = c.h_in[i];
    if (c.h_out[i] != x * x + 3.0f * x - 1.0f) {
      std::fprintf(stderr, "wrong output at %lld\n", static_cast<long long>(i));
      return 2;
    }
  }
  double ceiling = 0, seq = 0;
  for (auto& x : v) {
    if (x.name == "both_copies_whole") ceiling = median(x.ms);
    if (x.name == "sequential") seq = median(x.ms);
  }
  std::printf("{\"gpu\": \"%s\", \"n\": %lld, \"rounds\": %d, \"ceiling_ms\": %.4f, \"sequential_ms\": %.4f, "
              "\"variants\": [\n",
              prop.name, static_cast<long long>(kN), kRounds, ceiling, seq);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Spread t = spread(v[i].ms);
    const double med = t.median_ms;
    std::printf("  {\"name\": \"%s\", \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
                "\"percent_of_ceiling\": %.1f, \"overlap\": %.3f}%s\n",
                v[i].name.c_str(), med, t.min_ms, t.max_ms, 100.0 * ceiling / med, (seq - med) / (seq - ceiling),
                i + 1 < v.size() ? "," : "");
  }
  std::printf("]}\n");
  return 0;
}
