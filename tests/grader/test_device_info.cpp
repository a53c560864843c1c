// `grade --device`: the summary of a captured `lab1 info` (formatting is host code, so it is tested in CI), and the
// command end to end against the fake lab, with and without a GPU.

#include <algorithm>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/device_info.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace grader_test;

namespace {

// `lab1 info` on the course's H100 (NVIDIA H100 80GB HBM3, driver 580.159.04, CUDA 13.0).
const char* kH100Info = R"({"compute_capability":"9.0","cuda_driver":"13.0","cuda_runtime":"13.0",
  "driver":"580.159.04","gpu":"NVIDIA H100 80GB HBM3","l2_bytes":52428800,"max_threads_per_sm":2048,
  "memory_bus_bits":5120,"memory_bytes":85017493504,"memory_clock_khz":2619000,"registers_per_sm":65536,
  "shared_memory_per_sm_bytes":233472,"sm_clock_khz":1980000,"sms":132,"warp_size":32})";

}  // namespace

TEST_CASE("the device summary computes DRAM bandwidth from the memory clock and bus width", "[grader][device]") {
  const auto s = grader::format_device_summary(nlohmann::json::parse(kH100Info));
  CAPTURE(s);
  CHECK_THAT(s, ContainsSubstring("GPU: NVIDIA H100 80GB HBM3 (compute capability 9.0)"));
  CHECK_THAT(s, ContainsSubstring("SMs                     132\n"));
  CHECK_THAT(s, ContainsSubstring("SM clock                1980 MHz\n"));
  CHECK_THAT(s, ContainsSubstring("memory                  79.2 GiB, clock 2619 MHz, bus 5120 bits\n"));
  // 2 x 2619e6 x 5120 / 8 = 3352.3e9 bytes per second: the H100 SXM's 3.35 TB/s.
  CHECK_THAT(s, ContainsSubstring("DRAM bandwidth (theory) 3352 GB/s = 2 (double data rate) x 2619 MHz x 5120 bits"));
  CHECK_THAT(s, ContainsSubstring("L2 cache                50 MiB\n"));
  CHECK_THAT(s, ContainsSubstring("shared memory per SM    228 KiB\n"));
  CHECK_THAT(s, ContainsSubstring("registers per SM        65536 (32-bit)\n"));
  CHECK_THAT(s, ContainsSubstring("max threads per SM      2048\n"));
  CHECK_THAT(s, ContainsSubstring("warp size               32\n"));
  // Little's law: 3352 GB/s x 600 ns = 2.01 MB; / 132 SMs = 15.2 KB; / (132 x 2048) threads = 7.4 bytes.
  CHECK_THAT(s, ContainsSubstring("napkin math: 3352 GB/s x 600 ns (a typical DRAM latency, assumed) = 2.0 MB in "
                                  "flight to keep DRAM busy: 15.2 KB per SM, 7.4 bytes per thread"));
}

TEST_CASE("the device summary says unknown for what an older lab binary does not report", "[grader][device]") {
  const auto s = grader::format_device_summary(
      nlohmann::json::parse(R"({"gpu": "Old GPU", "compute_capability": "7.5", "sms": 40, "l2_bytes": 4194304})"));
  CAPTURE(s);
  CHECK_THAT(s, ContainsSubstring("SMs                     40\n"));
  CHECK_THAT(s, ContainsSubstring("DRAM bandwidth (theory) unknown\n"));
  CHECK_THAT(s, ContainsSubstring("L2 cache                4 MiB\n"));
  CHECK_FALSE(s.find("napkin math") != std::string::npos);
}

TEST_CASE("grade --device prints the summary of a built lab's info", "[grader][device][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"--device"});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 0);
  CHECK_THAT(run.process.out, ContainsSubstring("GPU: "));
  CHECK_THAT(run.process.out, ContainsSubstring("DRAM bandwidth (theory)"));
}

TEST_CASE("grade --device without a GPU prints one line and exits 3, as grading does", "[grader][device][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"--device"}, {{"FAKE_LAB_MODE", "no_gpu"}});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 3);
  CHECK(run.process.out.empty());
  CHECK_THAT(run.process.err, ContainsSubstring("grade: grading needs an NVIDIA GPU, and lab1 sees none"));
  CHECK(std::count(run.process.err.begin(), run.process.err.end(), '\n') == 1);
}

TEST_CASE("grade --device with no lab built says which command builds one and exits 5", "[grader][device][e2e]") {
  const TempDir dir;
  const auto run = run_grade(dir, {"--device", "--bin-dir", (dir.path / "empty").string()});
  CAPTURE(run.process.out, run.process.err);
  CHECK(run.process.exit_code == 5);
  CHECK_THAT(run.process.err, ContainsSubstring("make lab1"));
}
