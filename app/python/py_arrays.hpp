#pragma once
/// @file numpy arrays in and out of the Python module.
/// Inputs become the run layer's ArrayInput: read in place, or an io::NpyArray as the .npy reader
/// would read them, or a CUDA array's view; C++ vectors go to numpy without a copy.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "arrays/array_input.hpp"
#include "arrays/vocabulary.hpp"
#include "py_dlpack.hpp"
#include "workload.hpp"

namespace simscope::python {

namespace py = pybind11;

/// `obj`, a numpy array or anything numpy.asarray accepts, as an io::NpyArray in native byte
/// order and C order. Takes the .npy reader's dtypes: float32, float64, int32, int64, uint8, and
/// bool as uint8. Any layout is read in place through its strides: one copy, no numpy temporary.
/// Throws simscope::Error "NAME: dtype X is not supported; expected ACCEPTED" for other dtypes.
io::NpyArray to_npy(const py::handle& obj, const std::string& name, const std::string& accepted);

/// `obj` as a DeviceArray (a CUDA array taken through DLPack), or null.
const DeviceArray* device_array(const py::handle& obj);

/// The ArrayInput of a DeviceArray: its view (Kind::Device).
app::ArrayInput device_input(const DeviceArray& a);
/// The ArrayInput of numpy array `a`, read in place through its strides (Kind::InPlace); its
/// dtype one of float32, float64, int32, int64, uint8, native byte order. `a` stays the
/// caller's for the call.
app::ArrayInput in_place_input(const py::array& a);
/// `obj` as an ArrayInput: None (Kind::None), a DeviceArray's view, else a C-order copy
/// (to_npy, with its messages).
app::ArrayInput copy_input(const py::object& obj, const std::string& name,
                           const std::string& accepted);
/// As copy_input, but a 2-D native-endian float32/float64 numpy array, of any strides, is read in
/// place (points such as sources and targets: converted once, through their strides).
app::ArrayInput matrix_input(const py::object& obj, const std::string& name,
                             const std::string& accepted);

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
