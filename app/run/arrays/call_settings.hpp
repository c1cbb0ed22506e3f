#pragma once
/// @file A call's parameters given as (name, text) settings, as `--set NAME=VALUE` gives them,
/// and the warning that arrays a caller gave replace some of them.
#include <string>
#include <utility>
#include <vector>

#include "params/schema.hpp"

namespace simscope::app {

/// (dotted name, value as text) pairs, in the order given; the caller writes the text (the
/// Python module's simscope/_params.py: bools as true/false, floats with repr).
using Settings = std::vector<std::pair<std::string, std::string>>;

/// The defaults of `schema` with each setting applied by ParamSet::set_from_string: throws
/// simscope::Error with the CLI's messages ("unknown parameter 'x' for workload 'w' (known:
/// ...)", "parameter grid.size: expected an integer in [2, 4096], got '1'").
ParamSet params_from(const Schema& schema, const Settings& settings);

/// The warning that the settings `names` a caller changed from their defaults are not used,
/// because the arrays `given` replaced what they make: "GIVEN, so a, b are not used (WHY)" ("is"
/// for one name; " (WHY)" left out when `why` is empty), or "" when none of them is changed.
/// Python re-spells the names as keywords (simscope/_params.py: python_warnings).
std::string unused_by_arrays(const ParamSet& params, const std::string& given,
                             const std::vector<std::string>& names, const std::string& why = "");

}  // namespace simscope::app
