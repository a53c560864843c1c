// The student kit (cmake/StudentKit.cmake), end to end: `make student-kit` in a fresh build of this tree limited to
// lab 1 (so only lab 1's reference is compiled for the kit's architectures: seconds, not minutes), the archive
// unpacked in a fresh folder and searched for solution sources, then built and graded there by the kit README's two
// commands, read from that README and run as typed in one shell, the way tests/readme/front_door_test.cpp runs the
// course's README (`--preset dev` becomes `--preset ci` where no GPU is visible, for CI's explicit architectures).
#include <grader/process.hpp>

#include "../readme/readme_commands.hpp"

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

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}



grader::ProcessResult run(std::vector<std::string> argv, double timeout_s) {
  grader::ProcessOptions p;
  p.argv = std::move(argv);
  p.timeout_s = timeout_s;
  p.capture_limit = 1 << 20;
  // The configure steps find the dependencies where this build found them (the GPU machine keeps CLI11 in .deps).
  p.env = {{"CMAKE_PREFIX_PATH", COURSE_PREFIX_PATH}, {"COURSE_REQUIRE_GPU", "0"}};
  return grader::run_process(p);
}

std::string tail(const std::string& text) { return text.substr(text.size() > 4000 ? text.size() - 4000 : 0); }

/// Every file of the course's folders the kit draws on (labs, harness, grader, build, docs), students' copies left out.
std::string shipped_text(const fs::path& source) {
  std::string text;
  for (const char* folder : {"labs", "harness", "grader", "cmake", "docs"})
    for (const auto& entry : fs::recursive_directory_iterator(source / folder))
      if (entry.is_regular_file() && entry.path().filename() != "student.cu") text += read_file(entry.path());
  return text;
}

/// Lines of a solution that no file the kit draws on has (stubs, sheets, the harness's idioms): if one is in the kit,
/// the solution's text is. Long lines only, so braces and short idioms do not count; comments count (they are the
/// solution's too).
std::vector<std::string> distinctive_lines(const fs::path& solution, const std::string& shipped) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(solution));
  for (std::string line; std::getline(in, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.size() >= 30 && shipped.find(line) == std::string::npos) lines.push_back(line);
  }
  return lines;
}

}  // namespace

TEST_CASE("the student kit holds no solution source and its README's two commands build and grade lab 1",
          "[kit][cpu]") {
  const fs::path source = COURSE_SOURCE_DIR;
  const fs::path root = fs::temp_directory_path() / ("course-student-kit-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "unpacked");

  // Make the kit: configure lab 1 only, build the one target, unpack the archive.
  const auto configure = run({CMAKE_COMMAND, "-S", source, "-B", root / "maker", "-G", CMAKE_GENERATOR,
                              "-DCOURSE_LABS=01_coalescing"}, 600);
  INFO(tail(configure.out) + tail(configure.err));
  REQUIRE(configure.exit_code == 0);
  const auto make = run({CMAKE_COMMAND, "--build", root / "maker", "--target", "student-kit"}, 900);
  INFO(tail(make.out) + tail(make.err));
  REQUIRE(make.exit_code == 0);
  const auto archive = root / "maker" / (COURSE_KIT_NAME ".tar.gz");
  REQUIRE(fs::is_regular_file(archive));
  const auto unpack = run({"tar", "-xzf", archive, "-C", root / "unpacked"}, 120);
  REQUIRE(unpack.exit_code == 0);
  const fs::path kit = root / "unpacked" / COURSE_KIT_NAME;
  REQUIRE(fs::is_regular_file(kit / "README.md"));

  // What is in it: lab 1 with its reference as an object, nothing of the instructors' folders, no student.cu yet.
  CHECK(fs::is_regular_file(kit / "prebuilt" / "01_coalescing" / "reference.o"));
  CHECK(fs::is_regular_file(kit / "labs" / "01_coalescing" / "stub.cu"));
  CHECK(fs::is_regular_file(kit / "docs" / "static-check.md"));  // the sheet links it
  CHECK_FALSE(fs::exists(kit / "labs" / "01_coalescing" / "student.cu"));
  CHECK_FALSE(fs::exists(kit / "labs" / "02_divergence"));  // only the labs of the build that made it
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kit))
    if (entry.is_regular_file()) files.push_back(entry.path());
  for (const auto& file : files) {
    const auto rel = fs::relative(file, kit).generic_string();
    CAPTURE(rel);
    for (const char* instructors : {"solutions/", "experiments/", "results/", "slides/", "scripts/", "tests/exploits/"})
      CHECK(rel.rfind(instructors, 0) == std::string::npos);
    CHECK((rel.rfind("tests/", 0) == std::string::npos || rel.rfind("tests/labs/lab_", 0) == 0));
  }

  // No file of the kit, the compiled reference included, holds a line of any reference solution.
  const auto shipped = shipped_text(source);
  for (const auto& lab : fs::directory_iterator(source / "solutions")) {
    const auto solution = lab.path() / "solution.cu";
    if (!fs::is_regular_file(solution)) continue;
    const auto lines = distinctive_lines(solution, shipped);
    CAPTURE(solution);
    REQUIRE(lines.size() >= 5);  // enough to notice a copy; fewer would mean the selection broke
    std::vector<std::string> leaks;
    for (const auto& file : files) {
      const auto text = read_file(file);
      for (const auto& line : lines)
        if (text.find(line) != std::string::npos) leaks.push_back(fs::relative(file, kit).string() + ": " + line);
    }
    CAPTURE(leaks);
    CHECK(leaks.empty());
  }

  // The kit README's two commands, as typed, in one shell; the exit code of each is printed after a marker.
  const auto commands = readme::commands(kit / "README.md", "Two commands");
  REQUIRE(commands.size() == 2);
  CAPTURE(commands[0], commands[1]);
  REQUIRE(commands[0] == "cmake --preset dev");
  const bool gpu = readme::gpu_visible();
  std::string script;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    std::string line = commands[i];
    if (!gpu) line = std::regex_replace(line, std::regex("--preset dev"), "--preset ci");
    script += line + "\necho \"@@exit " + std::to_string(i) + " $?\" >&2\n";
  }
  const auto r = run({"bash", "-c", "cd '" + kit.string() + "' && {\n" + script + "}"}, 1500);
  INFO(tail(r.out) + tail(r.err));
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.err.find("@@exit 0 0") != std::string::npos);  // the configure step succeeded

  const fs::path build = kit / "build";
  CHECK(fs::is_regular_file(build / "lab1"));
  CHECK(fs::is_regular_file(build / "grade"));
  for (const char* impl : {"student", "reference", "baseline"})
    CHECK(fs::is_regular_file(build / "runners" / ("lab1-" + std::string(impl))));
  // The static check ran on the student's object before lab 1's student runner linked it.
  CHECK(r.out.find("Static check of " + (kit / "labs" / "01_coalescing" / "student.cu").string()) != std::string::npos);

  readme::check_grade_ended(r.out, r.err, gpu);

  // A kit whose references a newer CUDA compiled stops at configure with a message, not at link or load time.
  std::ofstream(kit / "prebuilt" / "cuda-version.txt") << "99.1.0\n";
  const auto older = run({CMAKE_COMMAND, "-S", kit, "-B", root / "older-cuda", "-G", CMAKE_GENERATOR,
                          "-DCMAKE_CUDA_ARCHITECTURES=75"}, 600);
  INFO(tail(older.out) + tail(older.err));
  CHECK(older.exit_code != 0);
  CHECK(older.err.find("compiled by CUDA 99.1.0") != std::string::npos);
  fs::remove_all(root);
}
