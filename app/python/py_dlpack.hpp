#pragma once
/// @file DLPack (Debian's libdlpack-dev, dlpack/dlpack.h) in the C++ part of the module: CUDA
/// arrays in (a consumed "dltensor" capsule read into host memory) and results that stay in
/// device memory out (a "dltensor" capsule over an OutputData, which keeps the memory alive).
/// Host DLPack objects go through numpy.from_dlpack in simscope/_arrays.py instead (no copy).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "output_data.hpp"

namespace simscope::python {

namespace py = pybind11;

/// A "dltensor" capsule (what obj.__dlpack__() returns) of a CUDA array (kDLCUDA or
/// kDLCUDAManaged) as a host numpy array of the same dtype (float32, float64, int32, int64,
/// uint8) and shape, C order: the array's bytes copied once from the device
/// (copy_device_to_host; strided arrays are refused). The capsule is consumed (renamed
/// "used_dltensor", its deleter called). Throws simscope::Error naming `name` for another
/// device type, a dtype the inputs do not take, strides that are not C order, or a capsule that
/// was already used; the copy's device failure as simscope::Error "device memory: ...".
py::array host_from_dlpack(const py::capsule& capsule, const std::string& name);

/// A "dltensor" capsule (kDLCUDA, device `device`, float32, C order, `shape`) over the device
/// values of `data` (data.device() must not be null): the capsule's DLManagedTensor holds a
/// copy of `data`, so the device memory stays allocated while the consumer (torch.from_dlpack,
/// cupy.from_dlpack) holds it, whatever simscope frees or computes later; the deleter drops it.
py::capsule dlpack_of_device(const app::OutputData& data, const std::vector<std::size_t>& shape,
                             int device);

/// Binds _core.host_from_dlpack(capsule, name).
void bind_dlpack(py::module_& m);

}  // namespace simscope::python
