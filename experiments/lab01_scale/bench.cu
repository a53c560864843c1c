// Experiment (issue 12): variants of lab 01's `scale` (y = alpha * x, 2^28 floats: 1 GiB read, 1 GiB written) timed
// against a device-to-device cudaMemcpyAsync of the same 1 GiB, the exercise's ceiling, in the same rounds. Which
// launch shape and access pattern brings a read-modify-write stream closest to the copy? Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > scale-variants.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../rounds.cuh"

constexpr std::int64_t kN = std::int64_t{1} << 28;
constexpr float kAlpha = 3.0f;

// The reference as shipped: a grid-stride loop over float4, grid of `per_sm` blocks of 256 per SM, unrolled 4.
template <int kUnroll>
__global__ void grid_stride(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4, float a) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
#pragma unroll kUnroll
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride) {
    float4 v = x[i];
    v.x *= a, v.y *= a, v.z *= a, v.w *= a;
    y[i] = v;
  }
}

// One float4 per thread, one block per 256 float4s: no loop, as many blocks as the data needs.
__global__ void one_per_thread(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4, float a) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n4) return;
  float4 v = x[i];
  v.x *= a, v.y *= a, v.z *= a, v.w *= a;
  y[i] = v;
}

// K float4s per thread, all loads issued before any store (K independent loads in flight per thread); a block covers
// K * blockDim.x contiguous float4s, lane-adjacent in each of the K rows.
template <int K, bool kStreaming>
__global__ void batched(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4, float a) {
  const std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) * K + threadIdx.x;
  float4 v[K];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const std::int64_t i = base + j * static_cast<std::int64_t>(blockDim.x);
    if (i < n4) v[j] = kStreaming ? __ldcs(&x[i]) : x[i];
  }
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const std::int64_t i = base + j * static_cast<std::int64_t>(blockDim.x);
    v[j].x *= a, v[j].y *= a, v[j].z *= a, v[j].w *= a;
    if (i < n4) {
      if (kStreaming)
        __stcs(&y[i], v[j]);
      else
        y[i] = v[j];
    }
  }
}

// Grid-stride with K loads batched per trip.
template <int K>
__global__ void grid_stride_batched(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4, float a) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (; i + (K - 1) * stride < n4; i += K * stride) {
    float4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = x[i + j * stride];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      v[j].x *= a, v[j].y *= a, v[j].z *= a, v[j].w *= a;
      y[i + j * stride] = v[j];
    }
  }
  for (; i < n4; i += stride) {
    float4 v = x[i];
    v.x *= a, v.y *= a, v.z *= a, v.w *= a;
    y[i] = v;
  }
}

struct Variant {
  std::string name;
  std::function<void(const float4*, float4*, cudaStream_t)> run;
  std::vector<float> ms;
};

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::int64_t n4 = kN / 4;
  float *x = nullptr, *y = nullptr, *flush = nullptr;
  const std::size_t bytes = kN * sizeof(float), flush_bytes = std::size_t{512} << 20;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMemset(x, 0x3f, bytes));  // 0.747: finite
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  const auto grid = [&](int per_sm, int threads, std::int64_t items) {
    const std::int64_t need = (items + threads - 1) / threads;
    return static_cast<unsigned>(std::min<std::int64_t>(need, std::int64_t{sms} * per_sm));
  };
  std::vector<Variant> v;
  v.push_back({"memcpy_d2d", [&](const float4*, float4*, cudaStream_t st) {
                 CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, st));
               }});
  for (int per_sm : {8, 16, 32})
    v.push_back({"grid_stride_u4_" + std::to_string(per_sm) + "x256", [&, per_sm](const float4* a, float4* b, cudaStream_t st) {
                   grid_stride<4><<<grid(per_sm, 256, n4), 256, 0, st>>>(a, b, n4, kAlpha);
                 }});
  v.push_back({"grid_stride_u1_8x256", [&](const float4* a, float4* b, cudaStream_t st) {
                 grid_stride<1><<<grid(8, 256, n4), 256, 0, st>>>(a, b, n4, kAlpha);
               }});
  v.push_back({"one_per_thread_256", [&](const float4* a, float4* b, cudaStream_t st) {
                 one_per_thread<<<static_cast<unsigned>((n4 + 255) / 256), 256, 0, st>>>(a, b, n4, kAlpha);
               }});
  v.push_back({"one_per_thread_512", [&](const float4* a, float4* b, cudaStream_t st) {
                 one_per_thread<<<static_cast<unsigned>((n4 + 511) / 512), 512, 0, st>>>(a, b, n4, kAlpha);
               }});
  v.push_back({"batched2_256", [&](const float4* a, float4* b, cudaStream_t st) {
                 batched<2, false><<<static_cast<unsigned>((n4 + 511) / 512), 256, 0, st>>>(a, b, n4, kAlpha);
               }});
  v.push_back({"batched4_256", [&](const float4* a, float4* b, cudaStream_t st) {
                 batched<4, false><<<static_cast<unsigned>((n4 + 1023) / 1024), 256, 0, st>>>(a, b, n4, kAlpha);
               }});
  v.push_back({"batched4_256_streaming", [&](const float4* a, float4* b, cudaStream_t st) {
                 batched<4, true><<<static_cast<unsigned>((n4 + 1023) / 1024), 256, 0, st>>>(a, b, n4, kAlpha);
               }});
  v.push_back({"batched8_128", [&](const float4* a, float4* b, cudaStream_t st) {
                 batched<8, false><<<static_cast<unsigned>((n4 + 1023) / 1024), 128, 0, st>>>(a, b, n4, kAlpha);
               }});
  for (int per_sm : {4, 8, 16})
    v.push_back({"grid_stride_batched4_" + std::to_string(per_sm) + "x256", [&, per_sm](const float4* a, float4* b, cudaStream_t st) {
                   grid_stride_batched<4><<<grid(per_sm, 256, n4), 256, 0, st>>>(a, b, n4, kAlpha);
                 }});
  v.push_back({"grid_stride_batched2_8x256", [&](const float4* a, float4* b, cudaStream_t st) {
                 grid_stride_batched<2><<<grid(8, 256, n4), 256, 0, st>>>(a, b, n4, kAlpha);
               }});

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (auto& c : v) c.run(x4, y4, s);  // warm-up
  CHECK(cudaStreamSynchronize(s));
  // Each variant's result, checked once: y = 3 * x.
  std::vector<float> hx(1024), hy(1024);
  CHECK(cudaMemcpy(hx.data(), x, 4096, cudaMemcpyDeviceToHost));
  for (int round = 0; round < 30; ++round) {
    for (auto& c : v) {
      CHECK(cudaMemsetAsync(flush, round & 0xff, flush_bytes, s));  // evict x and y from the 50 MiB L2
      CHECK(cudaMemsetAsync(y, 0xff, 4096, s));
      CHECK(cudaEventRecord(start, s));
      c.run(x4, y4, s);
      CHECK(cudaEventRecord(stop, s));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      c.ms.push_back(ms);
      if (round == 0 && c.name != "memcpy_d2d") {
        CHECK(cudaMemcpy(hy.data(), y, 4096, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 1024; ++i)
          if (hy[i] != kAlpha * hx[i]) {
            std::fprintf(stderr, "%s: wrong at %d\n", c.name.c_str(), i);
            return 2;
          }
      }
    }
  }
  const double copy_ms = median(v[0].ms);
  std::printf("{\"gpu\": \"%s\", \"n\": %lld, \"rounds\": 30, \"copy_ms\": %.4f, \"variants\": [\n", prop.name,
              static_cast<long long>(kN), copy_ms);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Spread t = spread(v[i].ms);
    const double med = t.median_ms;
    std::printf("  {\"name\": \"%s\", \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"GBps\": %.1f, "
                "\"percent_of_copy\": %.1f}%s\n",
                v[i].name.c_str(), med, t.min_ms, t.max_ms, 2.0 * bytes / med / 1e6, 100.0 * copy_ms / med,
                i + 1 < v.size() ? "," : "");
  }
  std::printf("]}\n");
  return 0;
}
