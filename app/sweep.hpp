#pragma once
/// @file Parameter sweeps: one numeric parameter stepped from START to STOP over FRAMES runs,
/// each run's view rendered to DIR/frames/0000.png ..., DIR/sweep.mp4 made from them when
/// ffmpeg is installed, and DIR/run.json listing every frame's parameters.
#include <string>
#include <vector>

#include "core/params.hpp"
#include "json.hpp"

namespace simscope::app {

struct CliOptions;

/// A sweep: `param` from `start` to `stop` in `frames` evenly spaced values, both ends included.
struct SweepSpec {
  std::string param;
  double start = 0, stop = 0;
  int frames = 0;  ///< >= 2
};

/// Parses "NAME=START:STOP:FRAMES" (FRAMES an integer 2 ... 100000). Throws simscope::Error
/// "--sweep expects NAME=START:STOP:FRAMES ..." naming the text.
SweepSpec parse_sweep(const std::string& text);

/// The parameter sets of the sweep: `base` with the parameter set to each value (Int parameters
/// rounded to the nearest integer). Throws simscope::Error naming the parameter when it is not
/// an Int or Float parameter of the schema, or when a value is outside its range.
std::vector<ParamSet> sweep_params(const ParamSet& base, const SweepSpec& spec);

/// The caption drawn on frame k (0-based) of a sweep: "NAME = VALUE  (frame k+1 of FRAMES)".
std::string sweep_caption(const SweepSpec& spec, const ParamSet& frame, std::size_t k);

/// DIR/sweep.mp4 from DIR/frames/%04d.png through ffmpeg (H.264, 10 frames per second, sizes
/// padded to even). Returns its path, or "" with `note` saying why there is none (no ffmpeg, or
/// its error).
std::string make_sweep_video(const std::string& dir, std::string& note);

/// The sweep's run.json: workload, back end, versions, {"sweep": param, start, stop, frames,
/// video} and `frames` (one object per frame: file, value, params, view, compute_seconds).
Json sweep_manifest(const std::string& workload, const std::string& backend, const SweepSpec& spec,
                    const std::string& video, const Json& frames);

/// Writes `j` as indented JSON to `path`. Throws simscope::Error naming the path.
void write_json_file(const std::string& path, const Json& j);

/// `simscope --headless --sweep ...`: runs every frame, writes the frames, the video (ffmpeg)
/// and run.json into --out-dir; progress and ETA on stderr. Returns the exit status (0; 1 with
/// a one-line message on a runtime error).
int run_sweep(const CliOptions& options);

}  // namespace simscope::app
