#pragma once
/// @file The front ends' additions to the run layer's export (export.hpp): view.png, written
/// through Qt with the run's metadata, and the Qt version recorded in run.json.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "export.hpp"

namespace simscope::app {

/// The view image as an ExportFile for export_run: a PNG at `path` of `rgba` (width*height*4
/// bytes, top row first) with text chunks Software, simscope.workload, simscope.params (the
/// result's parameters as name=value lines) and simscope.view (the manifest's render.view as
/// compact JSON). Write errors throw simscope::Error naming the file.
ExportFile view_png_file(const std::string& path, std::vector<std::uint8_t> rgba, int width,
                         int height, const RunResult& result, const Json& manifest);

/// What run.json's "simscope" object adds for the Qt front ends: {"qt": qVersion()}.
std::map<std::string, std::string> front_end_versions();

}  // namespace simscope::app
