#pragma once
/// @file Presets: a workload's parameters saved as JSON.
/// Format: {"simscope_preset": 1, "workload": "field", "params": {...}, "view": {...}}.
/// Free of Qt, so every front end reads them alike.
#include <string>

#include "params/schema.hpp"

namespace simscope::app {

/// Reads a preset file, applies its params onto `params` and returns the workload it names.
/// `params` must already have that workload's schema; call preset_workload() first.
/// Relative file parameters are taken relative to the preset's folder.
/// `view`, if given, receives the preset's "view" object when it has one; its "view.range": "auto",
/// from presets saved before view.range=percentile existed, reads as "minmax", what it drew then.
/// Throws simscope::Error naming the file when it is missing, not JSON (with the offset), not a
/// preset, or has an unknown top-level key, a wrong workload, an unknown name, or a bad value.
/// A name in the wrong section is reported with where it belongs.
void load_preset(const std::string& path, ParamSet& params, ParamSet* view = nullptr);

/// The "workload" a preset file names. Throws simscope::Error as load_preset.
std::string preset_workload(const std::string& path);

/// Writes `params` as a preset atomically (temp file + rename). Throws simscope::Error.
void save_preset(const std::string& path, const ParamSet& params, const ParamSet* view = nullptr);

}  // namespace simscope::app
