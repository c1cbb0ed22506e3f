#pragma once
/// @file What a sweep leaves besides its frames: DIR/sweep.mp4 and DIR/run.json.
/// Used by headless --sweep and the window's sweep panel.
#include <string>

#include "output/json.hpp"
#include "view/sweep_spec.hpp"

namespace simscope::app {

/// Makes DIR/sweep.mp4 from DIR/frames/%04d.png with ffmpeg found on PATH.
/// H.264, 10 frames per second, sizes padded to even, at most 10 minutes. Returns its path, or ""
/// with `note` saying why: no ffmpeg, or its error.
std::string make_sweep_video(const std::string& dir, std::string& note);

/// The sweep's run.json: workload, back end, versions, {"sweep": param, start, stop, frames,
/// video} and `frames`, one object per frame with file, value, params, view, compute_seconds.
Json sweep_manifest(const std::string& workload, const std::string& backend, const SweepSpec& spec,
                    const std::string& video, const Json& frames);

/// Writes `j` as indented JSON to `path`, whole or not at all. Throws simscope::Error naming
/// the path.
void write_json_file(const std::string& path, const Json& j);

}  // namespace simscope::app
