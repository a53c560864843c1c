#pragma once
/// @file device_info.hpp
/// @brief `grade --device`: the GPU that `labN info` describes, as a summary a person reads before doing napkin math
/// (theoretical DRAM bandwidth from the memory clock and bus, and the bytes that must be in flight to reach it).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/discovery.hpp"

namespace grader {

/// DRAM latency assumed by the napkin math (ns): a typical global-memory load that misses L2 on recent NVIDIA GPUs.
inline constexpr double kTypicalDramLatencyNs = 600.0;

/// The summary of one `labN info` object (docs/protocol.md). Fields an older lab binary does not report print as
/// "unknown", and the lines that need them are left out.
std::string format_device_summary(const nlohmann::json& info);

/// Runs `info` of the first built lab and prints its summary. Returns the exit code of `grade`: 0, 3 (no GPU, with
/// the one line `grade lab1` prints) or 5 (no lab built).
int print_device_summary(const std::vector<LabEntry>& labs, const std::filesystem::path& bin_dir);

}  // namespace grader
