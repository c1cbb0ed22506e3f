#pragma once
/// @file The front ends' additions to the run layer's export (export.hpp).
/// view.png with the run's metadata, and the front end's library versions in run.json.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "output/export.hpp"

namespace simscope::app {

/// The view image as an ExportFile for export_run: a PNG at `path` of `rgba`, width*height*4 bytes,
/// top row first. Text chunks: Software, simscope.workload, simscope.params (the result's
/// parameters as name=value lines) and simscope.view (the manifest's render.view as compact JSON).
/// Write errors throw simscope::Error naming the file.
ExportFile view_png_file(const std::string& path, std::vector<std::uint8_t> rgba, int width,
                         int height, const RunResult& result, const Json& manifest);

/// Records a library the front end runs on for run.json's "simscope" object, e.g.
/// ("qt", qVersion()). Thread-safe.
void add_front_end_version(const std::string& library, const std::string& version);
/// What run.json's "simscope" object adds: the versions recorded so far, e.g. {"qt": "6.4.2"}.
std::map<std::string, std::string> front_end_versions();

}  // namespace simscope::app
