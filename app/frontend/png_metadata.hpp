#pragma once
/// @file The text chunks that say what made a simscope PNG, so the file alone tells: view.png,
/// the window's screenshots and view images, and the frames of sweeps and recordings.
#include <map>
#include <string>

#include "params/param_set.hpp"

namespace simscope::app {

/// The text every simscope PNG carries: Software ("simscope VERSION"), simscope.workload
/// (`workload`) and simscope.params (`params` as name=value lines, params_json.hpp's to_text).
/// Callers add their own keys, e.g. simscope.view.
std::map<std::string, std::string> png_metadata(const std::string& workload,
                                                const ParamSet& params);

}  // namespace simscope::app
