#pragma once
/// @file The simscope command line (QCommandLineParser): what `simscope --help` lists. Qt
/// stays inside app/cli: this header is plain C++.
#include <optional>
#include <string>
#include <vector>

#include "run_options.hpp"

namespace simscope::app {

/// Result of parsing: either options, or an exit code with text already printed
/// (--help, --version: 0; usage errors: 2, with a one-line message on stderr).
struct CliParse {
  std::optional<RunOptions> options;
  int exit_code = 0;
};

/// Parses `args` (argv, program name first; UTF-8).
CliParse parse_command_line(const std::vector<std::string>& args);

/// This process' command line: makes the Qt application object, kept for the process' life
/// (the window's QSettings need it), sets the C library's number format back to "C" (Qt sets
/// it from the environment: numbers in files, --set values, JSON and outputs are C-locale
/// text, "0.5", never "0,5"), and parses argv as parse_command_line does.
CliParse parse_process_command_line(int& argc, char** argv);

}  // namespace simscope::app
