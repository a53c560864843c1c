// Lab 05 register_blocked: can a warptiled, double-buffered FP32 SGEMM reach 95% of cuBLAS? (issue 12)
//
// One self-contained program: C = A * B, row-major, FP32 on CUDA cores (no tensor cores, no TF32), m = n = k = 4096
// by default. It runs cuBLAS SGEMM (pedantic math, as lab 05's ceiling does) and every kernel variant below, checks
// each variant's C against cuBLAS's bit for bit, times all of them in the same rounds, and prints one JSON object on
// stdout (progress goes to stderr). Build and run from this folder (README.md says what the JSON holds):
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o bench bench.cu -lcublas && ./bench > result.json
//   ./bench --rounds 30 --size 4096       (the defaults; the size must be a multiple of 256)
// Exit codes: 0 all ran, 1 CUDA or cuBLAS error, 2 bad arguments, 3 a variant's result differs from cuBLAS's.
//
// The variants:
//   current       the reference's register_blocked kernel (solutions/05_tiled_matmul/solution.cu, its unchecked
//                 path), copied so that it is timed in the same run: 128 x 128 x 8 block tile, 8 x 8 per thread, one
//                 shared-memory buffer and two __syncthreads per k-slice.
//   wt_*          one warptiled kernel (Simon Boehm's SGEMM worklog, kernel 10) with its tile sizes as template
//                 parameters: double-buffered shared memory (one __syncthreads per k-slice), float4 global loads
//                 staged in registers a whole slice ahead, A transposed in shared memory with a conflict-free pad.
//                 Names read wt_<BM>x<BN>x<BK>_w<WM>x<WN>_t<rows>x<cols per thread>[_q]_<threads>t<min blocks/SM>b.
//   pl_*          cuBLAS's own shape (ncu names its kernel: 256 x 128 x 8, 3 stages, 8 x 16 per thread) as a cp.async
//                 pipeline of STAGES shared-memory slices, A transposed by 4-byte copies, one barrier per slice.
//                 Names read pl_128x<BN>x<BK>_s<stages>_t8x<cols per thread>_256t<min blocks/SM>b[_u<unroll>]
//                 [_pf | _pfz] (fragments of the next k step read ahead; z: zigzag FMA order).
//
// Napkin math at 4096^3: 2 * 4096^3 = 137 GFLOP. The H200's 132 SMs x 128 FP32 lanes x 2 flop at ~1.98 GHz are ~67
// TFLOP/s; cuBLAS reaches ~50 (2.7 ms), 95% of it is ~2.87 ms. A and B are 64 MiB each, so every variant is far on
// the compute side of the roofline: what matters is how many non-FMA instructions each FMA costs, and that nothing
// stalls the FMA pipe (shared-memory latency, barriers, bank conflicts).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

// ---- errors and RAII -----------------------------------------------------------------------------------------
struct ExitError : std::runtime_error {
  int code;
  ExitError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

void cuda_check(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess)
    throw ExitError(1, std::string(file) + ":" + std::to_string(line) + ": " + call + ": " + cudaGetErrorName(err) +
                           " (" + cudaGetErrorString(err) + ")");
}
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw ExitError(1, std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                           cublasGetStatusString(status));
}
#define CUBLAS_CHECK(call) cublas_check((call), #call, __FILE__, __LINE__)

template <class T>
class DeviceBuffer {  // move-only owner of a device allocation
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) { CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T))); }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // no throw in a destructor
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(o.count_) {}
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_;
};

class Event {  // move-only owner of a CUDA event
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&ev_)); }
  ~Event() {
    if (ev_ != nullptr) cudaEventDestroy(ev_);
  }
  Event(Event&& o) noexcept : ev_(std::exchange(o.ev_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return ev_; }

 private:
  cudaEvent_t ev_ = nullptr;
};

class Stream {  // owner of a non-blocking stream; declared before the cuBLAS handle that uses it, so it outlives it
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class CublasHandle {  // owner of a cuBLAS handle
 public:
  CublasHandle() { CUBLAS_CHECK(cublasCreate(&h_)); }
  ~CublasHandle() { cublasDestroy(h_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

// ---- "current": the reference's register_blocked kernel, unchecked path, as in solution.cu ------------------------
namespace current {
constexpr int kBM = 128, kBN = 128, kBK = 8;
constexpr int kTM = 8, kTN = 8;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256

__device__ __forceinline__ int quarter(int t, int i) { return (i < 4 ? 0 : 64) + t * 4 + (i & 3); }

__global__ void __launch_bounds__(kThreads, 2)
    register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                            int n, int k) {
  __shared__ __align__(16) float as[kBK][kBM];  // A's slice, transposed: as[p][row]
  __shared__ __align__(16) float bs[kBK][kBN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const int a_row = tid / 2, a_col = (tid % 2) * 4;
  const int b_row = tid / 32, b_col = (tid % 32) * 4;
  const auto load_a = [&](int p0) {
    return *reinterpret_cast<const float4*>(&a[(row0 + a_row) * static_cast<std::int64_t>(k) + p0 + a_col]);
  };
  const auto load_b = [&](int p0) {
    return *reinterpret_cast<const float4*>(&b[(p0 + b_row) * static_cast<std::int64_t>(n) + col0 + b_col]);
  };
  const int ty = tid / (kBN / kTN), tx = tid % (kBN / kTN);
  float acc[kTM][kTN] = {};
  float4 a_next = load_a(0), b_next = load_b(0);
  for (int p0 = 0; p0 < k; p0 += kBK) {
    as[a_col + 0][a_row] = a_next.x;
    as[a_col + 1][a_row] = a_next.y;
    as[a_col + 2][a_row] = a_next.z;
    as[a_col + 3][a_row] = a_next.w;
    *reinterpret_cast<float4*>(&bs[b_row][b_col]) = b_next;
    __syncthreads();
    if (p0 + kBK < k) {
      a_next = load_a(p0 + kBK);
      b_next = load_b(p0 + kBK);
    }
#pragma unroll
    for (int p = 0; p < kBK; ++p) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&as[p][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&as[p][64 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&bs[p][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&bs[p][64 + tx * 4]);
      const float ra[kTM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float rb[kTN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    float* out = &c[(row0 + quarter(ty, i)) * static_cast<std::int64_t>(n) + col0];
    *reinterpret_cast<float4*>(&out[quarter(tx, 0)]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(&out[quarter(tx, 4)]) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}
}  // namespace current

// ---- the warptiled kernel ------------------------------------------------------------------------------------
// Three levels of tiling of C:
//   block tile  BM x BN    staged through shared memory, k in slices of BK;
//   warp tile   WM x WN    one warp's share of the block tile;
//   thread tile (WMITER x TM) x (WNITER x TN): the warp tile is cut in WMITER x WNITER sub-tiles of WSUBM x WSUBN, and
//               in each sub-tile the 32 lanes form a (WSUBM / TM) x (WSUBN / TN) grid, each lane owning TM x TN.
// Why warp tiles: per k, a thread reads WMITER*TM values of A and WNITER*TN of B from shared memory and does
// (WMITER*TM) x (WNITER*TN) FMAs, as in any register-blocked kernel; what the warp level adds is that the 32 lanes of
// a warp read only WM + WN distinct values per k (a 64 x 32 warp tile: 96 floats), laid out so that lanes sharing a
// row of A or a column of B read the same word (a broadcast) and the rest read consecutive words. A warp-wide load is
// then a few 128-byte wavefronts without conflicts, and every value fetched from shared memory feeds TM or TN FMAs.
// Sub-tiles (WNITER > 1) keep each lane's TN columns at 4, one float4, so the lanes of a row read consecutive float4s
// however many they are; with 8 contiguous columns per lane and 16 lanes along a row, lanes 4 apart would read words
// 128 bytes apart, on the same banks, in the same 8-lane phase of a 128-bit load (a 2-way conflict).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int WNITER_, int TM_, int TN_, int THREADS_, int MIN_BLOCKS_>
struct Warptile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, WNITER = WNITER_, TM = TM_, TN = TN_;
  static constexpr int kThreads = THREADS_, kMinBlocks = MIN_BLOCKS_;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;
  static constexpr int kLanesN = WSUBN / TN;  // lanes along a sub-tile's columns

  // A's slice is stored transposed, as[p][row], so a lane's TM values of A for one p are contiguous (float4 loads).
  // The transposing store writes single floats: lane l of a warp stores row r0 + l / 2, column 4 * (l % 2) + j (see
  // the staging map below). With a pitch of BM floats every lane would hit the banks of its row only, 16 banks for 32
  // lanes (2-way conflict); a pitch of BM + 4 moves column 4 * (l % 2) + j by 16 banks for odd lanes, so the 32 lanes
  // hit 32 distinct banks. The pitch stays a multiple of 4 floats, so float4 reads of a row stay aligned.
  static constexpr int kPadA = 4;
  static constexpr int kLdA = BM + kPadA;
  static constexpr int kStageFloats = BK * (kLdA + BN);    // one buffer: A^T slice then B slice
  static constexpr int kSmemBytes = 2 * kStageFloats * 4;  // two buffers

  // Staging map, global -> registers -> shared memory, float4 per load.
  // A (BM x BK of row-major A): a thread pair covers 8 consecutive k of one row (32 bytes, a full sector), so one
  // load instruction of the block covers kThreads / 2 rows x 8 k; kALoadsM x kALoadsK loads cover the slice.
  static constexpr int kALoadsM = BM / (kThreads / 2), kALoadsK = BK / 8;
  // B (BK x BN of row-major B): consecutive threads take consecutive float4 of a row (a warp reads 512 contiguous
  // bytes), one instruction covers kBRowsPerLoad rows.
  static constexpr int kBRowsPerLoad = kThreads / (BN / 4);
  static constexpr int kBLoads = BK / kBRowsPerLoad;

  static_assert(kThreads % 32 == 0 && (BM / WM) * (BN / WN) == kThreads / 32, "one warp per warp tile");
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles divide the block tile");
  static_assert(WMITER >= 1 && WMITER * 32 * TM * TN * WNITER == WM * WN, "the lanes' tiles cover the warp tile");
  static_assert(WM % WMITER == 0 && WN % WNITER == 0 && (WSUBM / TM) * (WSUBN / TN) == 32, "32 lanes per sub-tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "float4 reads of shared memory and float4 stores of C");
  static_assert(BK % 8 == 0 && BM % (kThreads / 2) == 0, "A staging map");
  static_assert(kThreads % (BN / 4) == 0 && BK % kBRowsPerLoad == 0, "B staging map");
};

template <class W>
__global__ void __launch_bounds__(W::kThreads, W::kMinBlocks)
    warptiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                     int k) {
  constexpr int BM = W::BM, BN = W::BN, BK = W::BK, TM = W::TM, TN = W::TN;
  constexpr int WMITER = W::WMITER, WNITER = W::WNITER, kLdA = W::kLdA;
  extern __shared__ float4 smem4[];  // float4: the dynamic buffer is 16-byte aligned
  float* const smem = reinterpret_cast<float*>(smem4);
  const auto as = [&](int buf) { return smem + buf * W::kStageFloats; };  // [BK][kLdA]
  const auto bs = [&](int buf) { return smem + buf * W::kStageFloats + BK * kLdA; };  // [BK][BN]

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  // Staging pointers, advanced by one slice per iteration (64-bit arithmetic once, not per load).
  const int a_row = tid / 2, a_col = (tid % 2) * 4;
  const int b_row = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;
  const float* a_src = a + static_cast<std::int64_t>(row0 + a_row) * k + a_col;
  const float* b_src = b + static_cast<std::int64_t>(b_row) * n + col0 + b_col;
  float4 a_stage[W::kALoadsM][W::kALoadsK], b_stage[W::kBLoads];

  const auto load_slice = [&] {  // global -> registers; nothing waits on these loads until store_slice
#pragma unroll
    for (int i = 0; i < W::kALoadsM; ++i)
#pragma unroll
      for (int j = 0; j < W::kALoadsK; ++j)
        a_stage[i][j] = *reinterpret_cast<const float4*>(
            a_src + static_cast<std::int64_t>(i) * (W::kThreads / 2) * k + j * 8);
#pragma unroll
    for (int i = 0; i < W::kBLoads; ++i)
      b_stage[i] = *reinterpret_cast<const float4*>(b_src + static_cast<std::int64_t>(i) * W::kBRowsPerLoad * n);
    a_src += BK;
    b_src += static_cast<std::int64_t>(BK) * n;
  };
  const auto store_slice = [&](int buf) {  // registers -> shared memory, A transposed
    float* const a_dst = as(buf);
    float* const b_dst = bs(buf);
#pragma unroll
    for (int i = 0; i < W::kALoadsM; ++i)
#pragma unroll
      for (int j = 0; j < W::kALoadsK; ++j) {
        const int r = i * (W::kThreads / 2) + a_row, p = j * 8 + a_col;
        a_dst[(p + 0) * kLdA + r] = a_stage[i][j].x;
        a_dst[(p + 1) * kLdA + r] = a_stage[i][j].y;
        a_dst[(p + 2) * kLdA + r] = a_stage[i][j].z;
        a_dst[(p + 3) * kLdA + r] = a_stage[i][j].w;
      }
#pragma unroll
    for (int i = 0; i < W::kBLoads; ++i)
      *reinterpret_cast<float4*>(&b_dst[(i * W::kBRowsPerLoad + b_row) * BN + b_col]) = b_stage[i];
  };

  // This thread's place: warp tile, then lane within each sub-tile.
  const int warp = tid / 32, lane = tid % 32;
  const int a_off = (warp / W::kWarpsN) * W::WM + (lane / W::kLanesN) * TM;  // first row of A, within the block tile
  const int b_off = (warp % W::kWarpsN) * W::WN + (lane % W::kLanesN) * TN;  // first column of B
  float acc[WMITER * TM][WNITER * TN] = {};

  load_slice();
  store_slice(0);
  __syncthreads();

  // slide-begin: warptiled_loop
  // Two shared-memory buffers: while the block computes on buffer `cur`, the next slice goes to `cur ^ 1`, which
  // nobody reads any more (its last readers finished before the barrier that ended the previous iteration). So one
  // barrier per slice, where a single buffer needs two (one before overwriting it, one before reading it), and the
  // stores of the next slice do not wait for the slowest warp to finish its FMAs.
  const int slices = k / BK;
  for (int s = 0; s < slices; ++s) {
    const int cur = s & 1;
    if (s + 1 < slices) load_slice();  // in flight during the FMAs below: BK x (WMITER*TM) x (WNITER*TN) per thread

    const float* const a_cur = as(cur) + a_off;
    const float* const b_cur = bs(cur) + b_off;
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float ra[WMITER * TM], rb[WNITER * TN];
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4)
          *reinterpret_cast<float4*>(&ra[wm * TM + i]) =
              *reinterpret_cast<const float4*>(&a_cur[p * kLdA + wm * W::WSUBM + i]);
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
          *reinterpret_cast<float4*>(&rb[wn * TN + j]) =
              *reinterpret_cast<const float4*>(&b_cur[p * BN + wn * W::WSUBN + j]);
#pragma unroll
      for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }

    if (s + 1 < slices) store_slice(cur ^ 1);
    __syncthreads();  // the next slice is complete, and nobody reads `cur` any more
  }
  // slide-end: warptiled_loop

  // Each store writes TN = 4 consecutive floats per lane; the kLanesN lanes of a row write 16 * kLanesN contiguous
  // bytes (whole 32-byte sectors).
  float* const c_tile = c + static_cast<std::int64_t>(row0 + a_off) * n + col0 + b_off;
#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      float* const out = c_tile + static_cast<std::int64_t>(wm * W::WSUBM + i) * n;
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float* v = &acc[wm * TM + i][wn * TN + j];
          *reinterpret_cast<float4*>(&out[wn * W::WSUBN + j]) = make_float4(v[0], v[1], v[2], v[3]);
        }
    }
}

// ---- the variants ------------------------------------------------------------------------------------------------
struct Variant {
  std::string name;
  std::string params;  // JSON object
  const void* func;
  void (*launch)(const float*, const float*, float*, int, int, int, cudaStream_t);
  int bm, bn, bk;
  int threads;
  int dynamic_smem;
};

void launch_current(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 grid(n / current::kBN, m / current::kBM);
  current::register_blocked_kernel<<<grid, current::kThreads, 0, stream>>>(a, b, c, m, n, k);
}

template <class W>
void launch_warptiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 grid(n / W::BN, m / W::BM);  // x over columns: consecutive blocks share a row panel of A
  warptiled_kernel<W><<<grid, W::kThreads, W::kSmemBytes, stream>>>(a, b, c, m, n, k);
}

template <class W>
Variant warptiled(bool quartered) {
  std::string name = "wt_" + std::to_string(W::BM) + "x" + std::to_string(W::BN) + "x" + std::to_string(W::BK) +
                     "_w" + std::to_string(W::WM) + "x" + std::to_string(W::WN) + "_t" +
                     std::to_string(W::WMITER * W::TM) + "x" + std::to_string(W::WNITER * W::TN) +
                     (quartered ? "_q" : "") + "_" + std::to_string(W::kThreads) + "t" +
                     std::to_string(W::kMinBlocks) + "b";
  char params[512];
  std::snprintf(params, sizeof params,
                "{\"kernel\": \"warptiled\", \"BM\": %d, \"BN\": %d, \"BK\": %d, \"WM\": %d, \"WN\": %d, "
                "\"WMITER\": %d, \"WNITER\": %d, \"TM\": %d, \"TN\": %d, \"threads\": %d, \"min_blocks_per_sm\": %d, "
                "\"smem_stages\": 2, \"a_pitch\": %d}",
                W::BM, W::BN, W::BK, W::WM, W::WN, W::WMITER, W::WNITER, W::TM, W::TN, W::kThreads, W::kMinBlocks,
                W::kLdA);
  return {name,     params, reinterpret_cast<const void*>(&warptiled_kernel<W>), &launch_warptiled<W>, W::BM, W::BN,
          W::BK,    W::kThreads, W::kSmemBytes};
}

//                         BM   BN  BK  WM  WN WNITER TM TN threads minblocks
// 8 x 8 per thread (64 accumulators), 256 threads, 2 blocks per SM (16 warps, registers capped at 128):
using W128x128x8_w64x32 = Warptile<128, 128, 8, 64, 32, 2, 8, 4, 256, 2>;
using W128x128x16_w64x32 = Warptile<128, 128, 16, 64, 32, 2, 8, 4, 256, 2>;
using W128x128x8_w32x64 = Warptile<128, 128, 8, 32, 64, 2, 8, 4, 256, 2>;
using W128x128x16_w32x64 = Warptile<128, 128, 16, 32, 64, 2, 8, 4, 256, 2>;
// the same 8 x 8 as four 4 x 4 quarters 32 rows / 16 columns apart (the reference's "quarter" layout, per warp):
using W128x128x8_w64x32_q = Warptile<128, 128, 8, 64, 32, 2, 4, 4, 256, 2>;
using W128x128x16_w64x32_q = Warptile<128, 128, 16, 64, 32, 2, 4, 4, 256, 2>;
// 8 x 16 per thread (128 accumulators): fewer shared-memory loads per FMA (6 float4 per 128 FMAs, against 4 per
// 64), one 256-thread block per SM (8 warps) or two 128-thread blocks:
using W128x256x8_w64x64 = Warptile<128, 256, 8, 64, 64, 4, 8, 4, 256, 1>;
using W128x256x16_w64x64 = Warptile<128, 256, 16, 64, 64, 4, 8, 4, 256, 1>;
using W256x128x8_w64x64 = Warptile<256, 128, 8, 64, 64, 4, 8, 4, 256, 1>;
using W256x128x16_w64x64 = Warptile<256, 128, 16, 64, 64, 4, 8, 4, 256, 1>;
using W128x128x8_w64x64_128t = Warptile<128, 128, 8, 64, 64, 4, 8, 4, 128, 2>;
using W128x128x16_w64x64_128t = Warptile<128, 128, 16, 64, 64, 4, 8, 4, 128, 2>;  // Boehm's kernel 10 on the A6000

// ---- cuBLAS's shape: 256 x 128 x 8 tiles, 8 x 16 per thread, a 3-stage cp.async pipeline --------------------------
// ncu names the kernel cublasSgemm runs at 4096^3 on the H200 (pedantic math):
// sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4, 254 registers,
// one 256-thread block per SM. In row-major terms: a block computes 128 rows x 256 columns of C; 8 warps as 2 x 4,
// each 64 x 64; a lane 8 rows (two groups of 4, 32 apart) x 16 columns (four float4, 16 apart). Shared memory holds
// STAGES slices; each is filled by cp.async straight from global memory (no registers in between): B's slice with
// 16-byte copies, A's transposed into as[k][row] with 4-byte copies (a copy may land anywhere, so the transpose is
// free). One barrier per slice: the stage refilled at slice s is the one every warp finished at slice s - 1.
namespace pipelined {
__device__ __forceinline__ void cp_async4(float* dst, const float* src) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src));
}
__device__ __forceinline__ void cp_async16(float* dst, const float* src) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

template <int BN_, int BK_, int STAGES_, int MIN_BLOCKS_, int UNROLL_ = BK_, bool PREFETCH_ = false,
          bool ZIGZAG_ = true, int LANES_M_ = 8>
struct Tile {
  // A warp's 32 lanes as kLanesM x kLanesN; a lane owns kGroupsM float4 row groups 4 kLanesM apart and kGroupsN float4
  // column groups 4 kLanesN apart of its warp's 64 x BN / 4 tile.
  static constexpr int kLanesM = LANES_M_, kLanesN = 32 / LANES_M_;
  static constexpr bool kZigzag = ZIGZAG_;
  static constexpr bool kPrefetch = PREFETCH_;  // fragments of step p + 1 read during step p, zigzag FMA order
  static constexpr int BM = 128, BN = BN_, BK = BK_, STAGES = STAGES_, kThreads = 256, kMinBlocks = MIN_BLOCKS_;
  static constexpr int kUnroll = UNROLL_;  // k steps of a slice unrolled: the loop body's code size
  static constexpr int kGroupsM = 64 / (4 * kLanesM), kGroupsN = BN / 4 / (4 * kLanesN);
  static constexpr int TM = 4 * kGroupsM, TN = 4 * kGroupsN;
  static constexpr int kLdA = BM + 4;  // as[k][row]: 4-byte copies of 8 k x 4 rows per warp hit 32 banks
  static constexpr int kStageFloats = BK * kLdA + BK * BN;
  static constexpr int kSmemBytes = STAGES * kStageFloats * 4;
  static constexpr int kACopies = BM * BK / kThreads;       // 4-byte copies per thread and slice
  static constexpr int kARowStep = kThreads / BK;           // rows between a thread's copies
  static constexpr int kBCopies = BK * BN / 4 / kThreads;   // 16-byte copies per thread and slice
  static constexpr int kBRowStep = kThreads / (BN / 4);
  static_assert(kThreads % BK == 0 && BM % kARowStep == 0 && kThreads % (BN / 4) == 0 && BK % kBRowStep == 0);
};

template <class T>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks)
    pipelined_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                     int k) {
  constexpr int BM = T::BM, BN = T::BN, BK = T::BK, STAGES = T::STAGES, kLdA = T::kLdA;
  extern __shared__ float4 smem4[];
  float* const smem = reinterpret_cast<float*>(smem4);
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int a_kk = tid % BK, a_r = tid / BK;
  const int b_k = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
  const float* const a_src = a + static_cast<std::int64_t>(row0 + a_r) * k + a_kk;
  const float* const b_src = b + static_cast<std::int64_t>(b_k) * n + col0 + b_c;
  const auto load_slice = [&](int stage, int p0) {
    float* const as = smem + stage * T::kStageFloats;
    float* const bs = as + BK * kLdA;
#pragma unroll
    for (int j = 0; j < T::kACopies; ++j)
      cp_async4(&as[a_kk * kLdA + a_r + j * T::kARowStep],
                a_src + static_cast<std::int64_t>(j) * T::kARowStep * k + p0);
#pragma unroll
    for (int j = 0; j < T::kBCopies; ++j)
      cp_async16(&bs[(b_k + j * T::kBRowStep) * BN + b_c],
                 b_src + static_cast<std::int64_t>(p0 + j * T::kBRowStep) * n);
  };

  const int warp = tid / 32, lane = tid % 32;
  constexpr int TM = T::TM, TN = T::TN, kStepM = 4 * T::kLanesM, kStepN = 4 * T::kLanesN;
  const int a_off = (warp / 4) * 64 + (lane / T::kLanesN) * 4;        // + kStepM g: the lane's rows
  const int b_off = (warp % 4) * (BN / 4) + (lane % T::kLanesN) * 4;  // + kStepN g: the lane's columns
  float acc[TM][TN] = {};
  const int slices = k / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slices) load_slice(s, s * BK);
    cp_async_commit();
  }
  for (int s = 0; s < slices; ++s) {
    cp_async_wait<STAGES - 2>();  // slice s has landed (for this thread's copies)
    __syncthreads();              // ... and for everyone's; and everyone is done with slice s - 1
    const int next = s + STAGES - 1;
    if (next < slices) load_slice(next % STAGES, next * BK);
    cp_async_commit();
    const float* const as = smem + (s % STAGES) * T::kStageFloats;
    const float* const bs = as + BK * kLdA;
    if constexpr (!T::kPrefetch) {
#pragma unroll T::kUnroll
      for (int p = 0; p < BK; ++p) {
        float ra[TM], rb[TN];
#pragma unroll
        for (int g = 0; g < T::kGroupsM; ++g)
          *reinterpret_cast<float4*>(&ra[4 * g]) =
              *reinterpret_cast<const float4*>(&as[p * kLdA + a_off + kStepM * g]);
#pragma unroll
        for (int g = 0; g < T::kGroupsN; ++g)
          *reinterpret_cast<float4*>(&rb[4 * g]) =
              *reinterpret_cast<const float4*>(&bs[p * BN + b_off + kStepN * g]);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
      }
    } else {
      // Fragments in two register sets: step p + 1's are read from shared memory before step p's FMAs, and the FMAs
      // walk the tile in a zigzag (odd rows right to left) so consecutive FMAs share an operand register.
      float ra[2][TM], rb[2][TN];
      const auto fetch = [&](int p, int set) {
#pragma unroll
        for (int g = 0; g < T::kGroupsM; ++g)
          *reinterpret_cast<float4*>(&ra[set][4 * g]) =
              *reinterpret_cast<const float4*>(&as[p * kLdA + a_off + kStepM * g]);
#pragma unroll
        for (int g = 0; g < T::kGroupsN; ++g)
          *reinterpret_cast<float4*>(&rb[set][4 * g]) =
              *reinterpret_cast<const float4*>(&bs[p * BN + b_off + kStepN * g]);
      };
      fetch(0, 0);
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        if (p + 1 < BK) fetch(p + 1, (p + 1) & 1);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int jj = 0; jj < TN; ++jj) {
            const int j = T::kZigzag && (i & 1) ? TN - 1 - jj : jj;
            acc[i][j] = fmaf(ra[p & 1][i], rb[p & 1][j], acc[i][j]);
          }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    float* const out = c + static_cast<std::int64_t>(row0 + a_off + kStepM * (i / 4) + i % 4) * n + col0 + b_off;
#pragma unroll
    for (int g = 0; g < T::kGroupsN; ++g)
      *reinterpret_cast<float4*>(&out[kStepN * g]) =
          make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
  }
}

template <class T>
void launch(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  pipelined_kernel<T><<<dim3(n / T::BN, m / T::BM), T::kThreads, T::kSmemBytes, stream>>>(a, b, c, m, n, k);
}
}  // namespace pipelined

template <class T>
Variant pipelined_variant() {
  const std::string name = "pl_128x" + std::to_string(T::BN) + "x" + std::to_string(T::BK) + "_s" +
                           std::to_string(T::STAGES) + "_t" + std::to_string(T::TM) + "x" + std::to_string(T::TN) +
                           "_256t" +
                           std::to_string(T::kMinBlocks) + "b" +
                           (T::kUnroll < T::BK ? "_u" + std::to_string(T::kUnroll) : std::string()) +
                           (T::kPrefetch ? (T::kZigzag ? "_pfz" : "_pf") : "");
  char params[512];
  std::snprintf(params, sizeof params,
                "{\"kernel\": \"pipelined (cp.async)\", \"BM\": 128, \"BN\": %d, \"BK\": %d, \"WM\": 64, \"WN\": %d, "
                "\"TM\": %d, \"TN\": %d, \"lanes_m\": %d, \"threads\": 256, \"min_blocks_per_sm\": %d, "
                "\"smem_stages\": %d, \"unroll\": %d, \"prefetch\": %d, \"zigzag\": %d}",
                T::BN, T::BK, T::BN / 4, T::TM, T::TN, T::kLanesM, T::kMinBlocks, T::STAGES, T::kUnroll,
                T::kPrefetch ? 1 : 0, T::kZigzag ? 1 : 0);
  return {name, params, reinterpret_cast<const void*>(&pipelined::pipelined_kernel<T>), &pipelined::launch<T>,
          T::BM, T::BN, T::BK, T::kThreads, T::kSmemBytes};
}

std::vector<Variant> all_variants() {
  std::vector<Variant> v;
  v.push_back({"current",
               "{\"kernel\": \"register_blocked (solution.cu)\", \"BM\": 128, \"BN\": 128, \"BK\": 8, \"TM\": 8, "
               "\"TN\": 8, \"threads\": 256, \"min_blocks_per_sm\": 2, \"smem_stages\": 1}",
               reinterpret_cast<const void*>(&current::register_blocked_kernel), &launch_current, current::kBM,
               current::kBN, current::kBK, current::kThreads, 0});
  v.push_back(warptiled<W128x128x8_w64x32>(false));
  v.push_back(warptiled<W128x128x16_w64x32>(false));
  v.push_back(warptiled<W128x128x8_w32x64>(false));
  v.push_back(warptiled<W128x128x16_w32x64>(false));
  v.push_back(warptiled<W128x128x8_w64x32_q>(true));
  v.push_back(warptiled<W128x128x16_w64x32_q>(true));
  v.push_back(warptiled<W128x256x8_w64x64>(false));
  v.push_back(warptiled<W128x256x16_w64x64>(false));
  v.push_back(warptiled<W256x128x8_w64x64>(false));
  v.push_back(warptiled<W256x128x16_w64x64>(false));
  v.push_back(warptiled<W128x128x8_w64x64_128t>(false));
  v.push_back(warptiled<W128x128x16_w64x64_128t>(false));
  v.push_back(pipelined_variant<pipelined::Tile<256, 8, 3, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 8, 4, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 16, 3, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 16, 4, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 3, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 8, 4, 2>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 16, 3, 2>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 16, 4, 2>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 32, 3, 2>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 2, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 4, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 64, 2, 1>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 32, 2, 2>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 4, 1, 8>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 4, 1, 16>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 3, 1, 8>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 64, 2, 1, 8>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 64, 2, 1, 16>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 16, 4, 1, 8>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 3, 1, 32, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 4, 1, 32, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 16, 3, 1, 16, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 8, 3, 1, 8, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 32, 2, 2, 32, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<128, 16, 4, 2, 16, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 3, 1, 32, true, false>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 2, 1, 32, true, false>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 2, 1, 32, true, true>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 16, 4, 1, 16, true, false>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 3, 1, 32, true, true, 4>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 3, 1, 32, true, false, 4>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 16, 3, 1, 16, true, true, 4>>());
  v.push_back(pipelined_variant<pipelined::Tile<256, 32, 4, 1, 32, true, true, 4>>());
  return v;
}

// ---- inputs, checking ----------------------------------------------------------------------------------------
// Integers in [-8, 8] (as lab 05's inputs): every product and partial sum is an integer below 8 * 8 * 4096 = 2^18 <
// 2^24 in magnitude, so exact in FP32 whatever the summation order, and every correct kernel matches cuBLAS bit for bit.
std::vector<float> small_ints(std::size_t count, std::uint64_t seed) {
  std::vector<float> v(count);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& e : v) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    e = static_cast<float>(static_cast<int>((x >> 32) % 17) - 8);
  }
  return v;
}

__global__ void count_mismatches(const std::uint32_t* x, const std::uint32_t* y, std::size_t count,
                                 unsigned long long* mismatches) {
  unsigned local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += x[i] != y[i];
  if (local != 0) atomicAdd(mismatches, static_cast<unsigned long long>(local));
}

struct Stats {
  double median, min, max;
};
Stats stats_of(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  const double median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return {median, t.front(), t.back()};
}

std::string json_escape(const char* s) {
  std::string out;
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') out += '\\';
    out += *s;
  }
  return out;
}

int run(int argc, char** argv) {
  int rounds = 30, size = 4096, warmup = 3;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--rounds") && has_value)
      rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--size") && has_value)
      size = std::atoi(argv[++i]);
    else
      throw ExitError(2, std::string("usage: ") + argv[0] + " [--rounds N] [--size S]  (unknown: " + argv[i] + ")");
  }
  if (rounds < 1 || size < 256 || size % 256 != 0) throw ExitError(2, "rounds >= 1, size a positive multiple of 256");
  const int m = size, n = size, k = size;

  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  int runtime = 0, driver = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  std::fprintf(stderr, "%s, %d SMs, m = n = k = %d, %d rounds\n", prop.name, prop.multiProcessorCount, size, rounds);

  const Stream stream_owner;
  const cudaStream_t stream = stream_owner.get();

  DeviceBuffer<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  DeviceBuffer<float> c_ref(static_cast<std::size_t>(m) * n), c(static_cast<std::size_t>(m) * n);
  DeviceBuffer<unsigned long long> mismatches(1);
  // L2 flush: writing 256 MiB (over 4x the H200's 60 MiB L2) before every sample evicts A, B and C.
  DeviceBuffer<unsigned char> flush(std::size_t{256} << 20);
  const std::vector<float> ha = small_ints(a.size(), 1), hb = small_ints(b.size(), 2);
  CUDA_CHECK(cudaMemcpy(a.get(), ha.data(), a.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.get(), hb.data(), b.bytes(), cudaMemcpyHostToDevice));

  // cuBLAS is column-major: the row-major C = A * B is the column-major C^T = B^T * A^T, so B goes first, n and m
  // swap. Pedantic math: FP32 FMAs on CUDA cores, no TF32 or other reduced-precision path (lab 05's ceiling).
  const CublasHandle handle_owner;
  const cublasHandle_t handle = handle_owner.get();
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  const float alpha = 1.0f, beta = 0.0f;
  const auto run_cublas = [&](float* out) {
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.get(), n, a.get(), k, &beta, out, n));
  };

  // cuBLAS's result, spot-checked against a double-precision dot product on the host.
  run_cublas(c_ref.get());
  std::vector<float> hc(c_ref.size());
  CUDA_CHECK(cudaMemcpyAsync(hc.data(), c_ref.get(), c_ref.bytes(), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  int cublas_spot_errors = 0;
  for (int s = 0; s < 256; ++s) {
    const std::size_t i = (static_cast<std::size_t>(s) * 2654435761u) % hc.size();
    const std::size_t r = i / n, col = i % n;
    double sum = 0;
    for (int p = 0; p < k; ++p) sum += static_cast<double>(ha[r * k + p]) * hb[static_cast<std::size_t>(p) * n + col];
    cublas_spot_errors += sum != hc[i];
  }
  if (cublas_spot_errors != 0) std::fprintf(stderr, "cuBLAS differs from the host at %d of 256 spots\n", cublas_spot_errors);

  std::vector<Variant> variants = all_variants();
  struct Row {
    Variant v;
    cudaFuncAttributes attr;
    int blocks_per_sm;
    unsigned long long mismatches;
    std::vector<float> ms;
  };
  std::vector<Row> rows;
  for (auto& v : variants) {
    if (m % v.bm || n % v.bn || k % v.bk) {
      std::fprintf(stderr, "%s: skipped, the size is not a multiple of its tile\n", v.name.c_str());
      continue;
    }
    CUDA_CHECK(cudaFuncSetAttribute(v.func, cudaFuncAttributeMaxDynamicSharedMemorySize, v.dynamic_smem));
    Row row{v, {}, 0, 0, {}};
    CUDA_CHECK(cudaFuncGetAttributes(&row.attr, v.func));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&row.blocks_per_sm, v.func, v.threads, v.dynamic_smem));
    // Exactness: C starts as NaN (all bits set), so a kernel that skips a tile cannot pass.
    CUDA_CHECK(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream));
    v.launch(a.get(), b.get(), c.get(), m, n, k, stream);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemsetAsync(mismatches.get(), 0, sizeof(unsigned long long), stream));
    count_mismatches<<<1024, 256, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(c.get()),
                                               reinterpret_cast<const std::uint32_t*>(c_ref.get()), c.size(),
                                               mismatches.get());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&row.mismatches, mismatches.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::fprintf(stderr, "%-32s %3d regs, %5zu B local, %6d B smem, %d blocks/SM, %llu mismatches\n", v.name.c_str(),
                 row.attr.numRegs, row.attr.localSizeBytes, static_cast<int>(row.attr.sharedSizeBytes) + v.dynamic_smem,
                 row.blocks_per_sm, row.mismatches);
    rows.push_back(std::move(row));
  }

  // Timing: contender 0 is cuBLAS, then the variants. Every round runs each contender once, each sample preceded by
  // an L2 flush, in an order rotated by one per round, so clock and thermal drift fall on all contenders alike.
  const int contenders = static_cast<int>(rows.size()) + 1;
  const auto launch = [&](int i) {
    if (i == 0)
      run_cublas(c_ref.get());
    else
      rows[i - 1].v.launch(a.get(), b.get(), c.get(), m, n, k, stream);
    CUDA_CHECK_LAUNCH();
  };
  for (int w = 0; w < warmup; ++w)
    for (int i = 0; i < contenders; ++i) launch(i);
  std::vector<Event> start(contenders), stop(contenders);
  std::vector<float> cublas_ms;
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < contenders; ++j) {
      const int i = (j + r) % contenders;
      CUDA_CHECK(cudaMemsetAsync(flush.get(), r & 0xFF, flush.bytes(), stream));
      CUDA_CHECK(cudaEventRecord(start[i].get(), stream));
      launch(i);
      CUDA_CHECK(cudaEventRecord(stop[i].get(), stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < contenders; ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()));
      (i == 0 ? cublas_ms : rows[i - 1].ms).push_back(ms);
    }
  }

  const double flop = 2.0 * m * n * k;
  const Stats cb = stats_of(cublas_ms);
  std::fprintf(stderr, "%-32s %8.3f ms\n", "cublas", cb.median);
  std::printf("{\n  \"gpu\": \"%s\", \"sms\": %d, \"cuda_runtime\": %d, \"cuda_driver\": %d,\n", json_escape(prop.name).c_str(),
              prop.multiProcessorCount, runtime, driver);
  std::printf("  \"m\": %d, \"n\": %d, \"k\": %d, \"rounds\": %d, \"warmup\": %d, \"l2_flush_bytes\": %zu,\n", m, n, k,
              rounds, warmup, flush.bytes());
  std::printf("  \"cublas\": \"cublasSgemm, CUBLAS_PEDANTIC_MATH\", \"cublas_spot_errors\": %d,\n", cublas_spot_errors);
  std::printf("  \"cublas_ms\": %.4f, \"cublas_min_ms\": %.4f, \"cublas_max_ms\": %.4f, \"cublas_tflops\": %.2f,\n",
              cb.median, cb.min, cb.max, flop / cb.median * 1e-9);
  std::printf("  \"variants\": [");
  bool all_exact = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const Stats s = stats_of(row.ms);
    all_exact = all_exact && row.mismatches == 0;
    std::fprintf(stderr, "%-32s %8.3f ms  %5.1f%% of cuBLAS\n", row.v.name.c_str(), s.median, 100 * cb.median / s.median);
    std::printf(
        "%s\n    {\"name\": \"%s\", \"params\": %s,\n     \"ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
        "\"tflops\": %.2f, \"fraction_of_cublas\": %.4f,\n     \"exact\": %s, \"mismatches\": %llu, \"regs\": %d, "
        "\"local_bytes\": %zu, \"smem_bytes\": %d, \"blocks_per_sm\": %d}",
        i ? "," : "", row.v.name.c_str(), row.v.params.c_str(), s.median, s.min, s.max, flop / s.median * 1e-9,
        cb.median / s.median, row.mismatches == 0 ? "true" : "false", row.mismatches, row.attr.numRegs,
        row.attr.localSizeBytes, static_cast<int>(row.attr.sharedSizeBytes) + row.v.dynamic_smem, row.blocks_per_sm);
  }
  std::printf("\n  ]\n}\n");
  return all_exact && cublas_spot_errors == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const ExitError& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return e.code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
}
