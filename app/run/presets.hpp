#pragma once
/// @file Presets: a workload's parameters saved as JSON,
/// {"simscope_preset": 1, "workload": "field", "params": {...}, "view": {...}}. In the run layer
/// (nlohmann-json, no Qt): every front end (GUI, CLI, Python, MPI ranks) reads them alike.
#include <string>

#include "params/schema.hpp"

namespace simscope::app {

/// Reads a preset file. Relative file parameters (e.g. sources.file) are taken relative to the
/// preset's folder. Returns the workload it names; applies its params onto `params` (which
/// must already have that workload's schema: call preset_workload() first to choose it).
/// Throws simscope::Error naming the file: missing, not JSON (with the offset), not a preset,
/// a top-level key other than simscope_preset, workload, params and view, wrong workload, an
/// unknown name (a view setting under "params" or a parameter under "view" is told where it
/// belongs), bad values.
/// `view` (optional) receives the preset's "view" object, when it has one.
void load_preset(const std::string& path, ParamSet& params, ParamSet* view = nullptr);

/// The "workload" a preset file names. Throws simscope::Error as load_preset.
std::string preset_workload(const std::string& path);

/// Writes `params` as a preset (atomically: temp file + rename). Throws simscope::Error.
void save_preset(const std::string& path, const ParamSet& params, const ParamSet* view = nullptr);

}  // namespace simscope::app
