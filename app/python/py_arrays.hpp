#pragma once
/// @file numpy arrays in and out of the Python module: an input array as the .npy reader would
/// have read it (io::NpyArray), and C++ vectors handed to numpy without a copy.
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

/// `obj` (a numpy array, or anything numpy.asarray accepts) as an io::NpyArray: native byte
/// order, C order, of the dtypes the .npy reader reads (float32, float64, int32, int64, uint8;
/// bool as uint8). Any layout is read in place through its strides: one copy into the result,
/// and no numpy temporary. Throws simscope::Error "NAME: dtype X is not supported; expected
/// ACCEPTED" for other dtypes (complex, float16, object, ...).
io::NpyArray to_npy(const py::handle& obj, const std::string& name, const std::string& accepted);

/// A numpy array of `shape` (C order) that takes over `values` (moved into a capsule that the
/// array owns): no copy.
template <class T>
py::array numpy_from(std::vector<T>&& values, const std::vector<std::size_t>& shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule keep(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  return py::array_t<T>(dims, owned->data(), keep);
}

/// The one place that reads a run's output data (workload.hpp's OutputArray): a numpy array of
/// the output's export dtype and shape, equal to the .npy file the CLI writes for it: moved when
/// held in that dtype by this output alone, else converted as the export converts them.
py::array numpy_of(app::OutputArray&& output);

}  // namespace simscope::python
