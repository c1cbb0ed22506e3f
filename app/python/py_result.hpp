#pragma once
/// @file A run's result as the Python module returns it: a dict of numpy outputs, warnings,
/// stats and timings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "workload.hpp"

namespace simscope::python {

namespace py = pybind11;

/// The result dict:
/// {"workload", "outputs": {name: numpy array}, "warnings": [str], "stats": {str: float},
///  "backend": "cpu"|"cuda", "notice": str, "compute_seconds", "total_seconds",
///  "params": {name: value}}. "notice" is the back-end choice's line and may be empty.
/// Outputs are moved out of `r` (numpy_of). With `device` >= 0, outputs still in device memory
/// (OutputData::device_bytes(), held in their exported dtype) are returned as CUDA DLPack
/// capsules of that device, without a host copy (dlpack_of_device).
py::dict result_dict(app::RunResult&& r, const std::string& notice, int device = -1);

/// Binds run(workload, settings, backend, progress, command): runs any registered workload through
/// its run-layer adapter, as the headless CLI does.
void bind_run(py::module_& m);

}  // namespace simscope::python
