// The student kit (cmake/StudentKit.cmake) and the Gradescope zip made of it (autograder/bundle.cmake), end to end:
// `make student-kit autograder-bundle` in a fresh build of this tree limited to lab 1 (so only lab 1's reference is
// compiled for the kit's architectures: seconds, not minutes), the archive unpacked in a fresh folder and searched for
// solution sources, then built and graded there by the kit README's two commands, read from that README and run as
// typed in one shell, the way tests/readme/front_door_test.cpp runs the course's README (`--preset dev` becomes
// `--preset ci` where no GPU is visible, for CI's explicit architectures). Then the zip, which must be that kit plus
// setup.sh, run_autograder and autograder/course.env: with those three in the kit's tree, setup.sh and run_autograder
// grade a submitted lab1.cu there as Gradescope would, reusing the README's build (a second build from scratch
// would cost minutes on CI's 2 cores).
#include "kit_support.hpp"

#include "../readme/readme_commands.hpp"

#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace kit_test;

TEST_CASE("the student kit and its Gradescope zip hold no solution source, and lab 1 builds and grades there by the "
          "kit README's two commands and by setup.sh and run_autograder",
          "[kit][autograder][cpu]") {
  const fs::path source = COURSE_SOURCE_DIR;
  const fs::path root = fs::temp_directory_path() / ("course-student-kit-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "unpacked");

  // Make the kit and the zip: configure lab 1 only, build the two targets, unpack the kit where Gradescope would
  // have the zip (AUTOGRADER_ROOT/source), so that the build the README makes there serves run_autograder too.
  const auto configure = run({CMAKE_COMMAND, "-S", source, "-B", root / "maker", "-G", CMAKE_GENERATOR,
                              "-DCOURSE_LABS=01_coalescing"}, 600);
  INFO(tail(configure.out) + tail(configure.err));
  REQUIRE(configure.exit_code == 0);
  const auto make =
      run({CMAKE_COMMAND, "--build", root / "maker", "--target", "student-kit", "autograder-bundle"}, 900);
  INFO(tail(make.out) + tail(make.err));
  REQUIRE(make.exit_code == 0);
  unpack(root / "maker" / (COURSE_KIT_NAME ".tar.gz"), root / "unpacked");
  const fs::path autograder = root / "autograder";  // AUTOGRADER_ROOT, Gradescope's /autograder
  const fs::path kit = autograder / "source";
  fs::create_directories(autograder);
  fs::rename(root / "unpacked" / COURSE_KIT_NAME, kit);
  REQUIRE(fs::is_regular_file(kit / "README.md"));

  // What is in it: lab 1 with its reference as an object, nothing of the instructors' folders, no student.cu yet.
  CHECK(fs::is_regular_file(kit / "prebuilt" / "01_coalescing" / "reference.o"));
  CHECK(fs::is_regular_file(kit / "prebuilt" / "architectures.txt"));  // what a student's GPU needs
  CHECK(fs::is_regular_file(kit / "labs" / "01_coalescing" / "stub.cu"));
  CHECK(fs::is_regular_file(kit / "docs" / "static-check.md"));  // the sheet links it
  CHECK_FALSE(fs::exists(kit / "labs" / "01_coalescing" / "student.cu"));
  CHECK_FALSE(fs::exists(kit / "labs" / "02_divergence"));  // only the labs of the build that made it
  const auto files = files_under(kit);
  check_no_instructors_files(files);

  // No file of the kit, the compiled reference included, holds a line of any solution source.
  check_no_solution_text(kit, files, source);

  // The zip is the kit, file for file, with what Gradescope runs.
  unpack(root / "maker" / "autograder.zip", root / "bundle");
  check_bundle_is_kit(root / "bundle", kit, source);

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

  // Gradescope: the zip's three files added, the kit's tree is the zip's; setup.sh once (apt-get stands in by one
  // that does nothing: a test installs no package), then run_autograder for a submitted lab1.cu (the stub). Their
  // work folder is the kit's own, so that their build is the README's (course.env's architecture, 90, rebuilds only
  // the CUDA objects of lab 1 and the harness).
  for (const char* added : {"setup.sh", "run_autograder", "autograder/course.env"}) {
    fs::create_directories((kit / added).parent_path());
    fs::copy_file(root / "bundle" / added, kit / added);  // with its mode
  }
  fs::create_directories(autograder / "submission");
  fs::copy_file(kit / "labs" / "01_coalescing" / "stub.cu", autograder / "submission" / "lab1.cu");
  fs::create_directories(root / "bin");
  std::ofstream(root / "bin" / "apt-get") << "#!/bin/sh\necho \"fake apt-get $*\"\n";
  fs::permissions(root / "bin" / "apt-get", fs::perms::owner_all);
  const char* path = ::getenv("PATH");
  const std::vector<std::pair<std::string, std::string>> gradescope = {
      {"AUTOGRADER_ROOT", autograder.string()}, {"AUTOGRADER_WORK", kit.string()},
      {"PATH", (root / "bin").string() + ":" + (path ? path : "/usr/bin:/bin")}};
  const auto setup = run({"bash", (kit / "setup.sh").string()}, 1500, gradescope);
  INFO(tail(setup.out) + tail(setup.err));
  CHECK(setup.exit_code == 0);
  CHECK(setup.out.find("fake apt-get install") != std::string::npos);
  const auto graded = run({"bash", (kit / "run_autograder").string()}, 1500, gradescope);
  INFO(tail(graded.out) + tail(graded.err));
  CHECK(graded.exit_code == 0);
  // The reference's runner links the kit's prebuilt object: there is no source to compile it from.
  CHECK(read_file(build / "CMakeFiles" / "lab1-reference.dir" / "link.txt")
            .find((kit / "prebuilt" / "01_coalescing" / "reference.o").string()) != std::string::npos);
  const auto results = nlohmann::json::parse(read_file(autograder / "results" / "results.json"), nullptr, false);
  REQUIRE(results.is_object());
  CAPTURE(results.dump(2));
  if (gpu) {
    REQUIRE(results["tests"].size() > 0);  // graded: one Gradescope test per exercise of lab 1
    CHECK(results["tests"][0]["name"].get<std::string>().rfind("lab1 ", 0) == 0);
  } else {
    // Built and linked, then stopped where a machine without a GPU must: grade's no-GPU exit, as the student sees it.
    CHECK(results["score"] == 0);
    CHECK(results["output"].get<std::string>().find("the grading machine sees no GPU") != std::string::npos);
  }

  // A kit whose references a newer CUDA compiled stops at configure with a message, not at link or load time.
  std::ofstream(kit / "prebuilt" / "cuda-version.txt") << "99.1.0\n";
  const auto older = run({CMAKE_COMMAND, "-S", kit, "-B", root / "older-cuda", "-G", CMAKE_GENERATOR,
                          "-DCMAKE_CUDA_ARCHITECTURES=75"}, 600);
  INFO(tail(older.out) + tail(older.err));
  CHECK(older.exit_code != 0);
  CHECK(older.err.find("compiled by CUDA 99.1.0") != std::string::npos);

  // So does a build for a GPU whose architecture none of the references' SASS serves (they hold no PTX to JIT).
  std::ofstream(kit / "prebuilt" / "cuda-version.txt") << "1.0\n";
  std::ofstream(kit / "prebuilt" / "architectures.txt") << "75 80\n";
  const auto unserved = run({CMAKE_COMMAND, "-S", kit, "-B", root / "unserved", "-G", CMAKE_GENERATOR,
                             "-DCMAKE_CUDA_ARCHITECTURES=86;90"}, 600);
  INFO(tail(unserved.out) + tail(unserved.err));
  CHECK(unserved.exit_code != 0);
  const auto message = std::regex_replace(unserved.err, std::regex("\\s+"), " ");  // CMake wraps its messages
  CHECK(message.find("compute capability 7.5, 8.0 (prebuilt/architectures.txt), none of which runs on 9.0") !=
        std::string::npos);
  fs::remove_all(root);
}
