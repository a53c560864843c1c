// `grade --device`: a human summary of `labN info` with the napkin math of the exercise sheets, for the reader's GPU.

#include "grader/device_info.hpp"

#include <fmt/format.h>

#include "grader/lab_run.hpp"

namespace grader {
namespace {

// The integer at `key`, or -1 when the lab binary did not report it.
double number(const nlohmann::json& info, const char* key) {
  return info.contains(key) && info.at(key).is_number() ? info.at(key).get<double>() : -1;
}

std::string known(double v, const std::string& text) { return v < 0 ? "unknown" : text; }

std::string bytes(double b) {
  if (b < 0) return "unknown";
  if (b >= 1 << 30) return fmt::format("{:.1f} GiB", b / (1 << 30));
  if (b >= 1 << 20) return fmt::format("{:g} MiB", b / (1 << 20));
  return fmt::format("{:g} KiB", b / 1024);
}

}  // namespace

std::string format_device_summary(const nlohmann::json& info) {
  const auto text = [&](const char* key) {
    return info.contains(key) && info.at(key).is_string() ? info.at(key).get<std::string>() : std::string("unknown");
  };
  const double sms = number(info, "sms"), sm_khz = number(info, "sm_clock_khz");
  const double mem_khz = number(info, "memory_clock_khz"), bus = number(info, "memory_bus_bits");
  const double threads = number(info, "max_threads_per_sm"), regs = number(info, "registers_per_sm");
  std::string s = fmt::format("GPU: {} (compute capability {}), driver {}, CUDA driver {}, runtime {}\n",
                              text("gpu"), text("compute_capability"), text("driver"), text("cuda_driver"),
                              text("cuda_runtime"));
  s += fmt::format("  SMs                     {}\n", known(sms, fmt::format("{:g}", sms)));
  s += fmt::format("  SM clock                {}\n", known(sm_khz, fmt::format("{:g} MHz", sm_khz / 1000)));
  s += fmt::format("  memory                  {}, clock {}, bus {}\n", bytes(number(info, "memory_bytes")),
                   known(mem_khz, fmt::format("{:g} MHz", mem_khz / 1000)),
                   known(bus, fmt::format("{:g} bits", bus)));
  // Double data rate: two transfers per memory clock, bus width in bits over 8.
  const double gb_s = mem_khz < 0 || bus < 0 ? -1 : 2 * mem_khz * 1e3 * bus / 8 / 1e9;
  s += fmt::format("  DRAM bandwidth (theory) {}\n",
                   known(gb_s, fmt::format("{:.0f} GB/s = 2 (double data rate) x {:g} MHz x {:g} bits / 8", gb_s,
                                           mem_khz / 1000, bus)));
  s += fmt::format("  L2 cache                {}\n", bytes(number(info, "l2_bytes")));
  s += fmt::format("  shared memory per SM    {}\n", bytes(number(info, "shared_memory_per_sm_bytes")));
  s += fmt::format("  registers per SM        {}\n", known(regs, fmt::format("{:g} (32-bit)", regs)));
  s += fmt::format("  max threads per SM      {}\n", known(threads, fmt::format("{:g}", threads)));
  s += fmt::format("  warp size               {}\n", known(number(info, "warp_size"),
                                                            fmt::format("{:g}", number(info, "warp_size"))));
  if (gb_s > 0 && sms > 0 && threads > 0) {
    // Little's law: to move bandwidth B with latency L, B x L bytes must be on their way at every moment.
    const double in_flight = gb_s * 1e9 * kTypicalDramLatencyNs * 1e-9;
    s += fmt::format(
        "napkin math: {:.0f} GB/s x {:g} ns (a typical DRAM latency, assumed) = {:.1f} MB in flight to keep DRAM "
        "busy: {:.1f} KB per SM, {:.1f} bytes per thread with all {:g} threads of every SM resident\n",
        gb_s, kTypicalDramLatencyNs, in_flight / 1e6, in_flight / sms / 1e3, in_flight / (sms * threads), threads);
  }
  return s;
}

int print_device_summary(const std::vector<LabEntry>& labs, const std::filesystem::path& bin_dir) {
  for (const auto& lab : labs) {
    const auto info = query_info(lab_binary(bin_dir, lab.number));
    switch (info.kind) {
      case InfoOutcome::Kind::kNoBinary: continue;
      case InfoOutcome::Kind::kNoGpu:
        fmt::print(stderr, "grade: grading needs an NVIDIA GPU, and lab{} sees none: {}\n", lab.number, info.message);
        return 3;
      case InfoOutcome::Kind::kFailed:
        fmt::print(stderr, "grade: lab{} info failed: {}\n", lab.number, info.message);
        return 5;
      case InfoOutcome::Kind::kOk: fmt::print("{}", format_device_summary(info.info)); return 0;
    }
  }
  fmt::print(stderr, "grade: --device asks a lab binary about the GPU, and none is built: run `make lab1` first\n");
  return 5;
}

}  // namespace grader
