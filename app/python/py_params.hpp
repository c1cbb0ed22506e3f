#pragma once
/// @file The schema from Python: simscope.params(workload), and a ParamSet from keyword
/// arguments checked as `--set NAME=VALUE` checks them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "params/schema.hpp"

namespace simscope::python {

namespace py = pybind11;

/// (dotted name, value as text) pairs, in the order given; the Python layer writes the text
/// (simscope/_params.py: bools as true/false, floats with repr).
using Settings = std::vector<std::pair<std::string, std::string>>;

/// The defaults of `schema` with each setting applied by ParamSet::set_from_string: throws
/// simscope::Error with the CLI's messages ("unknown parameter 'x' for workload 'w' (known:
/// ...)", "parameter grid.size: expected an integer in [2, 4096], got '1'").
ParamSet params_from(const Schema& schema, const Settings& settings);

/// The parameters as a dict name -> typed Python value (int, float, bool or str).
py::dict params_dict(const ParamSet& params);

/// The warning that the settings `names` a caller changed from their defaults are not used,
/// because the arrays `given` replaced what they make: "GIVEN, so a, b are not used (WHY)" ("is"
/// for one name; " (WHY)" left out when `why` is empty), or "" when none of them is changed.
/// Python re-spells the names as keywords (simscope/_params.py: python_warnings).
std::string unused_by_arrays(const ParamSet& params, const std::string& given,
                             const std::vector<std::string>& names, const std::string& why = "");

/// choose_backend(requested) ("auto", "cpu", "cuda"); throws simscope::Error.
BackendChoice backend_from(const std::string& requested);

/// Binds schema(workload), workloads() and check_params().
void bind_params(py::module_& m);

}  // namespace simscope::python
