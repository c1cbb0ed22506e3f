#pragma once
/// @file A run's result as the Python module returns it: a dict of numpy outputs, warnings,
/// stats and timings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "workload.hpp"

namespace simscope::python {

namespace py = pybind11;

/// {"workload", "outputs": {name: numpy array}, "warnings": [str], "stats": {str: float},
///  "backend": "cpu"|"cuda", "notice": str (the back-end choice's line, may be empty),
///  "compute_seconds", "total_seconds", "params": {name: value}}. The outputs are moved out of
/// `r` (numpy_of).
py::dict result_dict(app::RunResult&& r, const std::string& notice);

/// Binds run(workload, settings, backend, progress, command): any registered workload through
/// its run-layer adapter, as the headless CLI runs it.
void bind_run(py::module_& m);

}  // namespace simscope::python
