// Experiment: lessons the course's sheets do not measure yet, each a small set of variants checked once against the
// host (or each other), then timed in the same rounds with a 512 MiB L2 flush before each run.
//   aos_soa            x += 0.5 y over 2^24 particles stored as structs of 4 floats or as separate arrays, beside a
//                      device-to-device copy, the ceiling.
//   atomics_order      a sum of 2^24 floats of very different sizes by one float atomic per thread, by a shared-memory
//                      tree per block then one atomic per block, and by a tree in a fixed order end to end: how many
//                      different results 20 repeats of each give.
//   literals_fastmath  v = v * 1.0001 + 0.5 with a double or a float literal; v = sinf(v) + c or __sinf(v) + c.
//   register_arrays    a 16-float array per thread, indexed by compile-time or by run-time indices.
//   copy_engines       pinned and pageable host-to-device copies, device-to-host, both directions at once, and a
//                      kernel reading mapped host memory (zero-copy).
//   tensor_cores       cuBLAS at M = N = K = 8192 in FP32, in TF32 and with BF16 inputs.
//   roofline           the device's numbers a sheet needs to place a lab on a roofline.
// Prints one JSON object on stdout; progress on stderr.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o bench bench.cu -lcublas && ./bench > lessons.json
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../rounds.cuh"

#define CHECK_CUBLAS(call)                                                                           \
  do {                                                                                               \
    cublasStatus_t s_ = (call);                                                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                               \
      std::fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, int(s_));      \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

constexpr int kRounds = 15;
constexpr std::size_t kFlushBytes = std::size_t{512} << 20;
constexpr std::uint32_t kSeed = 20240611;

// ---------------------------------------------------------------------------------------------------------------
// Output: a JSON object built key by key; numbers stay numbers, and a number that is not finite becomes null.

class Json {
 public:
  // `digits` significant digits: 9 tell any two floats apart, 17 any two doubles.
  Json& num(const std::string& key, double v, int digits = 6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, std::isfinite(v) ? "%.*g" : "null", digits, v);
    return raw(key, buf);
  }
  Json& integer(const std::string& key, long long v) { return raw(key, std::to_string(v)); }
  Json& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  Json& str(const std::string& key, const std::string& v) { return raw(key, "\"" + v + "\""); }
  Json& obj(const std::string& key, const Json& v) { return raw(key, v.text()); }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  Json& raw(const std::string& key, const std::string& value) {
    body_ += (body_.empty() ? "\"" : ", \"") + key + "\": " + value;
    return *this;
  }
  std::string body_;
};

// ---------------------------------------------------------------------------------------------------------------
// Timing: a variant is a name, what one run does, and the times of its runs.

struct Variant {
  Variant(std::string name, std::function<void()> run = {}) : name(std::move(name)), run(std::move(run)) {}
  std::string name;
  std::function<void()> run;
  std::vector<float> ms;
};

struct Bench {
  cudaDeviceProp prop{};
  cudaStream_t stream = nullptr;
  void* flush = nullptr;
  unsigned blocks_for(std::int64_t threads, int block) const {
    return static_cast<unsigned>((threads + block - 1) / block);
  }
  void time(std::vector<Variant>& variants) const {
    time_rounds(variants, kRounds, stream, flush, kFlushBytes, [](Variant& v) { v.run(); });
  }
};

// A variant's times, and a rate: `work` units (bytes, flops, ...) per run, divided by the median time, in giga-units
// per second.
Json timing(const Variant& v, double work, const char* rate_key) {
  const Spread t = spread(v.ms);
  return Json().num("median_ms", t.median_ms).num("min_ms", t.min_ms).num("max_ms", t.max_ms)
      .num(rate_key, work / (t.median_ms * 1e-3) / 1e9);
}

void launched() { CHECK(cudaGetLastError()); }

template <class T>
T* device_alloc(std::size_t count) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  return p;
}

template <class T>
std::vector<T> to_host(const T* device, std::size_t count) {
  std::vector<T> host(count);
  CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Uniform in [0, 1) with 24 random bits, the same on every standard library (std::uniform_real_distribution is not).
float unit_float(std::mt19937& gen) { return static_cast<float>(gen() >> 8) * (1.0f / 16777216.0f); }

std::vector<float> unit_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = unit_float(gen);
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. AoS vs SoA. Memory moves in 32-byte sectors: a warp reading x and y of 16-byte structs fetches the z and w
// beside them too, so half the bytes it pulls from DRAM (and writes back) are never used; separate arrays waste none.

constexpr std::int64_t kParticles = std::int64_t{1} << 24;
constexpr double kUsefulBytesPerParticle = 12.0;  // read x and y, write x
constexpr std::size_t kCopyBytes = std::size_t{1} << 30;

struct Particle {
  float x, y, z, w;
};

__global__ void update_aos(Particle* p, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i].x = p[i].x + 0.5f * p[i].y;
}

__global__ void update_soa(float* __restrict__ x, const float* __restrict__ y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = x[i] + 0.5f * y[i];
}

struct CopyCeiling {
  double gb_per_s = 0;  // bytes read plus bytes written, per second
};

Json aos_soa(const Bench& b, CopyCeiling& ceiling) {
  std::fprintf(stderr, "aos_soa\n");
  std::vector<Particle> host(kParticles);
  std::mt19937 gen(kSeed);
  for (auto& p : host) p = {unit_float(gen), unit_float(gen), unit_float(gen), unit_float(gen)};
  std::vector<float> hx(kParticles), hy(kParticles);
  for (std::int64_t i = 0; i < kParticles; ++i) hx[i] = host[i].x, hy[i] = host[i].y;

  Particle* aos = device_alloc<Particle>(kParticles);
  float* x = device_alloc<float>(kParticles);
  float* y = device_alloc<float>(kParticles);
  char* copy_src = device_alloc<char>(kCopyBytes);
  char* copy_dst = device_alloc<char>(kCopyBytes);
  CHECK(cudaMemset(copy_src, 1, kCopyBytes));
  const auto reset = [&] {
    CHECK(cudaMemcpy(aos, host.data(), kParticles * sizeof(Particle), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(x, hx.data(), kParticles * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy.data(), kParticles * sizeof(float), cudaMemcpyHostToDevice));
  };
  const unsigned blocks = b.blocks_for(kParticles, 256);
  std::vector<Variant> v = {
      {"aos", [&] { update_aos<<<blocks, 256, 0, b.stream>>>(aos, kParticles), launched(); }},
      {"soa", [&] { update_soa<<<blocks, 256, 0, b.stream>>>(x, y, kParticles), launched(); }},
      {"copy", [&] { CHECK(cudaMemcpyAsync(copy_dst, copy_src, kCopyBytes, cudaMemcpyDeviceToDevice, b.stream)); }},
  };
  // Each variant's x after one run from the initial data, exactly as the host computes it (both round x + 0.5 y
  // the same way: the product by 0.5 is exact, so fused or not the result is one rounding of the sum).
  reset();
  v[0].run();
  v[1].run();
  CHECK(cudaStreamSynchronize(b.stream));
  const auto got_aos = to_host(aos, kParticles);
  const auto got_x = to_host(x, kParticles);
  bool aos_ok = true, soa_ok = true;
  for (std::int64_t i = 0; i < kParticles; ++i) {
    const float want = hx[i] + 0.5f * hy[i];
    aos_ok = aos_ok && got_aos[i].x == want && got_aos[i].y == hy[i] && got_aos[i].z == host[i].z &&
             got_aos[i].w == host[i].w;
    soa_ok = soa_ok && got_x[i] == want;
  }
  b.time(v);  // x grows by 0.5 y each run: the values stay small, and the work is the same every run
  const double useful = kUsefulBytesPerParticle * kParticles;
  ceiling.gb_per_s = 2.0 * kCopyBytes / (median(v[2].ms) * 1e-3) / 1e9;
  Json out;
  out.integer("particles", kParticles).num("useful_bytes_per_particle", kUsefulBytesPerParticle)
      .integer("aos_bytes_read_per_particle", 16)
      .obj("aos", timing(v[0], useful, "useful_gb_per_s").boolean("correct", aos_ok))
      .obj("soa", timing(v[1], useful, "useful_gb_per_s").boolean("correct", soa_ok))
      .obj("copy", timing(v[2], 2.0 * kCopyBytes, "gb_per_s").integer("bytes_copied", kCopyBytes))
      .num("aos_over_soa_time", median(v[0].ms) / median(v[1].ms));
  CHECK(cudaFree(aos));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(copy_src));
  CHECK(cudaFree(copy_dst));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Atomics and the order of a sum. Float addition is not associative, and the order in which the hardware
// serializes atomics to one address changes from run to run, so an atomic sum can change from run to run. A tree
// per block fixes the order inside each block but its per-block atomics still land in any order; only a tree fixed
// end to end (block partials to memory, then one block sums them in a set order) gives the same bits every time.

constexpr std::int64_t kSumN = std::int64_t{1} << 24;
constexpr int kSumBlock = 256;
constexpr int kRepeats = 20;
constexpr int kFinalBlock = 1024;
// A float accumulator summing 2^24 such terms one after another loses about 1.3 % (terms below half the running
// sum's ulp vanish), so `correct` allows that much and more; the relative error is reported beside it.
constexpr double kSumTolerance = 5e-2;

__global__ void sum_atomic_per_thread(const float* __restrict__ x, float* sum, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
}

// The block's kSumBlock values summed by a tree in a fixed order; the result in thread 0.
__device__ float block_tree_sum(float v) {
  __shared__ float s[kFinalBlock];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  return s[0];
}

__global__ void sum_tree_then_atomic(const float* __restrict__ x, float* sum, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float total = block_tree_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(sum, total);
}

__global__ void sum_tree_to_partials(const float* __restrict__ x, float* partials, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float total = block_tree_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One block: each thread sums a fixed stride of the partials in order, then the block's tree.
__global__ void sum_partials(const float* __restrict__ partials, float* sum, int n) {
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += partials[i];
  const float total = block_tree_sum(v);
  if (threadIdx.x == 0) *sum = total;
}

Json sum_summary(const std::vector<float>& results, double want, const Variant& timed) {
  std::set<std::uint32_t> patterns;
  float lo = results[0], hi = results[0];
  for (float r : results) {
    std::uint32_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    patterns.insert(bits);
    lo = std::fmin(lo, r), hi = std::fmax(hi, r);
  }
  const double rel_error = std::fabs(results[0] - want) / want;
  return timing(timed, 4.0 * kSumN, "gb_per_s").integer("distinct_results", static_cast<long long>(patterns.size()))
      .num("first_result", results[0], 9).num("min_result", lo, 9).num("max_result", hi, 9)
      .num("spread", static_cast<double>(hi) - lo, 9).num("relative_error", rel_error)
      .boolean("correct", rel_error <= kSumTolerance);
}

Json atomics_order(const Bench& b) {
  std::fprintf(stderr, "atomics_order\n");
  // Terms from 1e-3 to 1e3, so that the order of the additions decides which small terms are lost.
  std::vector<float> host(kSumN);
  std::mt19937 gen(kSeed + 1);
  const float scales[7] = {1e-3f, 1e-2f, 1e-1f, 1.0f, 1e1f, 1e2f, 1e3f};
  for (auto& v : host) v = unit_float(gen) * scales[gen() % 7];
  double want = 0;
  for (float v : host) want += v;

  const unsigned blocks = b.blocks_for(kSumN, kSumBlock);
  float* x = device_alloc<float>(kSumN);
  float* sum = device_alloc<float>(1);
  float* partials = device_alloc<float>(blocks);
  CHECK(cudaMemcpy(x, host.data(), kSumN * sizeof(float), cudaMemcpyHostToDevice));
  // Every run starts from a zeroed sum: the 4-byte memset is part of each run, in every variant alike.
  const auto zero = [&] { CHECK(cudaMemsetAsync(sum, 0, sizeof(float), b.stream)); };
  std::vector<Variant> v = {
      {"atomic_per_thread",
       [&] { zero(), sum_atomic_per_thread<<<blocks, kSumBlock, 0, b.stream>>>(x, sum, kSumN), launched(); }},
      {"block_tree_then_atomic",
       [&] { zero(), sum_tree_then_atomic<<<blocks, kSumBlock, 0, b.stream>>>(x, sum, kSumN), launched(); }},
      {"fixed_order_tree", [&] {
         zero();
         sum_tree_to_partials<<<blocks, kSumBlock, 0, b.stream>>>(x, partials, kSumN), launched();
         sum_partials<<<1, kFinalBlock, 0, b.stream>>>(partials, sum, static_cast<int>(blocks)), launched();
       }},
  };
  std::vector<std::vector<float>> results(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    for (int r = 0; r < kRepeats; ++r) {
      v[k].run();
      CHECK(cudaStreamSynchronize(b.stream));
      results[k].push_back(to_host(sum, 1)[0]);
    }
  b.time(v);
  Json out;
  out.integer("n", kSumN).integer("repeats", kRepeats).num("host_double_sum", want, 17)
      .num("correct_tolerance_relative", kSumTolerance);
  for (std::size_t k = 0; k < v.size(); ++k) out.obj(v[k].name, sum_summary(results[k], want, v[k]));
  CHECK(cudaFree(x));
  CHECK(cudaFree(sum));
  CHECK(cudaFree(partials));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Literals and fast math. `1.0001` is a double: v * 1.0001 + 0.5 converts v to double, runs a DFMA on the FP64
// units and converts back, every iteration. `sinf` is accurate over the whole range (a polynomial and a reduction);
// `__sinf` is one special-function-unit instruction, approximate and only good near [-pi, pi].

constexpr std::int64_t kArithN = std::int64_t{1} << 24;
// 256 FMAs per element outweigh the 8 bytes each element moves (64 would leave the float variant memory-bound).
constexpr int kFmaIterations = 256;
constexpr int kSinIterations = 64;
constexpr int kArithSamples = 1 << 16;  // elements checked against the host, spread over the array

__global__ void fma_double_literal(const float* __restrict__ in, float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  for (int k = 0; k < kFmaIterations; ++k) v = v * 1.0001 + 0.5;  // the double literal, on purpose
  out[i] = v;
}

__global__ void fma_float_literal(const float* __restrict__ in, float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  for (int k = 0; k < kFmaIterations; ++k) v = v * 1.0001f + 0.5f;
  out[i] = v;
}

// v stays within [c - 1, c + 1], c in [0, 1): inside the range where __sinf is accurate.
template <bool kIntrinsic>
__global__ void sine_chain(const float* __restrict__ in, float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float v = c;
  for (int k = 0; k < kSinIterations; ++k) v = (kIntrinsic ? __sinf(v) : sinf(v)) + c;
  out[i] = v;
}

// The host's value of each kernel for one input (the device contracts a * b + c into one fused multiply-add).
float host_fma_double(float v) {
  for (int k = 0; k < kFmaIterations; ++k) v = static_cast<float>(std::fma(static_cast<double>(v), 1.0001, 0.5));
  return v;
}
float host_fma_float(float v) {
  for (int k = 0; k < kFmaIterations; ++k) v = std::fmaf(v, 1.0001f, 0.5f);
  return v;
}
float host_sine(float c) {
  double v = c;
  for (int k = 0; k < kSinIterations; ++k) v = std::sin(v) + c;
  return static_cast<float>(v);
}

// The largest difference from the host over the sampled elements, relative to the host's value or absolute.
double max_error(const std::vector<float>& got, const std::vector<float>& in, float (*host)(float), bool relative) {
  double worst = 0;
  for (int s = 0; s < kArithSamples; ++s) {
    const std::int64_t i = s * (kArithN / kArithSamples);
    const double want = host(in[i]);
    const double error = std::fabs(got[i] - want);
    worst = std::fmax(worst, relative ? error / std::fmax(std::fabs(want), 1e-30) : error);
  }
  return worst;
}

Json literals_fastmath(const Bench& b) {
  std::fprintf(stderr, "literals_fastmath\n");
  const auto host = unit_floats(kArithN, kSeed + 2);
  float* in = device_alloc<float>(kArithN);
  float* out = device_alloc<float>(kArithN);
  CHECK(cudaMemcpy(in, host.data(), kArithN * sizeof(float), cudaMemcpyHostToDevice));
  const unsigned blocks = b.blocks_for(kArithN, 256);
  struct Case {
    void (*kernel)(const float*, float*, std::int64_t);
    float (*host)(float);
    bool relative;     // the FMA chains should match the host to the bit; the sine chains, within a tolerance
    double tolerance;  // absolute for the sines: __sinf's error is absolute (about 4e-7), and v can be near 0
  };
  const std::vector<Case> cases = {{fma_double_literal, host_fma_double, true, 1e-6},
                                   {fma_float_literal, host_fma_float, true, 1e-6},
                                   {sine_chain<false>, host_sine, false, 1e-4},
                                   {sine_chain<true>, host_sine, false, 1e-4}};
  std::vector<Variant> v = {{"fma_double_literal"}, {"fma_float_literal"}, {"sinf"}, {"__sinf"}};
  std::vector<double> errors;
  for (std::size_t k = 0; k < v.size(); ++k) {
    v[k].run = [&, k] { cases[k].kernel<<<blocks, 256, 0, b.stream>>>(in, out, kArithN), launched(); };
    v[k].run();
    CHECK(cudaStreamSynchronize(b.stream));
    errors.push_back(max_error(to_host(out, kArithN), host, cases[k].host, cases[k].relative));
  }
  b.time(v);
  Json out_json;
  out_json.integer("n", kArithN).integer("fma_iterations", kFmaIterations).integer("sin_iterations", kSinIterations)
      .integer("elements_checked", kArithSamples);
  for (std::size_t k = 0; k < v.size(); ++k) {
    const bool fma = k < 2;
    const double work = fma ? 2.0 * kArithN * kFmaIterations : 1.0 * kArithN * kSinIterations;
    Json t = timing(v[k], work, fma ? "gflop_per_s" : "gsin_per_s");
    t.num(cases[k].relative ? "max_relative_error" : "max_absolute_error", errors[k])
        .boolean("correct", errors[k] <= cases[k].tolerance);
    out_json.obj(v[k].name, t);
  }
  out_json.num("double_over_float_literal_time", median(v[0].ms) / median(v[1].ms))
      .num("sinf_over_intrinsic_time", median(v[2].ms) / median(v[3].ms));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return out_json;
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Register arrays. Registers cannot be indexed at run time: an array indexed only by constants (after unrolling)
// lives in registers, one indexed by a value known only at run time goes to local memory (per-thread DRAM, cached
// in L1), and every access becomes an LDL or STL. Both kernels do the same FMAs on the same elements, in a
// different order that cannot change any element's value, so their outputs must match bit for bit.

constexpr std::int64_t kArrayThreads = std::int64_t{1} << 22;
constexpr int kArrayLength = 16;
constexpr int kArrayIterations = 64;
constexpr int kArraySamples = 1 << 14;

template <bool kRuntimeIndex>
__global__ void register_array(const float* __restrict__ in, float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  // 0 is a constant, so (k + 0) & 15 is too once the loop over k is unrolled; threadIdx.x is not.
  const int shift = kRuntimeIndex ? static_cast<int>(threadIdx.x) : 0;
  float a[kArrayLength];
#pragma unroll
  for (int k = 0; k < kArrayLength; ++k) a[k] = c + k;
#pragma unroll 1
  for (int it = 0; it < kArrayIterations; ++it) {
#pragma unroll
    for (int k = 0; k < kArrayLength; ++k) {
      const int j = (k + shift) & (kArrayLength - 1);
      a[j] = a[j] * 0.999f + c;
    }
  }
  float total = 0.0f;
#pragma unroll
  for (int k = 0; k < kArrayLength; ++k) total += a[k];
  out[i] = total;
}

float host_register_array(float c) {
  float a[kArrayLength];
  for (int k = 0; k < kArrayLength; ++k) a[k] = c + k;
  for (int it = 0; it < kArrayIterations; ++it)
    for (float& x : a) x = std::fmaf(x, 0.999f, c);
  float total = 0.0f;
  for (float x : a) total += x;
  return total;
}

Json register_arrays(const Bench& b) {
  std::fprintf(stderr, "register_arrays\n");
  const auto host = unit_floats(kArrayThreads, kSeed + 3);
  float* in = device_alloc<float>(kArrayThreads);
  float* out = device_alloc<float>(kArrayThreads);
  CHECK(cudaMemcpy(in, host.data(), kArrayThreads * sizeof(float), cudaMemcpyHostToDevice));
  const unsigned blocks = b.blocks_for(kArrayThreads, 256);
  std::vector<Variant> v = {
      {"compile_time_index",
       [&] { register_array<false><<<blocks, 256, 0, b.stream>>>(in, out, kArrayThreads), launched(); }},
      {"runtime_index",
       [&] { register_array<true><<<blocks, 256, 0, b.stream>>>(in, out, kArrayThreads), launched(); }},
  };
  std::vector<std::vector<float>> got;
  std::vector<bool> correct;
  for (auto& variant : v) {
    variant.run();
    CHECK(cudaStreamSynchronize(b.stream));
    got.push_back(to_host(out, kArrayThreads));
    bool ok = true;
    for (int s = 0; s < kArraySamples; ++s) {
      const std::int64_t i = s * (kArrayThreads / kArraySamples);
      ok = ok && got.back()[i] == host_register_array(host[i]);
    }
    correct.push_back(ok);
  }
  b.time(v);
  const double flops = 2.0 * kArrayThreads * kArrayLength * kArrayIterations;
  Json out_json;
  out_json.integer("threads", kArrayThreads).integer("array_floats", kArrayLength)
      .integer("iterations", kArrayIterations).integer("elements_checked", kArraySamples);
  for (std::size_t k = 0; k < v.size(); ++k)
    out_json.obj(v[k].name, timing(v[k], flops, "gflop_per_s").boolean("correct", correct[k]));
  out_json.boolean("outputs_identical", got[0] == got[1])
      .num("runtime_over_compile_time_index_time", median(v[1].ms) / median(v[0].ms));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return out_json;
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Copy engines and zero-copy. Pinned host memory can be copied by the DMA engines directly; pageable memory is
// first staged through a pinned buffer by the driver. With two or more copy engines, a host-to-device and a
// device-to-host copy on two streams can run at once, each direction at full rate. Mapped pinned memory can be read
// by a kernel directly over the bus, with no copy at all.

constexpr std::size_t kHostBytes = std::size_t{256} << 20;
constexpr std::int64_t kHostFloats = kHostBytes / sizeof(float);

__global__ void sum_mapped(const float4* __restrict__ host_data, float* partials, std::int64_t n4) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float v = 0.0f;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride) {
    const float4 q = host_data[i];
    v += (q.x + q.y) + (q.z + q.w);
  }
  const float total = block_tree_sum(v);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

Json copy_engines(const Bench& b) {
  std::fprintf(stderr, "copy_engines\n");
  float *pinned = nullptr, *pinned_back = nullptr;
  CHECK(cudaHostAlloc(&pinned, kHostBytes, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&pinned_back, kHostBytes, cudaHostAllocDefault));
  // Small whole numbers: every partial sum of the zero-copy kernel is exact, so its total can be checked exactly.
  std::int64_t want_sum = 0;
  for (std::int64_t i = 0; i < kHostFloats; ++i) pinned[i] = static_cast<float>(i % 7), want_sum += i % 7;
  std::vector<float> pageable(pinned, pinned + kHostFloats);
  float* mapped = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped), pinned, 0));
  float* up = device_alloc<float>(kHostFloats);    // the host-to-device copies' destination
  float* down = device_alloc<float>(kHostFloats);  // the device-to-host copies' source
  CHECK(cudaMemcpy(down, pinned, kHostBytes, cudaMemcpyHostToDevice));
  const int sum_blocks = b.prop.multiProcessorCount * 8;
  float* partials = device_alloc<float>(sum_blocks);
  cudaStream_t other;
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  const auto h2d = [&] { CHECK(cudaMemcpyAsync(up, pinned, kHostBytes, cudaMemcpyHostToDevice, b.stream)); };
  const auto d2h = [&] { CHECK(cudaMemcpyAsync(pinned_back, down, kHostBytes, cudaMemcpyDeviceToHost, b.stream)); };
  std::vector<Variant> v = {
      {"h2d_pinned", h2d},
      {"d2h_pinned", d2h},
      // cudaMemcpy runs on the legacy default stream, which waits for the timing stream's earlier work and makes
      // its later work wait: the events on the timing stream bracket it.
      {"h2d_pageable", [&] { CHECK(cudaMemcpy(up, pageable.data(), kHostBytes, cudaMemcpyHostToDevice)); }},
      {"zero_copy_read", [&] {
         sum_mapped<<<sum_blocks, 256, 0, b.stream>>>(reinterpret_cast<const float4*>(mapped), partials,
                                                        kHostFloats / 4);
         launched();
       }},
      {"h2d_and_d2h_at_once", [&] {
         CHECK(cudaEventRecord(fork, b.stream));
         CHECK(cudaStreamWaitEvent(other, fork, 0));
         CHECK(cudaMemcpyAsync(pinned_back, down, kHostBytes, cudaMemcpyDeviceToHost, other));
         h2d();
         CHECK(cudaEventRecord(join, other));
         CHECK(cudaStreamWaitEvent(b.stream, join, 0));
       }},
  };
  const auto arrived_up = [&] {
    std::vector<float> got = to_host(up, kHostFloats);
    return std::memcmp(got.data(), pinned, kHostBytes) == 0;
  };
  const auto arrived_down = [&] { return std::memcmp(pinned_back, pinned, kHostBytes) == 0; };
  std::vector<bool> correct;
  for (auto& variant : v) {
    CHECK(cudaMemset(up, 0, kHostBytes));
    std::memset(pinned_back, 0, kHostBytes);
    variant.run();
    CHECK(cudaDeviceSynchronize());
    if (variant.name == "d2h_pinned") {
      correct.push_back(arrived_down());
    } else if (variant.name == "zero_copy_read") {
      double total = 0;
      for (float p : to_host(partials, sum_blocks)) total += p;
      correct.push_back(total == static_cast<double>(want_sum));
    } else if (variant.name == "h2d_and_d2h_at_once") {
      correct.push_back(arrived_up() && arrived_down());
    } else {
      correct.push_back(arrived_up());
    }
  }
  b.time(v);
  Json out;
  out.integer("async_engine_count", b.prop.asyncEngineCount).boolean("can_map_host_memory", b.prop.canMapHostMemory)
      .integer("bytes_each_way", kHostBytes);
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double bytes = (k + 1 == v.size() ? 2.0 : 1.0) * kHostBytes;  // both directions count in the last
    out.obj(v[k].name, timing(v[k], bytes, "gb_per_s").boolean("correct", correct[k]));
  }
  // Above 1, the two directions overlapped: 2 means each ran as fast as it does alone.
  out.num("overlap_speedup", (median(v[0].ms) + median(v[1].ms)) / median(v[4].ms));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(other));
  CHECK(cudaFree(up));
  CHECK(cudaFree(down));
  CHECK(cudaFree(partials));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(pinned_back));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// 6. Tensor cores. The same product in FP32 on the SIMT lanes, in TF32 on the tensor cores (inputs rounded to a
// 10-bit mantissa, FP32 accumulation) and with BF16 inputs (8-bit mantissa, FP32 accumulation).

constexpr int kGemmSize = 8192;
constexpr std::int64_t kGemmElements = std::int64_t{kGemmSize} * kGemmSize;
constexpr int kGemmSamples = 64;  // entries of C checked against a double-precision dot product on the host

// The matrices' entries, from a hash of their index: the same on the host, which needs only the sampled rows and
// columns, and exactly representable: a 24-bit integer over 2^23, minus one, in [-1, 1).
__host__ __device__ inline float hashed_entry(std::uint32_t i, std::uint32_t seed) {
  std::uint32_t h = i * 0x9E3779B1u ^ seed;
  h ^= h >> 16, h *= 0x85EBCA6Bu, h ^= h >> 13, h *= 0xC2B2AE35u, h ^= h >> 16;
  return static_cast<float>(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

__global__ void fill_hashed(float* m, std::int64_t n, std::uint32_t seed) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) m[i] = hashed_entry(static_cast<std::uint32_t>(i), seed);
}

__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

// The largest error over the sampled entries of C, relative to the sum of |a_ik b_kj| (the scale of the dot
// product's rounding, which a plain relative error would blow up where the dot product happens to be near 0).
double gemm_error(const float* c, std::uint32_t seed_a, std::uint32_t seed_b) {
  std::mt19937 gen(kSeed + 4);
  double worst = 0;
  for (int s = 0; s < kGemmSamples; ++s) {
    const std::uint32_t row = gen() % kGemmSize, col = gen() % kGemmSize;
    double want = 0, scale = 0;
    for (std::uint32_t k = 0; k < kGemmSize; ++k) {  // column-major: A(row, k) at row + k M, B(k, col) at k + col K
      const double p = static_cast<double>(hashed_entry(row + k * kGemmSize, seed_a)) *
                       hashed_entry(k + col * kGemmSize, seed_b);
      want += p, scale += std::fabs(p);
    }
    float got = 0;
    CHECK(cudaMemcpy(&got, c + row + static_cast<std::int64_t>(col) * kGemmSize, sizeof got, cudaMemcpyDeviceToHost));
    worst = std::fmax(worst, std::fabs(got - want) / scale);
  }
  return worst;
}

Json tensor_cores(const Bench& b) {
  std::fprintf(stderr, "tensor_cores\n");
  constexpr std::uint32_t kSeedA = 11, kSeedB = 29;
  float* a = device_alloc<float>(kGemmElements);
  float* bm = device_alloc<float>(kGemmElements);
  float* c = device_alloc<float>(kGemmElements);
  __nv_bfloat16* a16 = device_alloc<__nv_bfloat16>(kGemmElements);
  __nv_bfloat16* b16 = device_alloc<__nv_bfloat16>(kGemmElements);
  const unsigned blocks = b.blocks_for(kGemmElements, 256);
  fill_hashed<<<blocks, 256, 0, b.stream>>>(a, kGemmElements, kSeedA), launched();
  fill_hashed<<<blocks, 256, 0, b.stream>>>(bm, kGemmElements, kSeedB), launched();
  to_bf16<<<blocks, 256, 0, b.stream>>>(a, a16, kGemmElements), launched();
  to_bf16<<<blocks, 256, 0, b.stream>>>(bm, b16, kGemmElements), launched();

  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, b.stream));
  // The default math mode: the compute type alone decides whether tensor cores may be used.
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  const float alpha = 1.0f, beta = 0.0f;
  const int n = kGemmSize;
  const auto gemm = [&](const void* pa, const void* pb, cudaDataType in_type, cublasComputeType_t compute) {
    CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, pa, in_type, n, pb, in_type, n, &beta,
                              c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
  };
  std::vector<Variant> v = {
      {"fp32", [&] { gemm(a, bm, CUDA_R_32F, CUBLAS_COMPUTE_32F); }},
      {"tf32", [&] { gemm(a, bm, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32); }},
      {"bf16_inputs", [&] { gemm(a16, b16, CUDA_R_16BF, CUBLAS_COMPUTE_32F); }},
  };
  // Against the FP32 inputs: TF32 and BF16 round the inputs themselves, which the error shows.
  const double tolerance[3] = {1e-5, 2e-3, 1e-2};
  std::vector<double> errors;
  for (auto& variant : v) {
    CHECK(cudaMemsetAsync(c, 0, kGemmElements * sizeof(float), b.stream));
    variant.run();
    CHECK(cudaStreamSynchronize(b.stream));
    errors.push_back(gemm_error(c, kSeedA, kSeedB));
  }
  b.time(v);
  const double flops = 2.0 * n * n * static_cast<double>(n);
  const double fp32_ms = median(v[0].ms);
  Json out;
  out.integer("m", n).integer("n", n).integer("k", n).integer("entries_checked", kGemmSamples);
  for (std::size_t k = 0; k < v.size(); ++k) {
    Json t = timing(v[k], flops / 1e3, "tflop_per_s");
    out.obj(v[k].name, t.num("fp32_time_over_this", fp32_ms / median(v[k].ms))
                           .num("max_error_over_abs_dot", errors[k]).num("correct_tolerance", tolerance[k])
                           .boolean("correct", errors[k] <= tolerance[k]));
  }
  CHECK_CUBLAS(cublasDestroy(handle));
  CHECK(cudaFree(a));
  CHECK(cudaFree(bm));
  CHECK(cudaFree(c));
  CHECK(cudaFree(a16));
  CHECK(cudaFree(b16));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// 7. Roofline points: what the device says of itself, the peaks that follow from it by formula, and the measured
// copy ceiling.

int attribute(cudaDeviceAttr what) {
  int v = 0;
  CHECK(cudaDeviceGetAttribute(&v, what, 0));
  return v;
}

Json roofline(const Bench& b, const CopyCeiling& ceiling) {
  const int sms = b.prop.multiProcessorCount;
  const double clock_khz = attribute(cudaDevAttrClockRate);
  const double memory_clock_khz = attribute(cudaDevAttrMemoryClockRate);
  const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  Json out;
  out.integer("sms", sms).num("clock_mhz", clock_khz / 1e3).num("memory_clock_mhz", memory_clock_khz / 1e3)
      .integer("memory_bus_bits", bus_bits).integer("l2_bytes", b.prop.l2CacheSize)
      .integer("shared_bytes_per_sm", b.prop.sharedMemPerMultiprocessor)
      .integer("registers_per_sm", b.prop.regsPerMultiprocessor)
      .num("fp32_peak_gflop_per_s", sms * 128.0 * 2.0 * clock_khz * 1e3 / 1e9)
      .str("fp32_peak_formula", "sms x 128 FP32 lanes x 2 flops (FMA) x clock_mhz (cudaDevAttrClockRate, the "
                                "maximum clock: sustained clocks under load are lower)")
      .num("dram_peak_gb_per_s", 2.0 * memory_clock_khz * 1e3 * bus_bits / 8.0 / 1e9)
      .str("dram_peak_formula", "2 transfers per memory clock x memory_clock_mhz x memory_bus_bits / 8")
      .num("measured_copy_gb_per_s", ceiling.gb_per_s)
      .str("measured_copy_source", "aos_soa.copy: bytes read plus bytes written over the median time");
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

int main() {
  Bench b;
  CHECK(cudaGetDeviceProperties(&b.prop, 0));
  CHECK(cudaStreamCreate(&b.stream));
  CHECK(cudaMalloc(&b.flush, kFlushBytes));
  CopyCeiling ceiling;
  Json out;
  out.str("gpu", b.prop.name).integer("sms", b.prop.multiProcessorCount).integer("rounds", kRounds)
      .integer("l2_flush_bytes", kFlushBytes);
  out.obj("aos_soa", aos_soa(b, ceiling));
  out.obj("atomics_order", atomics_order(b));
  out.obj("literals_fastmath", literals_fastmath(b));
  out.obj("register_arrays", register_arrays(b));
  out.obj("copy_engines", copy_engines(b));
  out.obj("tensor_cores", tensor_cores(b));
  out.obj("roofline", roofline(b, ceiling));
  std::printf("%s\n", out.text().c_str());
  CHECK(cudaFree(b.flush));
  CHECK(cudaStreamDestroy(b.stream));
  return 0;
}
