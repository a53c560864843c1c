// What the referee infers from its environment about CUDA tools attached to it (harness/protocol.hpp).
#include <harness/protocol.hpp>
#include <harness/result_keys.hpp>

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

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
                           "NV_SANITIZER_INJECTION_PORT_BASE", "NV_COMPUTE_PROFILER_PERFWORKS_DIR", "NCU_FLAGS",
                           "NSYS_FLAGS"})
    ::unsetenv(name);  // a test run under a profiler would otherwise see it everywhere
  CHECK_FALSE(harness::protocol::cuda_tool_attached());
  {
    const ScopedEnv unrelated("NVIDIA_VISIBLE_DEVICES", "all");  // set by container runtimes, not by tools
    const ScopedEnv image("NV_CUDA_LIB_VERSION", "13.0.0-1");     // set by NVIDIA's CUDA container images
    CHECK_FALSE(harness::protocol::cuda_tool_attached());
  }
  // NV_SANITIZER_INJECTION_: a program compute-sanitizer's front end starts itself (the referee's runner under a tool).
  for (const char* name :
       {"CUDA_INJECTION64_PATH", "COMPUTE_SANITIZER_OPTIONS", "NV_SANITIZER_INJECTION_PORT_BASE", "NCU_FLAGS"}) {
    const ScopedEnv tool(name, "/opt/tool/lib.so");
    CAPTURE(name);
    CHECK(harness::protocol::cuda_tool_attached());
  }
  CHECK_FALSE(harness::protocol::cuda_tool_attached());
}

TEST_CASE("a variable is found by its whole name in a given environment", "[harness][runner]") {
  char tmp_longer[] = "TMPDIRX=/elsewhere", tmp[] = "TMPDIR=/run/x", empty[] = "EMPTY=";
  char* envp[] = {tmp_longer, tmp, empty, nullptr};
  using harness::protocol::variable_in;
  CHECK(std::string(variable_in(envp, "TMPDIR")) == "/run/x");
  CHECK(std::string(variable_in(envp, "EMPTY")).empty());
  CHECK(variable_in(envp, "TMP") == nullptr);
  char* none[] = {nullptr};
  CHECK(variable_in(none, "TMPDIR") == nullptr);
  const ScopedEnv own("COURSE_VARIABLE_IN_TEST", "here");  // nullptr: this process's own environment
  CHECK(std::string(variable_in(nullptr, "COURSE_VARIABLE_IN_TEST")) == "here");
}

TEST_CASE("Nsight Compute is told from the other CUDA tools by its variables or its injection library's path",
          "[harness][runner]") {
  using harness::protocol::nsight_compute_attached;
  char sanitizer[] = "CUDA_INJECTION64_PATH=/usr/local/cuda/compute-sanitizer/libsanitizer-collection.so";
  char ncu_path[] = "CUDA_INJECTION64_PATH=/opt/nvidia/nsight-compute/2025.3.1/target/injection.so";
  char ncu_variable[] = "NV_COMPUTE_PROFILER_PERFWORKS_DIR=/opt/nvidia/nsight-compute/2025.3.1/host";
  char* with_sanitizer[] = {sanitizer, nullptr};
  char* with_path[] = {ncu_path, nullptr};
  char* with_variable[] = {sanitizer, ncu_variable, nullptr};
  CHECK_FALSE(nsight_compute_attached(with_sanitizer));
  CHECK(nsight_compute_attached(with_path));
  CHECK(nsight_compute_attached(with_variable));
}

TEST_CASE("a runner gets what a CUDA program needs of the referee's environment, its work queues included",
          "[harness][runner]") {
  using harness::protocol::passed_to_runner;
  for (const char* name : {"PATH", "TMPDIR", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_MAX_CONNECTIONS",
                           "COURSE_RUNNER_SANDBOX", "CUDA_INJECTION64_PATH"}) {
    CAPTURE(name);
    CHECK(passed_to_runner(name));
  }
  for (const char* name : {"COURSE_RUNNER_UID", "HOSTNAME", "SSH_AUTH_SOCK", "FAKE_LAB_MODE", "CUDA_DEVICE", "PATHX"}) {
    CAPTURE(name);
    CHECK_FALSE(passed_to_runner(name));
  }
}

TEST_CASE("a runner starts under compute-sanitizer through the tool's front end, which exits with its verdict",
          "[harness][runner]") {
  using harness::protocol::sanitizer_front_end;
  const std::vector<std::string> racecheck{"/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--error-exitcode",
                                           "86", "--print-limit", "10"};
  CHECK(sanitizer_front_end("/cuda/bin/compute-sanitizer", "racecheck") == racecheck);
  // memcheck leaves out the CUDA API errors the harness provokes and handles.
  const auto memcheck = sanitizer_front_end("cs", "memcheck");
  REQUIRE(memcheck.size() == racecheck.size() + 2);
  CHECK(memcheck[memcheck.size() - 2] == "--report-api-errors");
  CHECK(memcheck.back() == "no");
  for (const char* tool : {"synccheck", "initcheck"}) CHECK_FALSE(sanitizer_front_end("cs", tool).empty());
  CHECK(sanitizer_front_end("cs", "leakcheck").empty());  // no tool the manifests may name
  CHECK(sanitizer_front_end("cs", "").empty());
}

TEST_CASE("a front end's wait status is its tool's verdict: 86 found, 0 clean, ended at its limit hung, anything "
          "else failed and how",
          "[harness][runner]") {
  using harness::protocol::front_end_verdict;
  namespace keys = harness::keys;
  CHECK(front_end_verdict(W_EXITCODE(86, 0)).verdict == keys::kFound);
  CHECK(front_end_verdict(W_EXITCODE(0, 0)).verdict == keys::kClean);
  CHECK(front_end_verdict(W_EXITCODE(0, 0)).how.empty());
  const auto exited = front_end_verdict(W_EXITCODE(1, 0));
  CHECK(exited.verdict == keys::kFailed);
  CHECK(exited.how == "compute-sanitizer exited with code 1");
  const auto killed = front_end_verdict(W_EXITCODE(0, SIGKILL));
  CHECK(killed.verdict == keys::kFailed);
  CHECK(killed.how == "compute-sanitizer killed by signal 9");
  // Ended by the referee at its tool's limit: hung, unless it had already said its verdict.
  CHECK(front_end_verdict(W_EXITCODE(0, SIGKILL), true).verdict == keys::kHung);
  CHECK(front_end_verdict(W_EXITCODE(86, 0), true).verdict == keys::kFound);
  CHECK(harness::protocol::ended_how(W_EXITCODE(112, 0)) == "exited with code 112");
}
