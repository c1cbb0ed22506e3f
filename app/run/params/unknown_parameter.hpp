#pragma once
/// @file The message for a parameter name no schema knows (--set, presets).
#include <string>

#include "params/schema.hpp"

namespace simscope::app {

/// "unknown parameter 'x' for workload 'w' (did you mean 'y'?); --list-params w lists them all"
/// when a name of the workload or of the view is near (closest_names); otherwise "unknown
/// parameter 'x' for workload 'w' (known: ...; view parameters (every workload): view.colormap,
/// ...; see --list-params w)": all of them, as --list-params presents them.
std::string unknown_parameter_message(const Schema& workload, const std::string& name);

}  // namespace simscope::app
