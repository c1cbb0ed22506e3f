#pragma once
/// @file The simscope command line (QCommandLineParser): what `simscope --help` lists.
/// Plain C++ header; Qt stays inside app/cli.
#include <optional>
#include <string>
#include <vector>

#include "run_options.hpp"

namespace simscope::app {

/// Result of parsing: options, or an exit code with its text already printed.
/// --help and --version give 0; usage errors give 2 with a one-line message on stderr.
struct CliParse {
  std::optional<RunOptions> options;
  int exit_code = 0;
};

/// Parses `args`: argv in UTF-8, program name first.
CliParse parse_command_line(const std::vector<std::string>& args);

/// Parses this process' command line as parse_command_line does.
/// Creates the Qt application object, kept for the process' life since the window's QSettings need
/// it. Resets the C library's number format to "C", so numbers in files, --set values, JSON and
/// outputs read and write "0.5", never "0,5".
CliParse parse_process_command_line(int& argc, char** argv);

}  // namespace simscope::app
