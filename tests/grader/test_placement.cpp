// Tests of where a batch's work runs (grader/placement.hpp): CPU lists, the share of cores of each GPU's worker on
// fake host topologies, the GPU's nearest CPUs read from a fake /proc and /sys, and the host link's turns between
// processes, and the host locks (grader/host_lock.hpp). The batch that uses them on two fake GPUs is in test_batch.cpp.

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

#include <catch2/catch_test_macros.hpp>
#include <fmt/format.h>

#include "grader/host_lock.hpp"
#include "grader/placement.hpp"
#include "support.hpp"

namespace {

using namespace grader_test;
using grader::format_cpu_list;
using grader::parse_cpu_list;
using grader::near_cpus;
using grader::share_cpus;

std::vector<int> range(int first, int last) {
  std::vector<int> v;
  for (int i = first; i <= last; ++i) v.push_back(i);
  return v;
}

}  // namespace

TEST_CASE("a kernel CPU list is read and written as /sys writes it", "[grader][placement]") {
  CHECK(parse_cpu_list("0-3,8,10-11\n") == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(parse_cpu_list("5") == std::vector<int>{5});
  CHECK(parse_cpu_list("3,1-2,2") == std::vector<int>{1, 2, 3});
  CHECK(parse_cpu_list("").empty());
  CHECK(parse_cpu_list("4-2").empty());
  CHECK(parse_cpu_list("0-3x").empty());
  CHECK(parse_cpu_list("ff").empty());
  CHECK(format_cpu_list({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
  CHECK(format_cpu_list({}) == "");
  CHECK(format_cpu_list(parse_cpu_list("0-15,32-47")) == "0-15,32-47");
}

TEST_CASE("each GPU's worker gets cores of its own, near its GPU", "[grader][placement]") {
  const auto node0 = range(0, 15), node1 = range(16, 31), all = range(0, 31);
  SECTION("two GPUs on two NUMA nodes: each worker its GPU's node") {
    CHECK(share_cpus(all, {node0, node1}) == std::vector<std::vector<int>>{node0, node1});
  }
  SECTION("two GPUs on one node: its cores split in two, the other node left to the builds") {
    CHECK(share_cpus(all, {node0, node0}) == std::vector<std::vector<int>>{range(0, 7), range(8, 15)});
  }
  SECTION("four GPUs, two a node") {
    CHECK(share_cpus(all, {node0, node0, node1, node1}) ==
          std::vector<std::vector<int>>{range(0, 7), range(8, 15), range(16, 23), range(24, 31)});
  }
  SECTION("where the topology is unknown, the allowed cores split evenly") {
    CHECK(share_cpus(all, {{}, {}}) == std::vector<std::vector<int>>{node0, node1});
  }
  SECTION("a GPU's node outside the allowed cores: the allowed ones") {
    CHECK(share_cpus(node0, {node1, node1}) == std::vector<std::vector<int>>{range(0, 7), range(8, 15)});
  }
  SECTION("more workers than cores: one core each, in turn") {
    CHECK(share_cpus({0, 1}, {{}, {}, {}}) == std::vector<std::vector<int>>{{0}, {1}, {0}});
  }
  SECTION("hardware threads: two workers on one node never share a physical core") {
    // 16 CPUs, 8 cores: CPU i and i + 8 are the two threads of core i, as Linux numbers them on most hosts.
    std::vector<std::vector<int>> cores;
    for (int c = 0; c < 8; ++c) cores.push_back({c, c + 8});
    CHECK(share_cpus(range(0, 15), {{}, {}}, cores) ==
          std::vector<std::vector<int>>{{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}});
    CHECK(share_cpus(range(0, 15), {{}, {}}) == std::vector<std::vector<int>>{range(0, 7), range(8, 15)});  // unknown
  }
  SECTION("one GPU (a Slurm task): the allowed cores whole, as placed") {
    CHECK(share_cpus(range(4, 7), {node1}) == std::vector<std::vector<int>>{range(4, 7)});
  }
}

TEST_CASE("with --share-cpus each GPU's worker gets every allowed CPU near its GPU, shared", "[grader][placement]") {
  const auto node0 = range(0, 15), node1 = range(16, 31), all = range(0, 31);
  CHECK(near_cpus(all, {node0, node0}) == std::vector<std::vector<int>>{node0, node0});
  CHECK(near_cpus(all, {node0, node0, node1, node1}) == std::vector<std::vector<int>>{node0, node0, node1, node1});
  CHECK(near_cpus(all, {{}, {}}) == std::vector<std::vector<int>>{all, all});  // the topology unknown
  CHECK(near_cpus(range(8, 23), {node0, node1}) == std::vector<std::vector<int>>{range(8, 15), range(16, 23)});
  CHECK(near_cpus(node0, {node1}) == std::vector<std::vector<int>>{node0});  // none of its node allowed
}

TEST_CASE("a GPU's nearest CPUs come from the driver's bus address and the device's local_cpulist",
          "[grader][placement]") {
  const TempDir dir;
  const auto proc = dir.path / "proc", sys = dir.path / "sys";
  // Bus order is the folder names' order: 0000:18 is GPU 0, 0000:9A is GPU 1 (the driver writes hex in capitals,
  // /sys in small letters).
  write_text(proc / "0000:9A:00.0" / "information", "Model: H100\nGPU UUID: GPU-bbbb-2222\nBus Location: 0000:9a\n");
  write_text(proc / "0000:18:00.0" / "information", "Model: H100\nGPU UUID: GPU-aaaa-1111\nBus Location: 0000:18\n");
  write_text(sys / "0000:18:00.0" / "local_cpulist", "0-15\n");
  write_text(sys / "0000:9a:00.0" / "local_cpulist", "16-31\n");
  CHECK(grader::cpus_near_gpu("0", proc, sys) == range(0, 15));
  CHECK(grader::cpus_near_gpu("1", proc, sys) == range(16, 31));
  CHECK(grader::cpus_near_gpu("GPU-bbbb-2222", proc, sys) == range(16, 31));
  CHECK(grader::cpus_near_gpu("2", proc, sys).empty());
  CHECK(grader::cpus_near_gpu("GPU-cccc", proc, sys).empty());
  CHECK(grader::cpus_near_gpu("", proc, sys).empty());
  CHECK(grader::cpus_near_gpu("0", dir.path / "no-driver", sys).empty());
}

TEST_CASE("CPUs group by physical core from each CPU's thread_siblings_list", "[grader][placement]") {
  const TempDir dir;
  const auto sys = dir.path / "cpu";
  for (int cpu = 0; cpu < 4; ++cpu)  // cores {0,2} and {1,3}; CPU 4 has no topology
    write_text(sys / fmt::format("cpu{}", cpu) / "topology" / "thread_siblings_list", cpu % 2 == 0 ? "0,2\n" : "1,3\n");
  CHECK(grader::cpu_cores({0, 1, 2, 3, 4}, sys) == std::vector<std::vector<int>>{{0, 2}, {1, 3}, {4}});
  CHECK(grader::cpu_cores({1, 2, 3}, sys) == std::vector<std::vector<int>>{{1, 3}, {2}});  // only the allowed
  CHECK(grader::cpu_cores({0, 1}, dir.path / "none") == std::vector<std::vector<int>>{{0}, {1}});
}

TEST_CASE("a process confined to a share of the cores runs only there", "[grader][placement]") {
  const auto allowed = grader::allowed_cpus();
  REQUIRE_FALSE(allowed.empty());
  const pid_t child = ::fork();
  if (child == 0) {  // the child confines itself, as a grading worker does, and reports what it may use
    const bool ok = grader::run_on({allowed.back()});
    std::_Exit(ok && grader::allowed_cpus() == std::vector<int>{allowed.back()} ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(grader::allowed_cpus() == allowed);  // the parent keeps its own
}

TEST_CASE("a host lock is held by one holder at a time, waited for or not, and named for its host",
          "[grader][placement]") {
  using grader::HostLock;
  TempDir dir;
  const auto file = dir.path / grader::host_lock_name("things");
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof host - 1) == 0);
  CHECK(file.filename().string() == fmt::format("things-{}.lock", host));  // shards on other hosts use other files
  std::optional<HostLock> first;
  first.emplace(file, HostLock::Wait::kNo);
  REQUIRE(first->held());
  CHECK_FALSE(HostLock(file, HostLock::Wait::kNo).held());  // another open file: flock says it is taken
  // A child that waits for it gets it once this holder lets it go, and not before.
  const pid_t child = ::fork();
  if (child == 0) {
    ::close_range(3, ~0U, 0);  // not this process's copy of the holder's descriptor: another worker has none
    const HostLock waited(file, HostLock::Wait::kUntilFree);
    ::_exit(waited.held() ? 0 : 1);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  CHECK(::waitpid(child, &status, WNOHANG) == 0);  // still waiting
  first.reset();
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(HostLock(file, HostLock::Wait::kNo).held());  // free again
  CHECK_FALSE(HostLock(std::nullopt, HostLock::Wait::kUntilFree).held());  // no file: nothing held, no wait
}
