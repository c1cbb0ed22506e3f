#pragma once
/// @file ParamSet <-> JSON (presets, run.json) through nlohmann-json (json.hpp), and as text for
/// image metadata. No Qt, so a Python module or an MPI rank reads presets as the app does.
#include <string>

#include "output/json.hpp"
#include "params/schema.hpp"

namespace simscope::app {

/// {"grid.size": 128, "plane": "xy", ...}: ints as integers, floats as numbers, bools, strings.
/// Whole floats below 2^53 are written as integers (json_number).
Json params_to_json(const ParamSet& params);

/// Applies every key of the JSON object `json` to `params`, all or nothing; keys not present
/// keep their value. A string is parsed as the parameter's text form; a boolean is a Bool. A
/// number is an Int when the parameter is an Int and the number is whole and fits in 64 bits,
/// kept exactly (a seed of 2^53 + 1 meets the range check as itself); else a Float. Throws
/// simscope::Error naming `origin`, e.g. the preset file, and the parameter at fault: unknown
/// names, wrong types (null, arrays, objects), out-of-range values.
void apply_json(ParamSet& params, const Json& json, const std::string& origin);

/// The parameters as "name=value" lines, for PNG text metadata.
std::string to_text(const ParamSet& params);

}  // namespace simscope::app
