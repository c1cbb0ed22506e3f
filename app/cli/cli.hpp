#pragma once
/// @file The simscope command line (QCommandLineParser): what `simscope --help` lists.
#include <QStringList>
#include <optional>

#include "run_options.hpp"

namespace simscope::app {


/// Result of parsing: either options, or an exit code with text already printed
/// (--help, --version: 0; usage errors: 2, with a one-line message on stderr).
struct CliParse {
  std::optional<RunOptions> options;
  int exit_code = 0;
};

/// Parses `args` (argv as QStrings, program name first).
CliParse parse_command_line(const QStringList& args);

}  // namespace simscope::app
