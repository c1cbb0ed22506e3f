#pragma once
/// @file `--set NAME=VALUE`: one parameter of a workload or of the view, from text.
#include <string>

#include "params/param_set.hpp"

namespace simscope::app {

/// Sets NAME=VALUE on the workload's parameters, or on the view's when NAME is in view_schema().
/// Throws simscope::Error for an unknown name (unknown_parameter_message) or a bad value.
void set_parameter(ParamSet& params, ParamSet& view, const std::string& name_value);

}  // namespace simscope::app
