#pragma once
/// @file The schema from Python: simscope.params(workload), and a ParamSet from keyword
/// arguments checked as `--set NAME=VALUE` checks them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "arrays/call_settings.hpp"
#include "arrays/vocabulary.hpp"
#include "params/schema.hpp"

namespace simscope::python {

namespace py = pybind11;

/// The settings of a call (app/run/arrays/call_settings.hpp).
using app::Settings;
using app::params_from;

/// The parameters as a dict name -> typed Python value (int, float, bool or str).
py::dict params_dict(const ParamSet& params);

/// choose_backend(requested) ("auto", "cpu", "cuda"); throws simscope::Error.
BackendChoice backend_from(const std::string& requested);

/// Binds schema(workload), workloads() and check_params().
void bind_params(py::module_& m);

}  // namespace simscope::python
