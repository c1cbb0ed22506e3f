#pragma once
/// @file `simscope --headless --sweep NAME=START:STOP:FRAMES`: one numeric parameter stepped
/// over FRAMES runs, each run's view rendered to DIR/frames/0000.png ..., DIR/sweep.mp4 made
/// from them when ffmpeg is installed, and DIR/run.json listing every frame's parameters.
#include "run_options.hpp"

namespace simscope::app {

/// Runs every frame, writes the frames, the video (ffmpeg) and run.json into --out-dir; progress
/// and ETA on stderr. Returns the exit status (0; 1 with a one-line message on a runtime error;
/// 128 + the signal when stopped by SIGINT or SIGTERM, nothing left behind).
int run_sweep(const RunOptions& options);

}  // namespace simscope::app
