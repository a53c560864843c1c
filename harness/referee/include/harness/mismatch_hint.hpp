#pragma once
/// @file mismatch_hint.hpp
/// @brief Targeted hints on a failed check: what the pattern of wrong elements says about the bug.
///
/// A failed check shows the first few wrong elements, which rarely tell a student *why*. The pattern over the whole
/// output usually does: only the tail past the last full block (a missing bounds path), every 32nd element (one lane
/// of each warp), one tile of a matrix, values copied from outside an array, NaN, an output shifted by one, nothing
/// written at all, or values that change between identical runs (a race). Each such class maps to one hint line that
/// points at the lab's sheet. Host code only, no CUDA: the lab binary downloads the output and calls these functions, and
/// tests/harness/mismatch_hint_test.cpp feeds them known patterns.
#include <harness/compare.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

/// The classes a mismatch can fall in; kNone when no class fits (random-looking errors get no specific hint).
enum class MismatchKind {
  kNone,
  kUntouched,      ///< every element still holds the poison the harness wrote before the run
  kAllZeros,       ///< every element is 0
  kGuardRead,      ///< some wrong elements hold a guard-zone word: values copied from outside an array
  kNaN,            ///< the wrong elements are NaN or Inf in no pattern of position (propagated NaN, or unwritten)
  kShifted,        ///< out[i] == ref[i + 1] or ref[i - 1] at the wrong elements
  kTail,           ///< only the elements past the last full block of B (B = 32 .. 1024) are wrong
  kStrided,        ///< the wrong elements are every k-th one (k >= 2)
  kEdgeTiles,      ///< 2-D: only the partial tiles at the bottom or right edge of the matrix are wrong
  kOneTile,        ///< 2-D: the wrong elements lie in one B x B tile
  kUnalignedShape, ///< across cases: only shapes with an extent that is not a multiple of 32 fail
  kRace,           ///< two identical runs gave different outputs
};

/// "tail", "strided", ...: the name carried in messages and tests.
std::string_view to_string(MismatchKind kind);

/// A classified mismatch: its kind and one sentence saying what it suggests (empty for kNone).
struct MismatchHint {
  MismatchKind kind = MismatchKind::kNone;  ///< the pattern found, or kNone
  std::string text;  ///< "only the last 7 elements (past the last full block of 256) are wrong: ..."
  /// True when the hint is specific (any kind but kNone).
  [[nodiscard]] bool specific() const { return kind != MismatchKind::kNone; }
};

/// Classifies the wrong elements of one output. `got` holds what the kernel left (n elements), `expected` the CPU
/// reference and `tol` the output's tolerance (the comparison routine of compare.hpp decides which elements are
/// wrong). `dims` are the problem's extents: when the first two (both above 1) multiply to n, the output is also looked
/// at as a rows x cols matrix (and as its transpose) for tile patterns. The fill words are the harness's (problem.cpp):
/// the poison 0x7FFFFFFF (NaN as float, INT_MAX as int32), which GPU arithmetic also returns for any NaN result, so
/// an unwritten element and a computed NaN look alike; and the guard words, which no arithmetic makes.
template <class T>
MismatchHint classify_mismatch(const T* got, const double* expected, std::size_t n, const Tolerance& tol,
                               const std::vector<std::int64_t>& dims);

/// Classifies two runs of the same case on the same inputs: kRace when an element is wrong in one run and right in
/// the other, or wrong in both by amounts that differ by more than its tolerance. Elements right in both runs, and
/// wrong ones that differ only by rounding (atomics reorder a float sum), say nothing about a race. kNone otherwise.
template <class T>
MismatchHint classify_reruns(const T* first, const T* second, const double* expected, std::size_t n,
                             const Tolerance& tol);

/// One checked case of an exercise: its extents and whether it passed.
struct ShapeOutcome {
  std::vector<std::int64_t> dims;  ///< the case's extents
  bool ok = false;                 ///< whether the case passed
};

/// Across the cases of one exercise checked so far: kUnalignedShape when every failed case has an extent that is not
/// a multiple of 32 and some case whose every extent is a multiple of 32 passed. kNone otherwise.
MismatchHint classify_shapes(const std::vector<ShapeOutcome>& cases);

/// The line printed with a failure and carried in the check results: "hint: <text> (see
/// labs/<lab_id>/README.md#hints)". Empty for kNone.
std::string hint_line(const MismatchHint& hint, std::string_view lab_id);

/// @cond INTERNAL
extern template MismatchHint classify_mismatch<float>(const float*, const double*, std::size_t, const Tolerance&,
                                                      const std::vector<std::int64_t>&);
extern template MismatchHint classify_mismatch<std::int32_t>(const std::int32_t*, const double*, std::size_t,
                                                             const Tolerance&, const std::vector<std::int64_t>&);
extern template MismatchHint classify_reruns<float>(const float*, const float*, const double*, std::size_t,
                                                    const Tolerance&);
extern template MismatchHint classify_reruns<std::int32_t>(const std::int32_t*, const std::int32_t*, const double*,
                                                           std::size_t, const Tolerance&);
/// @endcond

}  // namespace harness
