// grade batch --slurm: the class as a Slurm job array, one shard of the sorted students per task and GPU, and a
// merge job that runs once every shard has ended. The shards share the results folder (a file system every node
// sees); each writes only its own students' files, and the merge job makes class.json of them (docs/batch.md).

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "grader/batch.hpp"

namespace grader::batch {
namespace {

namespace fs = std::filesystem;

// One word for the shell, whatever it holds.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_script(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
  fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
}

}  // namespace

SlurmScripts write_slurm_scripts(const SlurmPlan& plan, const fs::path& dir) {
  fs::create_directories(dir);
  SlurmScripts s{dir / "batch.sbatch", dir / "merge.sbatch", ""};
  std::string header = "#!/bin/bash\n";
  const auto common = [&](const std::string& name, const std::string& log) {
    std::string text = fmt::format("#SBATCH --job-name={}\n#SBATCH --output={}\n", name, (dir / log).string());
    if (!plan.partition.empty()) text += fmt::format("#SBATCH --partition={}\n", plan.partition);
    if (!plan.time_limit.empty()) text += fmt::format("#SBATCH --time={}\n", plan.time_limit);
    return text;
  };

  std::string batch = header + "# Written by `grade batch --slurm` (docs/batch.md): one shard of the class per array "
                               "task, on a GPU of its own.\n";
  batch += common("grade-batch", "shard-%a.log");
  batch += fmt::format("#SBATCH --array=0-{}\n#SBATCH --ntasks=1\n", plan.array_size - 1);
  if (!plan.gres.empty()) batch += fmt::format("#SBATCH --gres={}\n", plan.gres);
  batch += "set -eu\nexec " + quoted(plan.grade.string()) + " batch";
  for (const auto& arg : plan.batch_args) batch.append(" ").append(quoted(arg));
  batch += " --results " + quoted(plan.results.string()) +
           " --shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\"\n";
  write_script(s.batch, batch);

  std::string merge = header + "# Written by `grade batch --slurm`: runs once every shard has ended, and combines "
                               "what they recorded into class.json.\n";
  merge += common("grade-merge", "merge.log");
  merge += "set -eu\nexec " + quoted(plan.grade.string()) + " merge " + quoted(plan.results.string()) + " --output " +
           quoted((plan.results / "class.json").string()) + "\n";
  write_script(s.merge, merge);

  // afterany: a shard that failed (a node lost) still leaves the others' students to merge; running the batch
  // again grades only what is missing.
  s.submit_command = fmt::format("jid=$(sbatch --parsable {}) && sbatch --dependency=afterany:\"${{jid%%;*}}\" {}",
                                 quoted(s.batch.string()), quoted(s.merge.string()));
  return s;
}

}  // namespace grader::batch
