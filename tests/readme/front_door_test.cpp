// The README's front door, run as written: its "Two commands" are read from README.md itself (so the test follows the
// README, not a copy of it) and run in one shell, one after the other, in a fresh copy of the source tree, exactly as
// a newcomer types them. The one substitution: `--preset dev` becomes `--preset ci` where no GPU is visible, since the
// CI machine needs its explicit architecture list (the dev preset picks the portable list there, which only builds
// slower).
//
// Without a GPU, `./grade lab1` must end with its one-line no-GPU message and exit code 3; with one, it must grade.
// Either way `make lab1` must have built lab1, its three runners and grade, and none of the instructors' fixtures.
#include <grader/process.hpp>

#include "readme_commands.hpp"

#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

/// A copy of the source tree as a fresh clone has it: no build folders, no students' copies, no git metadata.
void copy_fresh_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
    const auto rel = fs::relative(it->path(), from);
    const auto top = rel.begin()->string();
    const bool skipped = top.rfind("build", 0) == 0 || top == ".git" || top == ".deps" || top == "grading" ||
                         top == "out" || (top == "labs" && rel.filename() == "student.cu");
    if (skipped) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory())
      fs::create_directories(to / rel);
    else if (it->is_regular_file())
      fs::copy_file(it->path(), to / rel);
  }
}


}  // namespace

TEST_CASE("the README's two commands work as typed in a fresh copy of the course", "[readme][cpu]") {
  const auto commands = readme::commands(fs::path(COURSE_SOURCE_DIR) / "README.md", "Two commands");
  REQUIRE(commands.size() == 2);
  CAPTURE(commands[0], commands[1]);
  REQUIRE(commands[0] == "cmake --preset dev");
  const bool gpu = readme::gpu_visible();

  const fs::path root = fs::temp_directory_path() / ("course-front-door-" + std::to_string(::getpid()));
  fs::remove_all(root);
  copy_fresh_tree(COURSE_SOURCE_DIR, root);

  // One shell, the commands one after another, as typed; the exit code of each is printed after a marker.
  std::string script;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    std::string line = commands[i];
    if (!gpu) line = std::regex_replace(line, std::regex("--preset dev"), "--preset ci");
    script += line + "\necho \"@@exit " + std::to_string(i) + " $?\" >&2\n";
  }
  grader::ProcessOptions p;
  p.argv = {"bash", "-c", "cd '" + root.string() + "' && {\n" + script + "}"};
  p.timeout_s = 1500;
  p.capture_limit = 1 << 20;
  // The configure step finds the dependencies where this build found them (the GPU machine keeps CLI11 in .deps).
  p.env = {{"CMAKE_PREFIX_PATH", COURSE_PREFIX_PATH}, {"COURSE_REQUIRE_GPU", "0"}};
  const auto r = grader::run_process(p);
  INFO(r.err.substr(r.err.size() > 4000 ? r.err.size() - 4000 : 0));
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.err.find("@@exit 0 0") != std::string::npos);  // the configure step succeeded

  const fs::path build = root / "build";
  CHECK(fs::is_regular_file(build / "lab1"));
  CHECK(fs::is_regular_file(build / "grade"));
  for (const char* impl : {"student", "reference", "baseline"}) CHECK(fs::is_regular_file(build / "runners" / ("lab1-" + std::string(impl))));
  CHECK_FALSE(fs::exists(build / "lab2"));  // nor are other labs
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(build / "runners", error))  // nor instructors' fixtures
    CHECK(entry.path().filename().string().find("wrong_") == std::string::npos);

  readme::check_grade_ended(r.out, r.err, gpu);
  fs::remove_all(root);
}
