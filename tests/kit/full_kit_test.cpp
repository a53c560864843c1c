// The student kit of every lab and the Gradescope zip made of it, from one build folder that a ctest fixture prepares
// ("kit.a student kit of every lab and its Gradescope zip are made", make_full_kit.cmake: `make student-kit
// autograder-bundle` in a fresh configure of this tree, which compiles only the references' and baselines' kit
// objects): what ships holds no reference in readable form, neither as PTX, line info, a path of the instructor's
// machine, nor as a line of a solution. kit_test.cpp runs a lab 1 kit and its zip end to end.
#include "fatbin.hpp"
#include "kit_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace kit_test;

namespace {

const fs::path kSource = COURSE_SOURCE_DIR;
const fs::path kMaker = FULL_KIT_BUILD_DIR;  // the fixture's build folder

/// A fresh folder for one test case, removed at its end.
struct Scratch {
  fs::path path = fs::temp_directory_path() / ("course-full-kit-" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

/// The kit's architectures, as this build configured them (COURSE_KIT_SASS_ARCHITECTURES): 75, 80, ...
std::vector<unsigned> kit_architectures() {
  std::vector<unsigned> archs;
  std::istringstream in(KIT_SASS_ARCHITECTURES);
  for (unsigned arch; in >> arch;) archs.push_back(arch);
  return archs;
}

/// cuobjdump where it is installed (on the PATH or beside nvcc), else empty: CI's toolkit has nvcc alone.
std::string cuobjdump() {
  const fs::path beside_nvcc = fs::path(CUDA_COMPILER).parent_path() / "cuobjdump";
  if (fs::is_regular_file(beside_nvcc)) return beside_nvcc.string();
  const auto r = grader::run_process({.argv = {"sh", "-c", "command -v cuobjdump"}, .timeout_s = 10});
  return r.exit_code == 0 ? r.out.substr(0, r.out.find('\n')) : std::string();
}

}  // namespace

TEST_CASE("every prebuilt object of a kit of all labs is SASS for each kit architecture, without PTX, line info or a "
          "path of the course's folders",
          "[kit][cpu]") {
  const Scratch scratch;
  unpack(kMaker / (COURSE_KIT_NAME ".tar.gz"), scratch.path);
  const fs::path kit = scratch.path / COURSE_KIT_NAME;
  const auto archs = kit_architectures();
  REQUIRE_FALSE(archs.empty());
  const std::set<unsigned> wanted(archs.begin(), archs.end());

  // The kit says what a student's GPU needs, and it is what the objects hold.
  std::string listed;
  for (auto arch : archs) listed += (listed.empty() ? "" : " ") + std::to_string(arch);
  CHECK(read_file(kit / "prebuilt" / "architectures.txt") == listed + "\n");

  // Every object the kit build compiles: each lab's reference, and its baseline where solutions/ has one.
  std::vector<std::string> objects;
  for (const auto& lab : fs::directory_iterator(kSource / "labs")) {
    const auto id = lab.path().filename().string();
    if (!std::regex_match(id, std::regex("[0-9][0-9]_.*"))) continue;
    objects.push_back(id + "/reference.o");
    if (fs::exists(kSource / "solutions" / id / "baseline.cu")) objects.push_back(id + "/baseline.o");
  }
  std::sort(objects.begin(), objects.end());
  std::vector<std::string> shipped;
  for (const auto& file : files_under(kit / "prebuilt"))
    if (file.ends_with(".o")) shipped.push_back(file);
  std::sort(shipped.begin(), shipped.end());
  REQUIRE(shipped == objects);

  const auto tool = cuobjdump();
  // Paths a student must not read: the course's source folder, the folder that made the kit, this build's.
  const std::vector<std::string> paths = {kSource.string(), kMaker.string(), fs::path(COURSE_BINARY_DIR).string()};
  // PTX as text, whether a PTX image or line info's copy of it (.nv_debug_ptx_txt) carries it.
  const std::regex ptx_text(R"(fma\.rn\.f32|\.target sm_|\.version [0-9]|\.visible \.entry|ld\.global\.)");
  for (const auto& object : shipped) {
    CAPTURE(object);
    const auto file = kit / "prebuilt" / object;
    const auto bytes = read_file(file);
    const auto images = fatbin_images(bytes);
    std::multiset<unsigned> sass;
    for (const auto& image : images) {
      CAPTURE(image.arch, image.name);
      CHECK(image.kind == FatbinImage::Kind::elf);  // no PTX image (cuobjdump -lptx lists none)
      CHECK((image.name.empty() || image.name.front() != '/'));
      if (image.kind != FatbinImage::Kind::elf) continue;
      CHECK_FALSE(image.sections.empty());  // a plain ELF image (not compressed), whose sections are read next
      for (const char* line_info : {".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt", ".debug_info"})
        CHECK(std::find(image.sections.begin(), image.sections.end(), line_info) == image.sections.end());
      sass.insert(image.arch);
    }
    CHECK(sass == std::multiset<unsigned>(wanted.begin(), wanted.end()));  // one SASS image per kit architecture

    // What `strings` shows a student.
    const auto strings = run({"strings", "-a", file.string()}, 120, {}, bytes.size() + 4096);
    REQUIRE(strings.exit_code == 0);
    CHECK(strings.out.find(".nv_fatbin") != std::string::npos);  // it read the object
    for (const auto& path : paths) {
      CAPTURE(path);
      CHECK(strings.out.find(path) == std::string::npos);
    }
    std::smatch ptx;
    const auto ptx_found = std::regex_search(strings.out, ptx, ptx_text) ? ptx.str() : std::string();
    CHECK(ptx_found == "");

    // cuobjdump's own listings, where it is installed.
    if (!tool.empty()) {
      const auto lptx = run({tool, "-lptx", file.string()}, 120);
      INFO(lptx.out << lptx.err);
      CHECK(lptx.out.find("PTX file") == std::string::npos);
      const auto lelf = run({tool, "-lelf", file.string()}, 120);
      INFO(lelf.out << lelf.err);
      CHECK(lelf.exit_code == 0);
      for (auto arch : archs) {
        CAPTURE(arch);
        CHECK(std::regex_search(lelf.out, std::regex("sm_" + std::to_string(arch) + "[^0-9]")));
      }
    }
  }
}

TEST_CASE("the Gradescope zip of a kit of all labs is that kit with setup.sh and run_autograder, and holds no "
          "solution source",
          "[kit][autograder][cpu]") {
  const Scratch scratch;
  unpack(kMaker / (COURSE_KIT_NAME ".tar.gz"), scratch.path / "kit");
  const fs::path kit = scratch.path / "kit" / COURSE_KIT_NAME;
  const fs::path bundle = scratch.path / "source";  // as Gradescope extracts it: /autograder/source
  unpack(kMaker / "autograder.zip", bundle);

  check_bundle_is_kit(bundle, kit, kSource);
  const auto files = files_under(bundle);
  check_no_instructors_files(files);
  check_no_solution_text(bundle, files, kSource);
}
