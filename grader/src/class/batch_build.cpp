// grade batch, one student's build: compile the file, statically check the object, link the runner, all by the
// recipe CMake wrote, and lay out a private folder the lab binary can be run from. Every command is a child process run by run_process(), the grader's one way to run anything.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "grader/batch.hpp"
#include "grader/process.hpp"

namespace grader::batch {
namespace {

namespace fs = std::filesystem;
using Kind = BuildOutcome::Kind;

// The compiler's full paths are the private build folder's: the student knows the file by its name.
std::string shorten(std::string text, const fs::path& source) {
  const auto dir = source.parent_path().string() + "/";
  for (auto at = text.find(dir); at != std::string::npos; at = text.find(dir, at)) text.erase(at, dir.size());
  return text;
}

ProcessResult run(const std::vector<std::string>& argv, double timeout_s,
                  std::optional<Confinement> confine = std::nullopt) {
  ProcessOptions p;
  p.argv = argv;
  p.timeout_s = timeout_s;
  if (confine) p.env.emplace_back("TMPDIR", confine->write.front().string());  // its temporary files: its own
  p.confine = std::move(confine);
  return run_process(p);
}

// Why a build step failed, or "" when it succeeded.
std::string failure(const ProcessResult& r, double timeout_s) {
  if (!r.started) return "could not start: " + r.error;
  if (r.timed_out) return fmt::format("took longer than {:g} s", timeout_s);
  if (r.signal != 0) return "killed by " + signal_name(r.signal);
  if (r.exit_code != 0) {
    const auto line = first_error_line(r.err + "\n" + r.out);
    return line.empty() ? fmt::format("exit {}", r.exit_code) : line;
  }
  return "";
}

// A hard link where the file system allows one, else a copy: either way the lab binary's own folder (where it looks
// for runners/) is the private one, which a symbolic link would not give (/proc/self/exe resolves it).
void place_binary(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::remove(to, error);
  fs::create_hard_link(from, to, error);
  if (error) fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

}  // namespace

std::string first_error_line(std::string_view output) {
  std::string last;
  std::size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    // GNU ld's "cannot find -lfoo" carries no "error:", and collect2's summary after it says nothing.
    if (line.find("error") != std::string_view::npos || line.find("refused:") != std::string_view::npos ||
        line.find("undefined reference") != std::string_view::npos || line.find("cannot find") != std::string_view::npos)
      return std::string(line.substr(0, 400));
    last = line.substr(0, 400);
  }
  return last;
}

BuildOutcome build_submission(const Recipe& recipe, const fs::path& source, const fs::path& dir, double timeout_s) {
  const fs::path bin = dir / "bin";
  const fs::path runners = bin / "runners";
  fs::create_directories(runners);
  const auto lab = "lab" + std::to_string(recipe.lab);
  // The student's file is compiled from a private folder of its own, under its own name: what a relative include
  // finds beside it is nothing, not the classmates' files beside the original.
  const fs::path own = dir / "source";
  fs::remove_all(own);
  fs::create_directories(own);
  const fs::path copy = own / source.filename();
  fs::copy_file(source, copy);
  const fs::path object = dir / "student.o";
  const fs::path output = runners / (lab + "-student");
  const std::map<std::string, std::string> values = {
      {"source", copy.string()}, {"object", object.string()}, {"output", output.string()}};
  // The compile reads the system's folders, the copy and the lab's contract, and writes only into its folder.
  const fs::path scratch = dir / "tmp";
  fs::create_directories(scratch);
  const Confinement compile{{copy, recipe.contract}, {scratch, dir}};

  if (auto why = failure(run(expand(recipe.compile, values), timeout_s, compile), timeout_s); !why.empty())
    return {Kind::kCompileError, "compile error: " + shorten(why, copy), {}};
  if (!recipe.check.empty()) {
    const auto checked = run(expand(recipe.check, values), timeout_s);
    if (auto why = failure(checked, timeout_s); !why.empty()) {
      const auto at = why.find("refused: ");
      if (checked.exit_code == 1 && at != std::string::npos) return {Kind::kRefused, why.substr(at), {}};
      return {Kind::kRefused, "refused: the static check failed: " + why, {}};
    }
  }
  if (auto why = failure(run(expand(recipe.link, values), timeout_s), timeout_s); !why.empty())
    return {Kind::kLinkError, "link error: " + why, {}};

  place_binary(recipe.lab_binary, bin / lab);
  // The other implementations the lab binary times against: the course's own runners, by symbolic link.
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(recipe.runners_dir, error)) {
    const auto name = entry.path().filename().string();
    if (name.rfind(lab + "-", 0) != 0 || name == lab + "-student") continue;
    fs::create_symlink(fs::absolute(entry.path()), runners / name);
  }
  return {Kind::kBuilt, "", bin};
}

void write_atomically(const fs::path& file, const nlohmann::json& value) {
  fs::create_directories(file.parent_path());
  const fs::path temporary = file.parent_path() / fmt::format(".{}.{}.tmp", file.filename().string(), ::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << value.dump(2) << "\n";
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  // Flushed to the disk before the rename, so a machine that dies leaves the old file or the whole new one.
  if (FILE* f = std::fopen(temporary.c_str(), "r")) {
    ::fsync(::fileno(f));
    std::fclose(f);
  }
  fs::rename(temporary, file);
}

}  // namespace grader::batch
