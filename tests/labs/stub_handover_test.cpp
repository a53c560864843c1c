// No stub hands over an answer: a kernel of a lab's stub.cu may not be, token for token, a kernel of its reference
// solution, unless the comment right above it in the stub says it is given (lab 04's stage 1, done for you; lab 07's
// stage kernels, whose exercise is the pipeline around them). A staircase lab grades stage k from stage k-1's
// reference, kept in solutions/NN_name/baseline.cu (issue 15).
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `text` without comments and with every run of whitespace one space: kernels compared by their tokens.
std::string normalized(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i);
      if (i == std::string::npos) break;
      ++i;
      continue;
    }
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// The bodies of the `__global__` functions of `source` (normalized), by name.
std::map<std::string, std::string> kernels(const std::string& source) {
  const std::string text = normalized(source);
  std::map<std::string, std::string> out;
  for (std::size_t at = text.find("__global__"); at != std::string::npos; at = text.find("__global__", at + 1)) {
    const std::size_t paren = text.find('(', at), open = text.find('{', at);
    if (paren == std::string::npos || open == std::string::npos) break;
    const std::size_t name_end = text.find_last_not_of(' ', paren - 1) + 1;
    const std::size_t name_begin = text.find_last_of(" *&", name_end - 1) + 1;
    int depth = 0;
    std::size_t close = open;
    for (; close < text.size(); ++close) {
      if (text[close] == '{') ++depth;
      if (text[close] == '}' && --depth == 0) break;
    }
    out[text.substr(name_begin, name_end - name_begin)] = text.substr(open, close - open + 1);
  }
  return out;
}

/// True when the comment lines right above the kernel `name` in `source` say "given" (or "Given").
bool given(const std::string& source, const std::string& name) {
  const std::size_t at = source.find("__global__ void " + name + "(");
  if (at == std::string::npos) return false;
  std::size_t end = source.rfind('\n', at);
  while (end != std::string::npos && end > 0) {
    const std::size_t begin = source.rfind('\n', end - 1);
    const std::string line = source.substr(begin == std::string::npos ? 0 : begin + 1,
                                           end - (begin == std::string::npos ? 0 : begin + 1));
    const std::size_t text = line.find_first_not_of(' ');
    if (text == std::string::npos || line.compare(text, 2, "//") != 0) return false;
    if (line.find("given") != std::string::npos || line.find("Given") != std::string::npos) return true;
    end = begin;
  }
  return false;
}

/// Pairs (stub kernel, solution kernel) with the same body, but for kernels the stub says are given.
std::vector<std::string> handed_over(const std::string& stub, const std::string& solution) {
  std::vector<std::string> same;
  for (const auto& [stub_name, stub_body] : kernels(stub))
    for (const auto& [solution_name, solution_body] : kernels(solution))
      if (stub_body == solution_body && !given(stub, stub_name)) same.push_back(stub_name + " = " + solution_name);
  return same;
}

}  // namespace

TEST_CASE("kernels are found and compared by their tokens, not their names or comments", "[stubs]") {
  const std::string a = "// x\n__global__ void k1(float* y) {\n  if (1) { y[0] = 1; }  // one\n}\n"
                        "__global__ void other(float* y) { y[0] = 2; }\n";
  const std::string b = "__global__ void k2(float* y) { if (1) {   y[0] = 1; } }\n";
  CHECK(kernels(a).size() == 2);
  CHECK(handed_over(a, b) == std::vector<std::string>{"k1 = k2"});
  CHECK(handed_over("__global__ void k(float* y) { y[0] = 3; }", b).empty());
  // A kernel the stub says is given may be the reference's own.
  CHECK(handed_over("// The given kernel:\n__global__ void k1(float* y) { if (1) { y[0] = 1; } }\n", b).empty());
  CHECK(handed_over("// given\n\n__global__ void k1(float* y) { if (1) { y[0] = 1; } }\n", b).size() == 1);
}

TEST_CASE("no stub contains a reference kernel of an exercise that earns performance points", "[stubs]") {
  std::size_t labs = 0;
  for (const auto& entry : fs::directory_iterator(COURSE_SOURCE_DIR "/labs")) {
    const fs::path lab = entry.path();
    const fs::path solution = fs::path(COURSE_SOURCE_DIR) / "solutions" / lab.filename() / "solution.cu";
    if (!fs::exists(lab / "stub.cu") || !fs::exists(solution)) continue;
    ++labs;
    const auto same = handed_over(read(lab / "stub.cu"), read(solution));
    std::string list;
    for (const auto& s : same) list += s + "; ";
    INFO(lab.filename().string() << ": stub kernels identical to reference kernels: " << list);
    CHECK(same.empty());
  }
  CHECK(labs >= 7);
}
