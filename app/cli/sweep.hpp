#pragma once
/// @file `simscope --headless --sweep NAME=START:STOP:FRAMES`.
/// Steps one numeric parameter over FRAMES runs. Each run's view goes to DIR/frames/0000.png ...,
/// DIR/sweep.mp4 is made from them when ffmpeg is installed, and DIR/run.json lists every frame's
/// parameters.
#include "run_options.hpp"

namespace simscope::app {

/// Runs every frame and writes the frames, the video and run.json into --out-dir.
/// Shows progress and ETA on stderr. Returns the exit status: 0; 1 with a one-line message on a
/// runtime error; 128 + the signal when stopped by SIGINT or SIGTERM, leaving nothing behind.
int run_sweep(const RunOptions& options);

}  // namespace simscope::app
