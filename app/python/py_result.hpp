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
/// `r` (numpy_of); with `device` >= 0, outputs still in device memory (OutputData::
/// device_bytes(), not downloaded, held in their exported dtype) are handed out as CUDA DLPack capsules of that device instead
/// (dlpack_of_device: no host copy; simscope/_arrays.py makes the caller's tensors of them).
py::dict result_dict(app::RunResult&& r, const std::string& notice, int device = -1);

/// Binds run(workload, settings, backend, progress, command): any registered workload through
/// its run-layer adapter, as the headless CLI runs it.
void bind_run(py::module_& m);

}  // namespace simscope::python
