#pragma once
/// @file `simscope --headless`: compute once, render the view offscreen (EGL), export.
#include "run_options.hpp"

namespace simscope::app {

/// Runs the headless mode and returns the process exit status.
/// 0 ok; 1 error; 2 a refused --resume, or a new study over an interrupted one's checkpoint; 130 or
/// 143 when stopped by SIGINT or SIGTERM. Prints the paths written on stdout, a progress line with
/// ETA on stderr for long work, and errors as one line. A study keeps a checkpoint in
/// DIR/checkpoint (oscillators/study_checkpoint.hpp), removed once the outputs are written, and
/// --resume continues from it. SIGINT and SIGTERM cancel the run: a study writes its checkpoint,
/// one line says how to resume, and no outputs are written.
int run_headless(const RunOptions& options);

}  // namespace simscope::app
