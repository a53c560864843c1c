// Experiment (issue 30): lab 00's three lessons as sweeps, to fill its sheet's predict-then-measure tables.
//   ilp        y = 3x over 2^28 floats at one block of 128 threads per SM (the lab's launch rule), with 1 to 16
//              independent loads per thread before the first store, 4- or 16-byte each.
//   occupancy  the same, one float4 per thread, blocks of 256 reserving 100, 64, 48, 24 or 4 KiB of dynamic shared
//              memory: the occupancy API's blocks per SM and the time.
//   waves      the lab's hash (64 rounds, 2^24 elements) in grids of exactly one wave, one wave plus one block, two
//              waves, and 65,536 blocks of 256.
// Every variant is checked exactly against the host once, then timed in the same rounds with a 512 MiB L2 flush before
// each run, beside the ceiling: a device-to-device copy of the same 2 GiB. Prints JSON on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bench bench.cu && ./bench > budget.json
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../rounds.cuh"
#include "../../labs/00_gpu_budget/gpu_budget.hpp"  // lab00::mix, the lab's own hash

constexpr std::int64_t kN = std::int64_t{1} << 28;      // floats scaled
constexpr std::int64_t kHashN = std::int64_t{1} << 24;  // elements hashed
constexpr int kRoundsOfMix = 64;
constexpr float kAlpha = 3.0f;

// K independent loads of V (float or float4) per thread before any store, over a grid-stride loop.
template <class V, int K>
__global__ void scale_ilp(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const V* xv = reinterpret_cast<const V*>(x);
  V* yv = reinterpret_cast<V*>(y);
  constexpr int kWords = sizeof(V) / sizeof(float);
  const std::int64_t nv = n / kWords;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (std::int64_t base = t; base < nv; base += K * threads) {
    V v[K];
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (base + k * threads < nv) v[k] = xv[base + k * threads];
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (base + k * threads < nv) {
        float* w = reinterpret_cast<float*>(&v[k]);
#pragma unroll
        for (int j = 0; j < kWords; ++j) w[j] *= kAlpha;
        yv[base + k * threads] = v[k];
      }
  }
  if (t < n - kWords * nv) y[kWords * nv + t] = kAlpha * x[kWords * nv + t];
}

// One float4 per thread, staged through shared memory as the lab's occupancy kernel.
__global__ void scale_one_float4(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  extern __shared__ float4 tile[];
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t < n / 4) {
    tile[threadIdx.x] = reinterpret_cast<const float4*>(x)[t];
    const float4 v = tile[threadIdx.x];
    reinterpret_cast<float4*>(y)[t] = make_float4(kAlpha * v.x, kAlpha * v.y, kAlpha * v.z, kAlpha * v.w);
  }
}

__global__ void hash_all(const float* __restrict__ x, float* __restrict__ h, std::int64_t n, int rounds) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    h[i] = lab00::mix(x[i], i, rounds);
}

enum class Kind { ilp, occupancy, waves, copy };

struct Variant {
  std::string name, what;
  Kind kind;
  void (*kernel)(const float*, float*, std::int64_t) = nullptr;  // ilp, occupancy
  int threads = 0, reserve_bytes = 0, bytes_in_flight_per_thread = 0;
  std::int64_t blocks = 0;  // filled in from the GPU
  int blocks_per_sm = 0;    // the occupancy API's answer
  std::vector<float> ms;
};

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const std::size_t bytes = kN * sizeof(float), flush_bytes = std::size_t{512} << 20;
  float *x = nullptr, *y = nullptr, *hx = nullptr, *h = nullptr, *flush = nullptr;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&hx, kHashN * sizeof(float)));
  CHECK(cudaMalloc(&h, kHashN * sizeof(float)));
  CHECK(cudaMalloc(&flush, flush_bytes));
  std::vector<float> host(kN), host_hx(kHashN), want_h(kHashN);
  for (std::int64_t i = 0; i < kN; ++i) host[i] = static_cast<float>(i % 17 - 8);
  for (std::int64_t i = 0; i < kHashN; ++i) {
    host_hx[i] = static_cast<float>((i * 7919) % (1 << 21) - (1 << 20));
    want_h[i] = lab00::mix(host_hx[i], i, kRoundsOfMix);
  }
  CHECK(cudaMemcpy(x, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(hx, host_hx.data(), kHashN * sizeof(float), cudaMemcpyHostToDevice));

  std::vector<Variant> v = {
      {"ilp_float_x1", "the stub's shape: one 4-byte load in flight per thread", Kind::ilp, scale_ilp<float, 1>, 128, 0, 4},
      {"ilp_float_x8", "8 independent 4-byte loads per thread", Kind::ilp, scale_ilp<float, 8>, 128, 0, 32},
      {"ilp_float4_x1", "one 16-byte load per thread", Kind::ilp, scale_ilp<float4, 1>, 128, 0, 16},
      {"ilp_float4_x2", "2 independent 16-byte loads per thread", Kind::ilp, scale_ilp<float4, 2>, 128, 0, 32},
      {"ilp_float4_x4", "4 independent 16-byte loads per thread", Kind::ilp, scale_ilp<float4, 4>, 128, 0, 64},
      {"ilp_float4_x8", "8 independent 16-byte loads per thread", Kind::ilp, scale_ilp<float4, 8>, 128, 0, 128},
      {"ilp_float4_x16", "the reference's: 16 independent 16-byte loads per thread", Kind::ilp,
       scale_ilp<float4, 16>, 128, 0, 256},
      {"occupancy_reserve_100k", "the stub's: 100 KiB reserved per block of 256", Kind::occupancy, scale_one_float4,
       256, 100 << 10, 16},
      {"occupancy_reserve_64k", "64 KiB reserved per block of 256", Kind::occupancy, scale_one_float4, 256, 64 << 10,
       16},
      {"occupancy_reserve_48k", "48 KiB reserved per block of 256", Kind::occupancy, scale_one_float4, 256, 48 << 10,
       16},
      {"occupancy_reserve_24k", "24 KiB reserved per block of 256", Kind::occupancy, scale_one_float4, 256, 24 << 10,
       16},
      {"occupancy_reserve_4k", "the reference's: the 4 KiB it uses", Kind::occupancy, scale_one_float4, 256, 4 << 10,
       16},
      {"waves_1024_one_wave", "blocks of 1024, exactly one wave", Kind::waves, nullptr, 1024},
      {"waves_1024_one_wave_plus_one", "the stub's: blocks of 1024, one wave and one block", Kind::waves, nullptr,
       1024},
      {"waves_1024_two_waves", "blocks of 1024, two full waves", Kind::waves, nullptr, 1024},
      {"waves_256_one_wave", "the reference's: blocks of 256, exactly one wave", Kind::waves, nullptr, 256},
      {"waves_256_one_element_each", "65,536 blocks of 256, one element per thread", Kind::waves, nullptr, 256},
      {"copy", "cudaMemcpyAsync device to device of 1 GiB: the 2 GiB the scale variants move", Kind::copy},
  };
  // The largest reserve, allowed once for the kernel (above 48 KiB it must opt in): setting each variant's own would
  // leave the last, smallest one as the kernel's limit for all of them.
  CHECK(cudaFuncSetAttribute(scale_one_float4, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 << 10));
  for (auto& c : v) {
    if (c.kind == Kind::ilp) {
      c.blocks = sms;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.blocks_per_sm, c.kernel, c.threads, 0));
    } else if (c.kind == Kind::occupancy) {
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.blocks_per_sm, c.kernel, c.threads, c.reserve_bytes));
      c.blocks = (kN / 4 + c.threads - 1) / c.threads;
    } else if (c.kind == Kind::waves) {
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.blocks_per_sm, hash_all, c.threads, 0));
      const std::int64_t wave = std::int64_t{sms} * c.blocks_per_sm;
      c.blocks = c.name.find("plus_one") != std::string::npos ? wave + 1
                 : c.name.find("two_waves") != std::string::npos ? 2 * wave
                 : c.name.find("one_element") != std::string::npos ? (kHashN + c.threads - 1) / c.threads
                                                                    : wave;
    }
  }
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const auto launch = [&](const Variant& c) {
    switch (c.kind) {
      case Kind::copy:
        CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s));  // 1 GiB read, 1 GiB written
        return;
      case Kind::waves:
        hash_all<<<static_cast<unsigned>(c.blocks), c.threads, 0, s>>>(hx, h, kHashN, kRoundsOfMix);
        break;
      default:
        c.kernel<<<static_cast<unsigned>(c.blocks), c.threads, c.reserve_bytes, s>>>(x, y, kN);
    }
    CHECK(cudaGetLastError());
  };
  std::vector<float> got;
  for (auto& c : v) {  // warm-up, and each variant's output checked once, exactly
    if (c.kind == Kind::copy) continue;
    CHECK(cudaMemsetAsync(c.kind == Kind::waves ? h : y, 0xff, c.kind == Kind::waves ? kHashN * 4 : bytes, s));
    launch(c);
    CHECK(cudaStreamSynchronize(s));
    const std::int64_t n = c.kind == Kind::waves ? kHashN : kN;
    got.resize(n);
    CHECK(cudaMemcpy(got.data(), c.kind == Kind::waves ? h : y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::int64_t i = 0; i < n; ++i) {
      const float want = c.kind == Kind::waves ? want_h[i] : kAlpha * host[i];
      if (got[i] != want) {
        std::fprintf(stderr, "%s: element %lld is %g, expected %g\n", c.name.c_str(), static_cast<long long>(i),
                     got[i], want);
        return 2;
      }
    }
  }
  constexpr int kRounds = 20;
  time_rounds(v, kRounds, s, flush, flush_bytes, launch);
  const double copy_ms = median(v.back().ms);
  std::printf("{\"gpu\": \"%s\", \"sms\": %d, \"n\": %lld, \"hash_n\": %lld, \"hash_rounds\": %d, \"rounds\": %d, "
              "\"variants\": [\n",
              prop.name, sms, static_cast<long long>(kN), static_cast<long long>(kHashN), kRoundsOfMix, kRounds);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Variant& c = v[i];
    const Spread t = spread(c.ms);
    const int resident = c.kind == Kind::ilp ? 1 : c.blocks_per_sm;  // the ilp grid puts one block on each SM
    std::printf("  {\"name\": \"%s\", \"what\": \"%s\", \"blocks\": %lld, \"threads\": %d, \"reserve_bytes\": %d, "
                "\"blocks_per_sm\": %d, \"warps_per_sm\": %d, \"kb_in_flight_per_sm\": %.1f, \"waves\": %.3f, "
                "\"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"percent_of_copy\": %.1f}%s\n",
                c.name.c_str(), c.what.c_str(), static_cast<long long>(c.blocks), c.threads, c.reserve_bytes,
                c.blocks_per_sm, resident * c.threads / 32,
                resident * c.threads * c.bytes_in_flight_per_thread / 1024.0,
                c.blocks_per_sm ? static_cast<double>(c.blocks) / (std::int64_t{sms} * c.blocks_per_sm) : 0.0,
                t.median_ms, t.min_ms, t.max_ms, c.kind == Kind::waves ? 0.0 : 100.0 * copy_ms / t.median_ms,
                i + 1 < v.size() ? "," : "");
  }
  std::printf("]}\n");
  return 0;
}
