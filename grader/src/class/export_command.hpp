#pragma once
// `grade export`: the command-line side of grader/include/grader/export.hpp (reading files, writing files), kept
// out of main.cpp so that registering it there is one line.

#include <optional>

#include <CLI/CLI.hpp>

namespace grader {

/// Adds the `export` subcommand to `app`. When the command line names it, parsing runs the export and sets
/// `exit_code` (0 written, 1 unreadable input or unwritable output); otherwise `exit_code` is left as it is.
void add_export_command(CLI::App& app, std::optional<int>& exit_code);

}  // namespace grader
