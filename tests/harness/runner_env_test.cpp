// What the referee infers from its environment about CUDA tools attached to it (harness/runner.hpp).
#include <harness/runner.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

// Sets `name` for the scope of one test and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("a CUDA tool is seen as attached by its injection variables, and only then", "[harness][runner]") {
  for (const char* name : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "COMPUTE_SANITIZER_OPTIONS",
                           "NV_COMPUTE_PROFILER_PERFWORKS_DIR", "NCU_FLAGS", "NSYS_FLAGS"})
    ::unsetenv(name);  // a test run under a profiler would otherwise see it everywhere
  CHECK_FALSE(harness::cuda_tool_attached());
  {
    const ScopedEnv unrelated("NVIDIA_VISIBLE_DEVICES", "all");  // set by container runtimes, not by tools
    const ScopedEnv image("NV_CUDA_LIB_VERSION", "13.0.0-1");     // set by NVIDIA's CUDA container images
    CHECK_FALSE(harness::cuda_tool_attached());
  }
  for (const char* name : {"CUDA_INJECTION64_PATH", "COMPUTE_SANITIZER_OPTIONS", "NCU_FLAGS"}) {
    const ScopedEnv tool(name, "/opt/tool/lib.so");
    CAPTURE(name);
    CHECK(harness::cuda_tool_attached());
  }
  CHECK_FALSE(harness::cuda_tool_attached());
}

TEST_CASE("a variable is found by its whole name in a given environment", "[harness][runner]") {
  char tmp_longer[] = "TMPDIRX=/elsewhere", tmp[] = "TMPDIR=/run/x", empty[] = "EMPTY=";
  char* envp[] = {tmp_longer, tmp, empty, nullptr};
  CHECK(std::string(harness::variable_in(envp, "TMPDIR")) == "/run/x");
  CHECK(std::string(harness::variable_in(envp, "EMPTY")).empty());
  CHECK(harness::variable_in(envp, "TMP") == nullptr);
  CHECK(harness::variable_in(nullptr, "TMPDIR") == nullptr);
}
