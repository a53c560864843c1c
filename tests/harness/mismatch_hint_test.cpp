// The mismatch classifier (harness/mismatch_hint.hpp) on outputs made wrong in known ways: each class must be named
// for its own pattern, and wrong elements scattered at random must get no specific hint (a wrong hint sends a
// student after the wrong bug). CPU only.
#include <harness/mismatch_hint.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using harness::classify_mismatch;
using harness::classify_reruns;
using harness::classify_shapes;
using harness::MismatchKind;
using harness::Tolerance;
using Catch::Matchers::ContainsSubstring;

namespace {

// An output of n small integers with its reference: the kernel's answer when right.
struct Case {
  std::vector<double> expected;
  std::vector<float> got;
  explicit Case(std::size_t n) : expected(n), got(n) {
    for (std::size_t i = 0; i < n; ++i) expected[i] = got[i] = static_cast<float>(1 + i % 13);
  }
  MismatchKind kind(std::vector<std::int64_t> dims = {}) const {
    if (dims.empty()) dims = {static_cast<std::int64_t>(got.size())};
    return classify_mismatch(got.data(), expected.data(), got.size(), Tolerance::exact(), dims).kind;
  }
};

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
float poison() { return from_bits(0x7FFFFFFFu); }  // what the harness writes before a run (problem.cpp)
float input_guard() { return from_bits(0x7FC1A5A5u); }  // what lies just outside an input array

}  // namespace

TEST_CASE("a right output gets no hint", "[harness][hint]") {
  const Case c(1000);
  const auto hint = classify_mismatch(c.got.data(), c.expected.data(), 1000, Tolerance::exact(), {1000});
  CHECK(hint.kind == MismatchKind::kNone);
  CHECK(hint.text.empty());
  CHECK(harness::hint_line(hint, "01_coalescing").empty());
}

TEST_CASE("wrong elements scattered at random get no specific hint", "[harness][hint]") {
  std::mt19937 rng(12345);
  for (const std::vector<std::int64_t>& dims : {std::vector<std::int64_t>{1000}, {40, 25}, {4099}}) {
    const auto n = static_cast<std::size_t>(dims.size() == 1 ? dims[0] : dims[0] * dims[1]);
    for (int trial = 0; trial < 20; ++trial) {
      Case c(n);
      std::uniform_int_distribution<std::size_t> at(0, n - 1);
      std::uniform_real_distribution<float> value(-100, 100);
      for (int k = 0; k < 40; ++k) c.got[at(rng)] = value(rng);
      CAPTURE(n, trial);
      CHECK(c.kind(dims) == MismatchKind::kNone);
    }
  }
}

TEST_CASE("an output that still holds the poison everywhere is untouched", "[harness][hint]") {
  Case c(100);
  std::fill(c.got.begin(), c.got.end(), poison());
  CHECK(c.kind() == MismatchKind::kUntouched);

  SECTION("int32 outputs are poisoned with INT_MAX") {
    std::vector<std::int32_t> got(50, std::numeric_limits<std::int32_t>::max());
    std::vector<double> expected(50, 7.0);
    CHECK(classify_mismatch(got.data(), expected.data(), 50, Tolerance::exact(), {50}).kind ==
          MismatchKind::kUntouched);
  }
}

TEST_CASE("an output of zeros everywhere is named as such", "[harness][hint]") {
  Case c(100);
  std::fill(c.got.begin(), c.got.end(), 0.0f);
  CHECK(c.kind() == MismatchKind::kAllZeros);
}

TEST_CASE("NaN in no pattern of position is named as NaN", "[harness][hint]") {
  Case c(1000);
  for (std::size_t i : {3u, 400u, 999u}) c.got[i] = std::numeric_limits<float>::quiet_NaN();
  CHECK(c.kind() == MismatchKind::kNaN);
  c.got[500] = std::numeric_limits<float>::infinity();
  c.got[600] = poison();  // the canonical NaN GPU arithmetic returns is also the poison word
  CHECK(c.kind() == MismatchKind::kNaN);
  c.got[700] = 5;  // a wrong number among them: no longer a NaN problem alone
  CHECK(c.kind() != MismatchKind::kNaN);
}

TEST_CASE("values copied from the guard zones are reads past the end of an array", "[harness][hint]") {
  Case c(1000);
  c.got[999] = input_guard();  // y[i] = x[i + 1] at the last element
  const auto hint = classify_mismatch(c.got.data(), c.expected.data(), 1000, Tolerance::exact(), {1000});
  CHECK(hint.kind == MismatchKind::kGuardRead);
  CHECK_THAT(hint.text, ContainsSubstring("past the end"));
}

TEST_CASE("an output shifted by one element is found in either direction", "[harness][hint]") {
  Case c(256);
  double sum = 0;
  for (std::size_t i = 0; i < 256; ++i) c.expected[i] = sum += static_cast<double>(1 + i % 5);  // an inclusive scan
  SECTION("exclusive where inclusive was asked: out[i] == ref[i - 1]") {
    c.got[0] = 0;
    for (std::size_t i = 1; i < 256; ++i) c.got[i] = static_cast<float>(c.expected[i - 1]);
    const auto hint = classify_mismatch(c.got.data(), c.expected.data(), 256, Tolerance::exact(), {256});
    CHECK(hint.kind == MismatchKind::kShifted);
    CHECK_THAT(hint.text, ContainsSubstring("i - 1"));
  }
  SECTION("one too far: out[i] == ref[i + 1]") {
    for (std::size_t i = 0; i + 1 < 256; ++i) c.got[i] = static_cast<float>(c.expected[i + 1]);
    c.got[255] = poison();
    CHECK(c.kind() == MismatchKind::kShifted);
  }
}

TEST_CASE("wrong elements only past the last full block name that block size", "[harness][hint]") {
  SECTION("blocks of 256, n = 1000") {
    Case c(1000);
    for (std::size_t i = 768; i < 1000; ++i) c.got[i] = poison();
    const auto hint = classify_mismatch(c.got.data(), c.expected.data(), 1000, Tolerance::exact(), {1000});
    CHECK(hint.kind == MismatchKind::kTail);
    CHECK_THAT(hint.text, ContainsSubstring("block of 256"));
    CHECK_THAT(hint.text, ContainsSubstring("[768]"));
  }
  SECTION("one element past a warp, n = 33") {
    Case c(33);
    c.got[32] = 0;
    CHECK(c.kind() == MismatchKind::kTail);
  }
  SECTION("a size below one block has no tail to blame") {
    Case c(31);
    c.got[30] = 0;
    CHECK(c.kind() != MismatchKind::kTail);
  }
}

TEST_CASE("every k-th element wrong is a stride of k", "[harness][hint]") {
  for (std::size_t k : {32u, 4u, 96u}) {
    Case c(4096);
    for (std::size_t i = 5 % k; i < 4096; i += k) c.got[i] = -3;
    const auto hint = classify_mismatch(c.got.data(), c.expected.data(), 4096, Tolerance::exact(), {4096});
    CAPTURE(k);
    CHECK(hint.kind == MismatchKind::kStrided);
    CHECK_THAT(hint.text, ContainsSubstring("one in every " + std::to_string(k) + " "));
  }
}

TEST_CASE("a matrix wrong only in its partial edge tiles is named as such, in either layout", "[harness][hint]") {
  const std::int64_t rows = 100, cols = 70;  // tiles of 32: full rows below 96, full columns below 64
  SECTION("stored rows x cols") {
    Case c(rows * cols);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t col = 0; col < cols; ++col)
        if (r >= 96 || col >= 64) c.got[r * cols + col] = poison();
    CHECK(c.kind({rows, cols}) == MismatchKind::kEdgeTiles);
  }
  SECTION("stored as the transpose (cols x rows), as a transpose's output is") {
    Case c(rows * cols);
    for (std::int64_t r = 0; r < cols; ++r)
      for (std::int64_t col = 0; col < rows; ++col)
        if (col >= 96) c.got[r * rows + col] = 0;
    CHECK(c.kind({rows, cols}) == MismatchKind::kEdgeTiles);
  }
}

TEST_CASE("wrong elements inside one tile of a matrix point at one block", "[harness][hint]") {
  Case c(128 * 128);
  for (int r = 32; r < 64; ++r)
    for (int col = 64; col < 96; col += 3) c.got[r * 128 + col] = -1;
  const auto hint = classify_mismatch(c.got.data(), c.expected.data(), c.got.size(), Tolerance::exact(), {128, 128});
  CHECK(hint.kind == MismatchKind::kOneTile);
  CHECK_THAT(hint.text, ContainsSubstring("32 x 32 tile"));
  CHECK_THAT(hint.text, ContainsSubstring("tile row 1, tile column 2"));
}

TEST_CASE("failures only at shapes that are not multiples of 32 are found across cases", "[harness][hint]") {
  using harness::ShapeOutcome;
  std::vector<ShapeOutcome> cases{{{1}, false}, {{32}, true}, {{33}, false}, {{1024, 64}, true}, {{1024, 33}, false}};
  CHECK(classify_shapes(cases).kind == MismatchKind::kUnalignedShape);
  SECTION("not when a multiple of 32 fails too") {
    cases.push_back({{64}, false});
    CHECK(classify_shapes(cases).kind == MismatchKind::kNone);
  }
  SECTION("not before any multiple of 32 has passed") {
    CHECK(classify_shapes({{{1}, false}, {{31}, false}}).kind == MismatchKind::kNone);
  }
  SECTION("not when nothing failed") {
    CHECK(classify_shapes({{{32}, true}, {{33}, true}}).kind == MismatchKind::kNone);
  }
}

TEST_CASE("two identical runs that differ where they are wrong are a race", "[harness][hint]") {
  Case a(512), b(512);
  a.got[100] = 7;
  b.got[100] = 7;
  CHECK(classify_reruns(a.got.data(), b.got.data(), a.expected.data(), 512, Tolerance::exact()).kind ==
        MismatchKind::kNone);  // wrong, but the same way twice: deterministic
  b.got[300] = 9;
  const auto hint = classify_reruns(a.got.data(), b.got.data(), a.expected.data(), 512, Tolerance::exact());
  CHECK(hint.kind == MismatchKind::kRace);
  CHECK_THAT(hint.text, ContainsSubstring("[300]"));

  SECTION("rounding differences where both runs are right are no race") {
    Case x(4), y(4);
    y.got[1] += 1e-6f;
    const Tolerance loose{{1e-3}, 0.0};
    CHECK(classify_reruns(x.got.data(), y.got.data(), x.expected.data(), 4, loose).kind == MismatchKind::kNone);
  }
}

TEST_CASE("a race is found among elements wrong in one run or both, in any chunk of a large output", "[harness][hint]") {
  // Every element wrong in both runs, the same way (a deterministic bug over the whole output): no race, and one
  // pass over 2^17 elements, not a comparison per element.
  const std::size_t n = std::size_t{1} << 17;
  Case a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a.got[i] = b.got[i] = 0;
  CHECK(classify_reruns(a.got.data(), b.got.data(), a.expected.data(), n, Tolerance::exact()).kind ==
        MismatchKind::kNone);
  SECTION("wrong in both, differently, past the first chunk") {
    b.got[70001] = 5;
    const auto hint = classify_reruns(a.got.data(), b.got.data(), a.expected.data(), n, Tolerance::exact());
    CHECK(hint.kind == MismatchKind::kRace);
    CHECK_THAT(hint.text, ContainsSubstring("[70001]"));
  }
  SECTION("right in the first run, wrong in the second, interleaved with elements wrong in both") {
    for (std::size_t i = 0; i < n; i += 2) a.got[i] = b.got[i] = static_cast<float>(a.expected[i]);
    b.got[99998] = 0;  // even: right in the first run only
    const auto hint = classify_reruns(a.got.data(), b.got.data(), a.expected.data(), n, Tolerance::exact());
    CHECK(hint.kind == MismatchKind::kRace);
    CHECK_THAT(hint.text, ContainsSubstring("[99998]"));
  }
  SECTION("wrong in both by rounding only, with a tolerance per element: the same bug twice") {
    std::vector<double> atol(n, 1e-3);
    for (std::size_t i = 0; i < n; ++i) b.got[i] = 1e-4f;
    CHECK(classify_reruns(a.got.data(), b.got.data(), a.expected.data(), n, Tolerance{atol, 0.0}).kind ==
          MismatchKind::kNone);
  }
}

TEST_CASE("the hint line points at the lab's sheet", "[harness][hint]") {
  Case c(100);
  std::fill(c.got.begin(), c.got.end(), 0.0f);
  const auto hint = classify_mismatch(c.got.data(), c.expected.data(), 100, Tolerance::exact(), {100});
  const auto line = harness::hint_line(hint, "01_coalescing");
  CHECK_THAT(line, ContainsSubstring("hint: every element is 0"));
  CHECK_THAT(line, ContainsSubstring("labs/01_coalescing/README.md#hints"));
  CHECK(harness::to_string(hint.kind) == "all-zeros");
}

TEST_CASE("two wrong runs that differ only by rounding are the same bug, not a race", "[harness][hint]") {
  Case a(8), b(8);
  const Tolerance tol{{1e-3}, 0.0};
  a.got[3] = 100.0f;   // wrong in both runs (a dropped term, say), summed in another order the second time
  b.got[3] = 100.0001f;
  CHECK(classify_reruns(a.got.data(), b.got.data(), a.expected.data(), 8, tol).kind == MismatchKind::kNone);
  b.got[3] = 120.0f;  // the same element wrong by a different amount: the runs disagree
  CHECK(classify_reruns(a.got.data(), b.got.data(), a.expected.data(), 8, tol).kind == MismatchKind::kRace);
  b.got[3] = static_cast<float>(b.expected[3]);  // right in one run, wrong in the other
  CHECK(classify_reruns(a.got.data(), b.got.data(), a.expected.data(), 8, tol).kind == MismatchKind::kRace);
}

TEST_CASE("a shape with an extent of 1 is a vector, not a matrix of tiles", "[harness][hint]") {
  Case c(4099);  // {4099, 1, 3}: lab 3's warp sums with blocks of one thread
  for (std::size_t i = 4096; i < 4099; ++i) c.got[i] = poison();
  CHECK(c.kind({4099, 1, 3}) == MismatchKind::kTail);
}
