#pragma once
/// @file The message for a parameter name no schema knows (--set, presets).
#include <string>

#include "params/schema.hpp"

namespace simscope::app {

/// "unknown parameter 'x' for workload 'w' (did you mean 'y'?) (known: ...; view parameters
/// (every workload): view.colormap, ...; see --list-params w)": the nearest names of the workload
/// and of the view (when one is near), then all of them, as --list-params presents them.
std::string unknown_parameter_message(const Schema& workload, const std::string& name);

}  // namespace simscope::app
