// autograder/run_autograder end to end against a fake /autograder root (AUTOGRADER_ROOT): the submission, the course's
// lab folders and the real `grade` are real; only cmake is replaced (tests/fakes/fake_cmake.sh places the fake lab
// binary where the build would put lab1, and fails like nvcc on a source containing FAKE_COMPILE_ERROR). Every
// results.json it writes, failures included, must pass the Gradescope schema of tests/grader/data.

#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "json_schema.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;
using grader_test::Env;
using grader_test::read_text;
using grader_test::TempDir;
using grader_test::write_text;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kCourse = fs::path(COURSE_LABS_DIR).parent_path();
const fs::path kFakes = fs::path(FAKE_LABS_DIR).parent_path();

// A fake /autograder: source/labs/01_fake (the fake lab's manifest), the course's own autograder/course.env (the
// shipped settings), an empty submission/ and results/. source/ has what run_autograder reads of the real zip
// (autograder/bundle.cmake: the student kit, its labs/, and autograder/course.env); tests/kit/kit_test.cpp runs
// it on that zip with the real build.
struct AutograderRoot {
  TempDir dir;
  AutograderRoot() {
    fs::create_directories(dir.path / "source" / "labs");
    fs::create_directories(dir.path / "source" / "autograder");
    fs::copy(kFakes / "labs" / "01_fake", dir.path / "source" / "labs" / "01_fake");
    fs::copy(kCourse / "autograder" / "course.env", dir.path / "source" / "autograder" / "course.env");
    fs::create_directories(dir.path / "submission");
  }
  fs::path submission() const { return dir.path / "submission"; }

  // Runs run_autograder; returns its results.json (null if none) and what it printed.
  std::pair<json, grader::ProcessResult> run(Env env = {}) const {
    grader::ProcessOptions options;
    options.argv = {"bash", (kCourse / "autograder" / "run_autograder").string()};
    options.env = {{"AUTOGRADER_ROOT", dir.path.string()},
                   {"AUTOGRADER_CMAKE", (kFakes / "fake_cmake.sh").string()},
                   {"AUTOGRADER_LABS", ""},
                   {"FAKE_CMAKE_LOG", (dir.path / "cmake.log").string()},
                   {"FAKE_LAB_BINARY", (fs::path(FAKE_BIN_DIR) / "lab1").string()},
                   {"GRADE_BINARY", GRADE_EXE},
                   {"FAKE_LAB_MODE", ""}};
    for (auto& [name, value] : env) {
      auto known = std::find_if(options.env.begin(), options.env.end(), [&](auto& kv) { return kv.first == name; });
      if (known != options.env.end()) known->second = value;
      else options.env.emplace_back(name, value);
    }
    options.timeout_s = 90;
    auto process = grader::run_process(options);
    const auto file = dir.path / "results" / "results.json";
    json results = fs::exists(file) ? json::parse(read_text(file), nullptr, false) : json(nullptr);
    return {results, process};
  }
};

void check_gradescope_schema(const json& results) {
  const auto problems = grader_test::schema_problems(
      results, json::parse(read_text(fs::path(GRADER_TEST_DATA_DIR) / "gradescope-results.schema.json")));
  CAPTURE(problems, results.dump(2));
  CHECK(problems.empty());
}

// A failed submission's results: valid, score 0, no tests, and `message` in its output.
void check_zero_with(const json& results, const std::string& message) {
  REQUIRE(results.is_object());
  check_gradescope_schema(results);
  CHECK(results["score"] == 0);
  CHECK(results["tests"].empty());
  CHECK_THAT(results["output"].get<std::string>(), ContainsSubstring(message));
  CHECK(results["output_format"] == "text");  // Gradescope's HTML default would drop a compiler's <...>
}

}  // namespace

TEST_CASE("run_autograder builds the submitted lab file, grades it and writes Gradescope's results.json",
          "[grader][autograder]") {
  const AutograderRoot root;
  const std::string kernel = "// Alice's kernels\n__global__ void scale() {}\n";
  write_text(root.submission() / "kernels" / "lab1.cu", kernel);
  const auto [results, process] = root.run({{"FAKE_LAB_MODE", "wrong:gemm"}});
  INFO(process.out << process.err);
  CHECK(process.exit_code == 0);
  REQUIRE(results.is_object());
  check_gradescope_schema(results);
  CHECK(results["score"].get<double>() > 10);  // copy full marks, gemm's correctness points in part
  CHECK(results["score"].get<double>() < 20);
  CHECK(results["output_format"] == "text");
  REQUIRE(results["tests"].size() == 2);
  CHECK(results["tests"][0]["name"] == "lab1 copy");
  CHECK(results["tests"][0]["status"] == "passed");
  CHECK(results["tests"][1]["status"] == "failed");

  // The course was configured for lab 1 only, with a copy of the submitted file as lab 1's student source.
  const auto copy = root.dir.path / "work" / "submission" / "lab1.cu";
  CHECK(read_text(copy) == kernel);
  const auto calls = read_text(root.dir.path / "cmake.log");
  CHECK_THAT(calls, ContainsSubstring("-DCOURSE_LABS=01_fake -DLAB1_STUDENT_SOURCE=" + copy.string()));
  CHECK_THAT(calls, ContainsSubstring("--target lab1 grade"));
  // Sanitized, as a class grade is (course.env): the tool ran, or grade said it is not installed.
  CHECK_THAT(read_text(root.dir.path / "work" / "grade.log"), ContainsSubstring("compute-sanitizer"));
}

TEST_CASE("a submission without a lab file scores 0 with a message saying what to submit", "[grader][autograder]") {
  const AutograderRoot root;
  write_text(root.submission() / "README.txt", "my kernels are in the mail");
  const auto [results, process] = root.run();
  INFO(process.out << process.err);
  CHECK(process.exit_code == 0);
  check_zero_with(results, "no lab file in the submission: submit your kernels as labN.cu");
  CHECK_FALSE(fs::exists(root.dir.path / "cmake.log"));  // nothing was built
}

TEST_CASE("a build that fails scores 0 and shows its first error as the student named the file",
          "[grader][autograder]") {
  const AutograderRoot root;
  SECTION("the compiler's") {
    write_text(root.submission() / "lab1.cu", "// line 1\nFAKE_COMPILE_ERROR;\n");
    const auto [results, process] = root.run();
    INFO(process.out << process.err);
    check_zero_with(results, "compile error: lab1.cu(2): error: identifier \"FAKE_COMPILE_ERROR\" is undefined");
  }
  SECTION("the static check's, not make's line after it") {
    write_text(root.submission() / "lab1.cu", "// FAKE_REFUSED\n");
    const auto [results, process] = root.run();
    INFO(process.out << process.err);
    check_zero_with(results, "compile error: lab1.cu: refused: calls 'cudaStreamCreate' (rule 'streams'");
  }
}

TEST_CASE("the assignment's labs must all be submitted, and only once each", "[grader][autograder]") {
  const AutograderRoot root;
  write_text(root.submission() / "lab1.cu", "// lab 1\n");
  SECTION("the assignment names a lab the course does not have") {
    const auto [results, process] = root.run({{"AUTOGRADER_LABS", "1 2"}});
    INFO(process.out << process.err);
    check_zero_with(results, "lab 2 is not a lab of this course");  // the course (fake) has lab 1 only
  }
  SECTION("a lab file is missing") {
    write_text(root.dir.path / "source" / "labs" / "02_more" / "manifest.json", "{}");
    const auto [results, process] = root.run({{"AUTOGRADER_LABS", "1 2"}});
    INFO(process.out << process.err);
    check_zero_with(results, "no lab2.cu in the submission: this assignment grades lab1.cu lab2.cu");
  }
  SECTION("two files claim the same lab") {
    write_text(root.submission() / "old \"try\" \\ 2" / "lab1.cu", "// lab 1, an older try\n");
    const auto [results, process] = root.run();
    INFO(process.out << process.err);
    // The folder's quote and backslash reach the student intact through run_autograder's own JSON.
    check_zero_with(results, "two files named lab1.cu in the submission");
    CHECK_THAT(results["output"].get<std::string>(), ContainsSubstring("old \"try\" \\ 2/lab1.cu"));
  }
  SECTION("two files claim the same lab, one in a folder whose name reads like an HTML tag") {
    write_text(root.submission() / "std::vector<int, std::allocator<int>>" / "lab1.cu", "// lab 1 again\n");
    const auto [results, process] = root.run();
    INFO(process.out << process.err);
    check_zero_with(results, "std::vector<int, std::allocator<int>>/lab1.cu");
  }
}

TEST_CASE("a grading machine without a GPU scores 0 and says that it is not the submission's fault",
          "[grader][autograder]") {
  const AutograderRoot root;
  write_text(root.submission() / "lab1.cu", "// lab 1\n");
  const auto [results, process] = root.run({{"FAKE_LAB_MODE", "no_gpu"}});
  INFO(process.out << process.err);
  check_zero_with(results, "the grading machine sees no GPU: the course's fault, not your submission's");
}
