// Buffers in host memory shared between the lab binary and a runner (harness::Memory::host): guard zones, poison,
// the checks, and a runner's mapping of the referee's memory through a descriptor. All on the CPU: in host-only mode
// (harness::set_host_only) host buffers get their shared memory without page-locking it, which needs a GPU.
#include <harness/problem.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

namespace {

using Catch::Matchers::ContainsSubstring;
using harness::Memory;

struct HostOnly {
  HostOnly() { harness::set_host_only(true); }
  ~HostOnly() { harness::set_host_only(false); }
};

/// out = 2 * in, both arrays in shared host memory, with device-memory scratch left out (it would need a GPU).
struct Doubling final : harness::Problem {
  explicit Doubling(std::int64_t n)
      : Problem(harness::Shape{n}), in(*this, "h_in", n, Memory::host), out(*this, "h_out", n, Memory::host) {}
  void generate(std::uint64_t seed) override {
    std::vector<float> x(static_cast<std::size_t>(shape()[0]));
    std::iota(x.begin(), x.end(), static_cast<float>(seed));
    in.set(x);
    std::vector<double> y(x.begin(), x.end());
    for (double& v : y) v *= 2;
    out.expect(y, harness::Tolerance::exact());
  }
  void run(const harness::Impl& /*impl*/, cudaStream_t /*stream*/) override {}
  [[nodiscard]] harness::Work work() const override { return {}; }
  /// What a right launcher leaves in `out` (through whichever mapping `into` is).
  void write_right_answer(float* into) const {
    for (std::size_t i = 0; i < in.host().size(); ++i) into[i] = 2 * in.host()[i];
  }
  harness::Input<float> in;
  harness::Output<float> out;
};

/// The runner's side of `referee`: the same problem, its buffers mapped from the referee's descriptors.
std::unique_ptr<Doubling> runner_side(const Doubling& referee) {
  harness::map_next_buffers({{"", ::dup(referee.in.shared_fd())}, {"", ::dup(referee.out.shared_fd())}});
  auto p = std::make_unique<Doubling>(referee.shape()[0]);
  REQUIRE(harness::buffers_left_to_map() == 0);
  return p;
}

}  // namespace

TEST_CASE("a host output is poisoned before a run, checked after it, and its guard zones catch writes past either end",
          "[harness][host_buffer]") {
  HostOnly host_only;
  for (const std::int64_t n : {1, 31, 1025, 1 << 20}) {
    CAPTURE(n);
    Doubling p(n);
    p.generate(3);
    p.poison(nullptr);
    {  // poisoned: nothing passes, and a runner's look right after the stream would find it unwritten
      const auto v = p.verify(true);
      CHECK_FALSE(v.ok);
      CHECK_THAT(v.message, ContainsSubstring("output 'h_out'"));
      REQUIRE(p.first_unjoined().has_value());
      CHECK(p.first_unjoined()->buffer == 1);
      CHECK(p.first_unjoined()->element == 0);
    }
    p.write_right_answer(p.out.data());
    CHECK(p.verify(true).ok);
    CHECK_FALSE(p.first_unjoined().has_value());

    p.out.data()[n] = 2.0f * static_cast<float>(n);  // one element too many, with a plausible value
    auto v = p.verify(true);
    CHECK_FALSE(v.ok);
    CHECK_THAT(v.message, ContainsSubstring("out-of-bounds write: something wrote just outside output 'h_out'"));

    Doubling q(n);
    q.generate(3);
    q.write_right_answer(q.out.data());
    q.out.data()[-1] = 0.0f;  // just before the start
    CHECK_FALSE(q.verify(true).ok);
  }
}

TEST_CASE("a host input written by the run, or written past its end, fails the check", "[harness][host_buffer]") {
  HostOnly host_only;
  Doubling p(1025);
  p.generate(1);
  p.write_right_answer(p.out.data());
  REQUIRE(p.verify(true).ok);
  const_cast<float*>(p.in.data())[7] += 1.0f;
  CHECK_THAT(p.verify(true).message, ContainsSubstring("input 'h_in' was modified"));

  Doubling q(1025);
  q.generate(1);
  q.write_right_answer(q.out.data());
  const_cast<float*>(q.in.data())[1025] = 0.0f;
  CHECK_THAT(q.verify(true).message, ContainsSubstring("wrote just outside input 'h_in'"));
}

namespace {
// A referee's problem of 4099 floats, generated and poisoned, and the runner's problem over its mappings.
struct MappedPair {
  HostOnly host_only;
  Doubling referee{4099};
  std::unique_ptr<Doubling> runner = [this] {
    referee.generate(5);
    referee.poison(nullptr);
    return runner_side(referee);
  }();
};
}  // namespace

TEST_CASE("a runner maps the referee's host buffers from their descriptors and writes the memory the referee checks",
          "[harness][host_buffer]") {
  MappedPair pair;
  auto& [host_only, referee, runner] = pair;
  CHECK(runner->in.data() != referee.in.data());  // two mappings ...
  CHECK(std::memcmp(runner->in.data(), referee.in.data(), 4099 * sizeof(float)) == 0);  // ... of the same memory
  CHECK(runner->first_unjoined().has_value());  // the referee's poison, seen by the runner
  referee.write_right_answer(runner->out.data());
  CHECK_FALSE(runner->first_unjoined().has_value());
  CHECK(referee.verify(true).ok);
  runner->out.data()[4099] = 0.0f;  // past the end, through the runner's mapping
  CHECK_FALSE(referee.verify(true).ok);
}

TEST_CASE("a second problem over a runner's mappings (one an implementation) uses the same memory and unmaps nothing",
          "[harness][host_buffer]") {
  MappedPair pair;
  auto& [host_only, referee, runner] = pair;
  std::vector<harness::BufferHandle> mapped;
  for (const harness::Buffer* b : runner->buffers()) mapped.push_back(b->alias_handle());
  harness::map_next_buffers(mapped);
  {
    const Doubling other(4099);
    REQUIRE(harness::buffers_left_to_map() == 0);
    CHECK(other.in.data() == runner->in.data());  // the same mapping, not a new one
    CHECK(other.out.data() == runner->out.data());
    referee.write_right_answer(other.out.data());
    CHECK_FALSE(runner->first_unjoined().has_value());  // what one problem wrote, the other sees
    CHECK(referee.verify(true).ok);
  }
  // The second problem is gone and the runner's mappings are still there (4099 floats is a kept size: its own
  // mappings stay anyway; a larger one is unmapped only by the problem that mapped it: Buffer::~Buffer).
  referee.poison(nullptr);
  CHECK(runner->first_unjoined().has_value());
}

TEST_CASE("what a runner reports unwritten fails the referee's check with the fork-join advice, until the next poison",
          "[harness][host_buffer]") {
  HostOnly host_only;
  Doubling p(64);
  p.generate(2);
  p.poison(nullptr);
  p.write_right_answer(p.out.data());
  p.note_unjoined({1, 63});
  const auto v = p.verify(true);
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.message, ContainsSubstring("h_out[63] was not written when the harness's stream had finished"));
  CHECK_THAT(v.message, ContainsSubstring("make `stream` wait on it"));
  p.poison(nullptr);
  p.write_right_answer(p.out.data());
  CHECK(p.verify(true).ok);
}

TEST_CASE("a runner cannot resize the referee's shared memory, and a descriptor for a device buffer is refused",
          "[harness][host_buffer]") {
  HostOnly host_only;
  Doubling p(1000);
  const int fd = ::dup(p.out.shared_fd());
  // Shrinking it would make the referee's next read a SIGBUS: the memfd is sealed at its size.
  CHECK(::ftruncate(fd, 0) != 0);
  CHECK(errno == EPERM);
  CHECK(::ftruncate(fd, 1 << 30) != 0);
  ::close(fd);
  CHECK((::fcntl(p.out.shared_fd(), F_GETFD) & FD_CLOEXEC) != 0);  // no program the referee starts inherits it

  struct DeviceOnly final : harness::Problem {
    DeviceOnly() : Problem(harness::Shape{1000}), out(*this, "y", 1000) {}
    void generate(std::uint64_t) override {}
    void run(const harness::Impl&, cudaStream_t) override {}
    [[nodiscard]] harness::Work work() const override { return {}; }
    harness::Output<float> out;
  };
  harness::map_next_buffers({{"", ::dup(p.out.shared_fd())}});
  CHECK_THROWS_WITH(DeviceOnly(), ContainsSubstring("the referee's buffer is in other memory"));
  harness::map_next_buffers({});
}

TEST_CASE("a timed run checked on the host is caught at random positions when it skips part of the work",
          "[harness][host_buffer]") {
  HostOnly host_only;
  const std::int64_t n = 1 << 22;  // 64 times the samples: a check of every element this is not
  Doubling p(n);
  p.generate(5);
  p.poison(nullptr);
  p.write_right_answer(p.out.data());
  for (std::uint64_t salt = 1; salt <= 4; ++salt) CHECK(p.verify_sample(salt).ok);
  // Skipping one element in a thousand, wherever it is, fails every salt's sample.
  p.out.data()[n / 3] = 0;
  for (std::int64_t i = 0; i < n; i += 1000) p.out.data()[i + 7] = std::nanf("");
  for (std::uint64_t salt = 1; salt <= 4; ++salt) {
    const auto v = p.verify_sample(salt);
    CHECK_FALSE(v.ok);
    CHECK_THAT(v.message, ContainsSubstring("random positions of a timed run"));
  }
  // An input written over (here one element in a hundred) is seen too.
  p.write_right_answer(p.out.data());
  CHECK(p.verify_sample(9).ok);
  float* in = const_cast<float*>(p.in.data());
  for (std::int64_t i = 0; i < n; i += 100) in[i] = -1;
  const auto v = p.verify_sample(9);
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.message, ContainsSubstring("input 'h_in' was modified during a timed run"));
}

TEST_CASE("a host buffer the size of a test shape's keeps its memory for the next of that size, and a runner its mapping",
          "[harness][host_buffer]") {
  HostOnly host_only;
  constexpr std::int64_t n = 4111;  // a size no other test here uses: nothing kept from before
  const auto file = [](int fd) {
    struct stat st {};
    REQUIRE(::fstat(fd, &st) == 0);
    return st.st_ino;
  };
  std::multiset<ino_t> files;
  std::multiset<const float*> runner_mappings;
  {
    Doubling referee(n);
    referee.generate(5);
    const auto runner = runner_side(referee);
    files = {file(referee.in.shared_fd()), file(referee.out.shared_fd())};
    runner_mappings = {runner->in.data(), runner->out.data()};
    runner->out.data()[n] = 0.0f;  // a guard spoiled through the runner's mapping: made again with the next buffer
  }
  // What a freed mapping's addresses would go to next, so that a new mapping cannot land on them by chance.
  const std::size_t span = (n * sizeof(float) + 2 * harness::Buffer::guard_bytes() + 4095) / 4096 * 4096 * 2;
  void* taken = ::mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(taken != MAP_FAILED);
  Doubling referee(n);
  CHECK(std::multiset<ino_t>{file(referee.in.shared_fd()), file(referee.out.shared_fd())} == files);  // kept
  referee.generate(6);
  referee.poison(nullptr);
  const auto runner = runner_side(referee);
  CHECK(std::multiset<const float*>{runner->in.data(), runner->out.data()} == runner_mappings);  // still mapped
  CHECK(std::memcmp(runner->in.data(), referee.in.data(), n * sizeof(float)) == 0);  // this case's inputs, seen
  CHECK(runner->first_unjoined().has_value());  // this case's poison, seen
  referee.write_right_answer(runner->out.data());
  CHECK(referee.verify(true).ok);  // the spoiled guard was made again
  const Doubling bigger(n + 1);    // another size: other memory
  CHECK(files.count(file(bigger.in.shared_fd())) == 0);
  ::munmap(taken, span);
}

TEST_CASE("the largest test shape of the course keeps its memory for the next case of that size",
          "[harness][host_buffer]") {
  // Lab 07's (2^26 + 5 floats, its remainder at the timed size): below the kept limit, each of its cases would make,
  // page-locking where there is a GPU, and free 256 MiB a buffer again.
  HostOnly host_only;
  constexpr std::int64_t n = (std::int64_t{1} << 26) + 5;
  const auto file = [](int fd) {
    struct stat st {};
    REQUIRE(::fstat(fd, &st) == 0);
    return st.st_ino;
  };
  std::multiset<ino_t> files;
  {
    const Doubling first(n);
    files = {file(first.in.shared_fd()), file(first.out.shared_fd())};
  }
  const Doubling second(n);
  CHECK(std::multiset<ino_t>{file(second.in.shared_fd()), file(second.out.shared_fd())} == files);
}
