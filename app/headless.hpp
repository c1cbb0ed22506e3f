#pragma once
/// @file `simscope --headless`: compute once, render the view offscreen (EGL), export.
#include "cli.hpp"

namespace simscope::app {

/// Runs the headless mode and returns the process exit status (0 ok, 1 error). Prints the paths
/// written on stdout, a progress line with ETA on stderr for long work, errors as one line.
int run_headless(const CliOptions& options);

}  // namespace simscope::app
