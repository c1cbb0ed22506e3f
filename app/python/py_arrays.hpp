#pragma once
/// @file numpy arrays in and out of the Python module.
/// Inputs become io::NpyArray as the .npy reader would read them; C++ vectors go to numpy without
/// a copy.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "io/npy.hpp"
#include "workload.hpp"

namespace simscope::python {

namespace py = pybind11;

/// `obj`, a numpy array or anything numpy.asarray accepts, as an io::NpyArray in native byte
/// order and C order. Takes the .npy reader's dtypes: float32, float64, int32, int64, uint8, and
/// bool as uint8. Any layout is read in place through its strides: one copy, no numpy temporary.
/// Throws simscope::Error "NAME: dtype X is not supported; expected ACCEPTED" for other dtypes.
io::NpyArray to_npy(const py::handle& obj, const std::string& name, const std::string& accepted);

/// A C-order numpy array of `shape` that takes over `values` without a copy.
/// The array owns them through a capsule.
template <class T>
py::array numpy_from(std::vector<T>&& values, const std::vector<std::size_t>& shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule keep(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  return py::array_t<T>(dims, owned->data(), keep);
}

/// A run output (OutputArray) as a numpy array of its export dtype and shape.
/// Equals the .npy file the CLI writes. Values held in place (OutputData::held) in that dtype
/// become the array's memory, which keeps their owner; moved when this output alone holds them
/// in that dtype, else converted as the export converts. The only reader of a run's output data.
py::array numpy_of(app::OutputArray&& output);

}  // namespace simscope::python
