// confined: runs a command that reads only the system's folders and the paths it is given, and writes only into the
// folders it is given (grader/confine.hpp). The build's compiler launcher for a submission (cmake/Contract.cmake):
//
//   confined --read SOURCE --read CONTRACT_DIR --write OBJECT_DIR -- nvcc ...
//
// Its temporary files go to the first --write folder (TMPDIR). Exit: the command's own status; 126 when it could not
// be confined or started. Where the kernel has no Landlock the command runs unconfined (the static check's include
// rule still refuses what it reads by name).
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "grader/confine.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Runs a command that reads only the system's folders and the given paths, and writes only into the "
               "given folders (Landlock)."};
  std::vector<std::string> read, write, command;
  app.add_option("--read", read, "a file or folder the command may read; repeatable");
  app.add_option("--write", write, "a folder the command may write in (the first is its TMPDIR); repeatable");
  app.add_option("command", command, "the command and its arguments, after --")->required();
  app.positionals_at_end();
  CLI11_PARSE(app, argc, argv);

  grader::Confinement confinement;
  for (const auto& r : read) confinement.read.emplace_back(r);
  for (const auto& w : write) confinement.write.emplace_back(w);
  if (!write.empty()) ::setenv("TMPDIR", write.front().c_str(), 1);
  const grader::Ruleset rules(confinement, grader::programs_run_by(command));
  if (!rules.enter()) {
    std::cerr << "confined: cannot confine " << command.front() << "\n";
    return 126;
  }
  std::vector<char*> args;
  for (auto& a : command) args.push_back(a.data());
  args.push_back(nullptr);
  ::execvp(args.front(), args.data());
  std::cerr << "confined: cannot run " << command.front() << "\n";
  return 126;
}
