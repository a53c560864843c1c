#include "commands.hpp"

#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/exit_codes.hpp>
#include <harness/problem.hpp>
#include <harness/runner.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <utility>

namespace harness::lab_cli {

int require_device() {
  std::string why;
  if (device_count(&why) > 0) return 0;
  const char* req = std::getenv("COURSE_REQUIRE_GPU");
  const bool required = req && std::string(req) == "1";
  std::cerr << "no CUDA GPU is visible (" << why << ")"
            << (required ? "; COURSE_REQUIRE_GPU=1 makes that a failure" : "") << "\n";
  return required ? exit_code::kCudaError : exit_code::kNoDevice;
}

std::optional<std::vector<const ExerciseSpec*>> find_exercises(const std::vector<std::string>& names) {
  std::vector<const ExerciseSpec*> specs;
  for (const auto& name : names) {
    const ExerciseSpec* spec = lab().find(name);
    if (!spec) {
      std::cerr << "unknown exercise '" << name << "' (see `list`)\n";
      return std::nullopt;
    }
    if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
  }
  return specs;
}

int info() {
  if (int rc = require_device()) return rc;
  const DeviceInfo d = device_info();
  nlohmann::json j = {{"gpu", d.name},
                      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                      {"sms", d.sms},
                      {"l2_bytes", d.l2_bytes},
                      {"memory_bytes", d.memory_bytes},
                      {"driver", d.driver},
                      {"cuda_driver", cuda_version_string(d.cuda_driver)},
                      {"cuda_runtime", cuda_version_string(d.cuda_runtime)}};
  // What napkin math needs (`grade --device` prints it). Attributes, not cudaDeviceProp: CUDA 13 dropped the clock
  // fields from the properties.
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  for (const auto& [key, attr] : {std::pair{"sm_clock_khz", cudaDevAttrClockRate},
                                  std::pair{"memory_clock_khz", cudaDevAttrMemoryClockRate},
                                  std::pair{"memory_bus_bits", cudaDevAttrGlobalMemoryBusWidth},
                                  std::pair{"shared_memory_per_sm_bytes", cudaDevAttrMaxSharedMemoryPerMultiprocessor},
                                  std::pair{"registers_per_sm", cudaDevAttrMaxRegistersPerMultiprocessor},
                                  std::pair{"max_threads_per_sm", cudaDevAttrMaxThreadsPerMultiProcessor},
                                  std::pair{"warp_size", cudaDevAttrWarpSize}}) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
    j[key] = value;
  }
  std::cout << j.dump() << "\n";
  return exit_code::kOk;
}

int list() {
  nlohmann::json ex = nlohmann::json::array();
  for (const auto& e : lab().exercises) ex.push_back({{"name", e.name}, {"title", e.title}});
  nlohmann::json impls = nlohmann::json::object();
  for (const auto& name : runner_names()) impls[name] = runner_exercises(name);
  std::cout << nlohmann::json{{"lab", lab().id}, {"exercises", ex}, {"implementations", impls}}.dump(1) << "\n";
  return exit_code::kOk;
}

}  // namespace harness::lab_cli
