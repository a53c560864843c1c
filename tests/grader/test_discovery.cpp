// Lab discovery (labs/NN_name/ with a manifest.json) and the forms a LAB argument may take.

#include <catch2/catch_test_macros.hpp>

#include "grader/discovery.hpp"
#include "support.hpp"

using grader::discover_labs;
using grader::find_lab;

TEST_CASE("every NN_name folder with a manifest is a lab, sorted by number", "[grader][discovery]") {
  const grader_test::TempDir dir;
  for (const char* lab : {"02_divergence", "01_coalescing", "10_tensor_cores", "notalab", "xx_name"})
    grader_test::write_text(dir.path / lab / "manifest.json", "{}");
  std::filesystem::create_directories(dir.path / "03_no_manifest");
  grader_test::write_text(dir.path / "04_file", "not a folder");

  const auto labs = discover_labs(dir.path);
  REQUIRE(labs.size() == 3);
  CHECK(labs[0].number == 1);
  CHECK(labs[0].id == "01_coalescing");
  CHECK(labs[0].manifest == dir.path / "01_coalescing" / "manifest.json");
  CHECK(labs[1].number == 2);
  CHECK(labs[2].number == 10);
  CHECK(labs[2].id == "10_tensor_cores");
  CHECK(discover_labs(dir.path / "missing").empty());
}

TEST_CASE("a LAB argument may be lab1, 1, 01, the folder name or its name part", "[grader][discovery]") {
  const grader_test::TempDir dir;
  for (const char* lab : {"01_coalescing", "02_divergence", "10_tensor_cores"})
    grader_test::write_text(dir.path / lab / "manifest.json", "{}");
  const auto labs = discover_labs(dir.path);

  for (const char* arg : {"lab1", "1", "01", "001", "01_coalescing", "coalescing"}) {
    CAPTURE(arg);
    const auto* lab = find_lab(labs, arg);
    REQUIRE(lab != nullptr);
    CHECK(lab->number == 1);
  }
  CHECK(find_lab(labs, "lab10")->id == "10_tensor_cores");
  CHECK(find_lab(labs, "divergence")->number == 2);
  for (const char* arg : {"lab3", "3", "99", "lab", "", "02_coalescing", "labx"}) {
    CAPTURE(arg);
    CHECK(find_lab(labs, arg) == nullptr);
  }
  CHECK(grader::lab_binary("/build", 10) == std::filesystem::path("/build/lab10"));
}

// Lab numbers start at 0 (labs/00_gpu_budget, the primer): a number 0 is a lab like any other, never "no number".
TEST_CASE("a lab numbered 00 is lab 0: sorted first and chosen by lab0, 0, 00 or its name", "[grader][discovery]") {
  const grader_test::TempDir dir;
  for (const char* lab : {"01_coalescing", "00_gpu_budget", "10_tensor_cores"})
    grader_test::write_text(dir.path / lab / "manifest.json", "{}");
  const auto labs = discover_labs(dir.path);
  REQUIRE(labs.size() == 3);
  CHECK(labs[0].number == 0);
  CHECK(labs[0].id == "00_gpu_budget");
  CHECK(labs[1].number == 1);
  for (const char* arg : {"lab0", "0", "00", "000", "00_gpu_budget", "gpu_budget"}) {
    CAPTURE(arg);
    const auto* lab = find_lab(labs, arg);
    REQUIRE(lab != nullptr);
    CHECK(lab->id == "00_gpu_budget");
  }
  CHECK(find_lab(labs, "lab1")->number == 1);
  CHECK(find_lab(labs, "lab10")->number == 10);
  CHECK(grader::lab_binary("/build", 0) == std::filesystem::path("/build/lab0"));
}
