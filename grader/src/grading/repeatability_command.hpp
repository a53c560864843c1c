#pragma once
// `grade repeatability`: the command-line side of grader/include/grader/repeatability.hpp (reading the results
// files, printing the goals), kept out of main.cpp so that registering it there is one line.

#include <optional>

#include <CLI/CLI.hpp>

namespace grader {

/// Adds the `repeatability` subcommand to `app`. When the command line names it, parsing runs it and sets
/// `exit_code` (0 every goal met, 4 one missed, 1 an unreadable file); otherwise `exit_code` is left as it is.
void add_repeatability_command(CLI::App& app, std::optional<int>& exit_code);

}  // namespace grader
