// Classifies the pattern of wrong elements of a failed check (mismatch_hint.hpp). One pass over the output in
// chunks through the course's one comparison routine, keeping a few running facts about the wrong elements (first,
// last, the gcd of their distances, which tiles hold them, how many a shift explains) rather than their list: a
// 4096 x 4096 output that is wrong everywhere must not cost hundreds of megabytes to describe.
#include <harness/mismatch_hint.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include <sstream>

namespace harness {
namespace {

constexpr std::array<std::size_t, 6> kBlockSizes{32, 64, 128, 256, 512, 1024};  // tails: common block sizes
constexpr std::array<std::int64_t, 4> kTileSizes{8, 16, 32, 64};                 // 2-D tiles
constexpr std::size_t kChunk = 1 << 16;  // elements compared at a time: bounds the memory of the mismatch list
constexpr double kShiftShare = 0.75;     // share of wrong elements a shift must explain (segment starts may not)

// "{}" placeholders filled in order, as fmt::format would (the harness does not link fmt).
template <class... Args>
std::string format(std::string_view pattern, const Args&... args) {
  std::ostringstream os;
  const auto one = [&](const auto& arg) {
    const auto at = pattern.find("{}");
    os << pattern.substr(0, at) << arg;
    pattern.remove_prefix(at + 2);
  };
  (one(args), ...);
  os << pattern;
  return os.str();
}

// The harness's fill words (problem.cpp, kept equal to its kPoisonWord and guard words): outputs hold 0x7FFFFFFF
// (NaN as a float, INT_MAX as an int32) until the kernel writes them; the guard zones around inputs, outputs and scratch
// hold NaNs with payloads no GPU arithmetic makes, so one of those in an output was copied from outside an array.
constexpr std::uint32_t kPoisonWord = 0x7FFFFFFFu;
constexpr std::uint32_t kInputGuardWord = 0x7FC1A5A5u;
constexpr std::uint32_t kOutputGuardWord = 0x7FC2A5A5u;
constexpr std::uint32_t kScratchGuardWord = 0x7FC3A5A5u;

template <class T>
std::uint32_t bits_of(T v) {
  static_assert(sizeof(T) == sizeof(std::uint32_t));
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

template <class T>
bool is_poison(T v) {
  return bits_of(v) == kPoisonWord;
}

template <class T>
bool is_guard(T v) {
  return std::is_same_v<T, float> &&
         (bits_of(v) == kInputGuardWord || bits_of(v) == kOutputGuardWord || bits_of(v) == kScratchGuardWord);
}

bool within(double got, double want, double atol, double rtol) {
  return std::isfinite(got) && std::isfinite(want) && std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// A rows x cols view of the output, with, per tile size, what the wrong elements so far have in common.
struct Layout {
  std::int64_t rows = 0, cols = 0;
  std::array<bool, kTileSizes.size()> edge_only{};   // every wrong element in the partial bottom or right tiles
  std::array<bool, kTileSizes.size()> one_tile{};    // every wrong element in the first one's tile
  std::array<std::int64_t, kTileSizes.size()> tile{};  // that tile, as row_tile * cols + col_tile
};

// Running facts about the wrong elements, fed in index order.
struct Facts {
  std::size_t count = 0, first = 0, last = 0, gcd = 0;
  std::size_t nonfinite = 0;             // NaN or Inf (the poison is a NaN too: a kernel's NaN may be the same word)
  std::size_t guards = 0;                // guard words: values read from outside an array
  std::size_t shift_next = 0, shift_prev = 0;  // explained by ref[i + 1], by ref[i - 1]
  std::vector<Layout> layouts;

  void add(std::size_t i, std::size_t n, double got, bool guard, const double* expected, double atol, double rtol) {
    if (count == 0) first = i;
    gcd = std::gcd(gcd, i - first);
    last = i;
    ++count;
    if (!std::isfinite(got)) ++nonfinite;
    if (guard) ++guards;
    if (i + 1 < n && within(got, expected[i + 1], atol, rtol)) ++shift_next;
    if (i > 0 && within(got, expected[i - 1], atol, rtol)) ++shift_prev;
    for (auto& l : layouts) {
      const auto r = static_cast<std::int64_t>(i) / l.cols, c = static_cast<std::int64_t>(i) % l.cols;
      for (std::size_t t = 0; t < kTileSizes.size(); ++t) {
        const std::int64_t b = kTileSizes[t];
        l.edge_only[t] = l.edge_only[t] && (r >= l.rows / b * b || c >= l.cols / b * b);
        const std::int64_t tile = (r / b) * l.cols + c / b;
        if (count == 1) l.tile[t] = tile;
        l.one_tile[t] = l.one_tile[t] && tile == l.tile[t];
      }
    }
  }
};

std::vector<Layout> layouts_of(const std::vector<std::int64_t>& dims, std::size_t n) {
  std::vector<Layout> out;
  // A matrix with an extent of 1 is a vector: its "tiles" would be stretches of it, which the 1-D classes name better.
  if (dims.size() < 2 || dims[0] < 2 || dims[1] < 2 || static_cast<std::size_t>(dims[0] * dims[1]) != n) return out;
  for (auto [r, c] : {std::pair{dims[0], dims[1]}, std::pair{dims[1], dims[0]}}) {  // and the transpose's
    if (!out.empty() && out.front().rows == r) break;
    Layout l;
    l.rows = r;
    l.cols = c;
    l.edge_only.fill(true);
    l.one_tile.fill(true);
    out.push_back(l);
  }
  return out;
}

// The 2-D classes, smallest tile first (the tightest fit names the kernel's tile best).
MismatchHint tile_hint(const Facts& f) {
  for (const auto& l : f.layouts)
    for (std::size_t t = 0; t < kTileSizes.size(); ++t) {
      const std::int64_t b = kTileSizes[t];
      const bool partial = l.rows % b != 0 || l.cols % b != 0, has_full = l.rows >= b && l.cols >= b;
      if (l.edge_only[t] && partial && has_full)
        return {MismatchKind::kEdgeTiles,
                format("only the partial tiles at the edges of the {} x {} matrix are wrong (rows from {} or "
                            "columns from {}, with {} x {} tiles): the loads and stores of a tile that sticks out of "
                            "the matrix need bounds checks, and the out-of-range part must count as zero",
                            l.rows, l.cols, l.rows / b * b, l.cols / b * b, b, b)};
    }
  if (f.count < 2) return {};
  for (const auto& l : f.layouts)
    for (std::size_t t = 0; t < kTileSizes.size(); ++t) {
      const std::int64_t b = kTileSizes[t];
      if (l.one_tile[t] && (l.rows > b || l.cols > b))
        return {MismatchKind::kOneTile,
                format("the wrong elements all lie in one {} x {} tile of the {} x {} matrix (tile row {}, tile "
                            "column {}): one block computed its tile wrong, so look at what differs for it (its "
                            "index arithmetic, or a race that shows in one block)",
                            b, b, l.rows, l.cols, l.tile[t] / l.cols, l.tile[t] % l.cols)};
    }
  return {};
}

}  // namespace

std::string_view to_string(MismatchKind kind) {
  switch (kind) {
    case MismatchKind::kNone: return "none";
    case MismatchKind::kUntouched: return "untouched";
    case MismatchKind::kAllZeros: return "all-zeros";
    case MismatchKind::kNaN: return "nan";
    case MismatchKind::kGuardRead: return "guard-read";
    case MismatchKind::kShifted: return "shifted";
    case MismatchKind::kTail: return "tail";
    case MismatchKind::kStrided: return "strided";
    case MismatchKind::kEdgeTiles: return "edge-tiles";
    case MismatchKind::kOneTile: return "one-tile";
    case MismatchKind::kUnalignedShape: return "unaligned-shape";
    case MismatchKind::kRace: return "race";
  }
  return "?";
}

template <class T>
MismatchHint classify_mismatch(const T* got, const double* expected, std::size_t n, const Tolerance& tol,
                               const std::vector<std::int64_t>& dims) {
  Facts f;
  f.layouts = layouts_of(dims, n);
  bool all_poison = n > 0, all_zero = n > 0;
  for (std::size_t off = 0; off < n; off += kChunk) {
    const std::size_t len = std::min(kChunk, n - off);
    Tolerance part = tol;
    if (tol.atol.size() > 1) part.atol.assign(tol.atol.begin() + off, tol.atol.begin() + off + len);
    for (std::size_t i = off; i < off + len; ++i) {
      all_poison = all_poison && is_poison(got[i]);
      all_zero = all_zero && got[i] == T(0);
    }
    for (const auto& m : compare(got + off, expected + off, len, part, len).first) {
      const std::size_t i = off + m.index;
      f.add(i, n, m.got, is_guard(got[i]), expected, tol.atol_at(i), tol.rtol);
    }
  }
  if (f.count == 0) return {};
  if (all_poison)
    return {MismatchKind::kUntouched,
            "nothing was written: every element still holds the poison the harness writes before each run (does the "
            "launcher launch the kernel on the stream it is given, with a grid that is not empty, writing the output "
            "pointer it was handed?)"};
  if (all_zero)
    return {MismatchKind::kAllZeros,
            "every element is 0: the kernel stored zeros (an accumulator never added to, a result stored before it "
            "was computed, or a grid too small to reach the work)"};
  if (f.guards > 0)
    return {MismatchKind::kGuardRead,
            format("{} wrong element(s) hold the pattern of the harness's guard zones, which lie just outside every "
                   "array: the kernel copied values from past the end (or before the start) of an array; check "
                   "the index of every load against its array's length",
                   f.guards)};
  const std::size_t shifted = std::max(f.shift_next, f.shift_prev);
  if (f.count >= 2 && shifted >= 2 && static_cast<double>(shifted) >= kShiftShare * static_cast<double>(f.count))
    return {MismatchKind::kShifted,
            format("the output is shifted by one element: out[i] holds the expected value of [{}] (an "
                        "off-by-one in the index, or an inclusive scan where an exclusive one is asked, or the "
                        "reverse)",
                        f.shift_next >= f.shift_prev ? "i + 1" : "i - 1")};
  if (auto tiles = tile_hint(f); tiles.specific()) return tiles;
  for (const std::size_t b : kBlockSizes) {
    const std::size_t full = n / b * b;
    if (n % b != 0 && full >= b && f.first >= full)
      return {MismatchKind::kTail,
              format("only elements past the last full block of {} are wrong (from [{}] of {}): the remainder, "
                          "a grid rounded up without `if (i < n)`, or the tail after vector loads, is missing or wrong",
                          b, full, n)};
  }
  if (f.count >= 3 && f.gcd >= 2 &&
      2 * f.count >= (f.last - f.first) / f.gcd + 1)  // most of the k-th elements between first and last are wrong
    return {MismatchKind::kStrided,
            format("the wrong elements are one in every {} (indices {} mod {}): {}", f.gcd, f.first % f.gcd, f.gcd,
                        f.gcd == 32 ? "one lane of every warp goes wrong (a shuffle's source lane or width, or "
                                      "lane 0's special case)"
                                    : "one thread of each group of that many goes wrong (a stride, a vector width or "
                                      "a row length in the index arithmetic)")};
  if (f.nonfinite == f.count)
    return {MismatchKind::kNaN,
            format("the {} wrong element(s) are NaN or Inf, in no pattern of position: a NaN spreads through every sum "
                   "it enters, so look for a read of memory nobody wrote (an output or scratch read before it is "
                   "written, shared memory read before the barrier), or an element the kernel never stores",
                   f.count)};
  return {};
}

template <class T>
MismatchHint classify_reruns(const T* first, const T* second, const double* expected, std::size_t n,
                             const Tolerance& tol) {
  for (std::size_t off = 0; off < n; off += kChunk) {
    const std::size_t len = std::min(kChunk, n - off);
    Tolerance part = tol;
    if (tol.atol.size() > 1) part.atol.assign(tol.atol.begin() + off, tol.atol.begin() + off + len);
    // The wrong elements of each run, in index order, walked together: where either run is wrong, runs that differ
    // bit for bit are a race, unless both are wrong and differ by rounding (two wrong float sums whose atomics added
    // in another order: the same bug twice). One pass per run: no comparison per element.
    const auto wrong_a = compare(first + off, expected + off, len, part, len).first;
    const auto wrong_b = compare(second + off, expected + off, len, part, len).first;
    for (std::size_t ia = 0, ib = 0; ia < wrong_a.size() || ib < wrong_b.size();) {
      const std::size_t next_a = ia < wrong_a.size() ? wrong_a[ia].index : len;
      const std::size_t next_b = ib < wrong_b.size() ? wrong_b[ib].index : len;
      const std::size_t k = std::min(next_a, next_b);
      const bool both_wrong = next_a == k && next_b == k;
      ia += next_a == k;
      ib += next_b == k;
      const std::size_t i = off + k;
      const double a = static_cast<double>(first[i]), b = static_cast<double>(second[i]);
      const bool rounding = both_wrong && within(a, b, tol.atol_at(i), tol.rtol);
      if (std::memcmp(first + i, second + i, sizeof(T)) != 0 && !rounding)
        return {MismatchKind::kRace,
                format("two identical runs on the same inputs gave different results (first at [{}]): a race, "
                       "such as a missing __syncthreads() between writing shared memory and reading it, or "
                       "threads writing the same element without an atomic",
                       i)};
    }
  }
  return {};
}

MismatchHint classify_shapes(const std::vector<ShapeOutcome>& cases) {
  const auto aligned = [](const ShapeOutcome& c) {
    return std::all_of(c.dims.begin(), c.dims.end(), [](std::int64_t d) { return d % 32 == 0; });
  };
  bool aligned_passed = false, any_failed = false;
  for (const auto& c : cases) {
    if (c.ok) aligned_passed = aligned_passed || aligned(c);
    if (!c.ok && aligned(c)) return {};
    any_failed = any_failed || !c.ok;
  }
  if (!any_failed || !aligned_passed) return {};
  return {MismatchKind::kUnalignedShape,
          "only shapes with an extent that is not a multiple of 32 fail: the kernel assumes whole warps or blocks; "
          "the last, partial one needs its own bounds checks (and partial warps a shuffle mask or width that fits)"};
}

std::string hint_line(const MismatchHint& hint, std::string_view lab_id) {
  if (!hint.specific()) return "";
  const auto where = lab_id.empty() ? std::string("the lab's README.md, section Hints")
                                    : format("labs/{}/README.md#hints", lab_id);
  return format("hint: {} (see {})", hint.text, where);
}

template MismatchHint classify_mismatch<float>(const float*, const double*, std::size_t, const Tolerance&,
                                               const std::vector<std::int64_t>&);
template MismatchHint classify_mismatch<std::int32_t>(const std::int32_t*, const double*, std::size_t,
                                                      const Tolerance&, const std::vector<std::int64_t>&);
template MismatchHint classify_reruns<float>(const float*, const float*, const double*, std::size_t,
                                             const Tolerance&);
template MismatchHint classify_reruns<std::int32_t>(const std::int32_t*, const std::int32_t*, const double*,
                                                    std::size_t, const Tolerance&);

}  // namespace harness
