// numpy arrays in and out of the Python module (py_arrays.hpp).
#include "py_arrays.hpp"

#include <cstdint>
#include <cstring>

namespace simscope::python {

namespace {

/// The .npy dtype of a numpy dtype, or false when the reader has none.
bool dtype_of(const py::dtype& d, io::DType& out) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'f' && size == 4) return out = io::DType::Float32, true;
  if (kind == 'f' && size == 8) return out = io::DType::Float64, true;
  if (kind == 'i' && size == 4) return out = io::DType::Int32, true;
  if (kind == 'i' && size == 8) return out = io::DType::Int64, true;
  if ((kind == 'u' || kind == 'b') && size == 1) return out = io::DType::UInt8, true;
  return false;
}

std::string dtype_name(const py::dtype& d) { return d.attr("name").cast<std::string>(); }

}  // namespace

io::NpyArray to_npy(const py::handle& obj, const std::string& name, const std::string& accepted) {
  py::array a = py::array::ensure(obj);
  if (!a)
    throw Error(name + ": expected an array (" + accepted + "), got " +
                py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  io::NpyArray out;
  if (!dtype_of(a.dtype(), out.dtype))
    throw Error(name + ": dtype " + dtype_name(a.dtype()) + " is not supported; expected " +
                accepted);
  const int nd = int(a.ndim());
  out.shape.assign(a.shape(), a.shape() + nd);
  const std::size_t size = std::size_t(a.size()), item = std::size_t(a.itemsize());
  out.data.resize(size * item);
  const char order = a.dtype().attr("byteorder").cast<std::string>()[0];
  const bool swap = order == '>';  // numpy's '=' and '|' are native; '<' is native here
  const auto* src = static_cast<const std::uint8_t*>(a.data());
  std::uint8_t* dst = out.data.data();
  if ((a.flags() & py::array::c_style) && !swap) {
    if (size) std::memcpy(dst, src, size * item);
  } else {
    // Any strides, e.g. Fortran order, slices, negative steps: element by element, C order.
    std::vector<py::ssize_t> idx(std::size_t(nd), 0);
    for (std::size_t e = 0; e < size; ++e) {
      py::ssize_t off = 0;
      for (int d = 0; d < nd; ++d) off += idx[std::size_t(d)] * a.strides(d);
      std::uint8_t* q = dst + e * item;
      std::memcpy(q, src + off, item);
      if (swap)
        for (std::size_t b = 0; b < item / 2; ++b) std::swap(q[b], q[item - 1 - b]);
      for (int d = nd - 1; d >= 0; --d) {
        if (++idx[std::size_t(d)] < a.shape(d)) break;
        idx[std::size_t(d)] = 0;
      }
    }
  }
  return out;
}

const DeviceArray* device_array(const py::handle& obj) {
  return py::isinstance<DeviceArray>(obj) ? &obj.cast<const DeviceArray&>() : nullptr;
}

app::ArrayInput device_input(const DeviceArray& a) {
  app::ArrayInput in;
  in.kind = app::ArrayInput::Kind::Device;
  in.device = &a.view();
  return in;
}

app::ArrayInput in_place_input(const py::array& a) {
  app::ArrayInput in;
  in.kind = app::ArrayInput::Kind::InPlace;
  if (!dtype_of(a.dtype(), in.dtype)) throw Error("unsupported dtype " + dtype_name(a.dtype()));
  in.data = a.data();
  in.shape.assign(a.shape(), a.shape() + a.ndim());
  in.strides.assign(a.strides(), a.strides() + a.ndim());
  return in;
}

app::ArrayInput copy_input(const py::object& obj, const std::string& name,
                           const std::string& accepted) {
  if (obj.is_none()) return {};
  if (const DeviceArray* d = device_array(obj)) return device_input(*d);
  app::ArrayInput in;
  in.kind = app::ArrayInput::Kind::Copy;
  in.copy = to_npy(obj, name, accepted);
  return in;
}

app::ArrayInput matrix_input(const py::object& obj, const std::string& name,
                             const std::string& accepted) {
  if (py::isinstance<py::array>(obj)) {
    const auto a = py::reinterpret_borrow<py::array>(obj);
    const py::dtype d = a.dtype();
    if (a.ndim() == 2 && d.kind() == 'f' && (d.itemsize() == 4 || d.itemsize() == 8) &&
        d.attr("byteorder").cast<std::string>() != ">")
      return in_place_input(a);
  }
  return copy_input(obj, name, accepted);
}

py::array numpy_of(app::OutputArray&& o) {
  if (o.data.held_owner() && o.data.dtype() == o.dtype) {  // held in place: the array reads it
    auto* owner = new std::shared_ptr<const void>(o.data.held_owner());
    py::capsule keep(owner, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
    const std::vector<py::ssize_t> dims(o.shape.begin(), o.shape.end());
    void* values = const_cast<void*>(o.data.held_values());
    o.data = app::OutputData();
    py::array a;
    switch (o.dtype) {
      case io::DType::Float32: a = py::array_t<float>(dims, static_cast<float*>(values), keep); break;
      case io::DType::Float64: a = py::array_t<double>(dims, static_cast<double*>(values), keep); break;
      case io::DType::Int32:
        a = py::array_t<std::int32_t>(dims, static_cast<std::int32_t*>(values), keep);
        break;
      case io::DType::UInt8:
        a = py::array_t<std::uint8_t>(dims, static_cast<std::uint8_t*>(values), keep);
        break;
      default: throw Error(o.name + ": unsupported output dtype");
    }
    return a;
  }
  switch (o.dtype) {  // moved when held in the exported dtype, else converted
    case io::DType::Float32: return numpy_from(o.data.take<float>(), o.shape);
    case io::DType::Float64: return numpy_from(o.data.take<double>(), o.shape);
    case io::DType::Int32: return numpy_from(o.data.take<std::int32_t>(), o.shape);
    case io::DType::Int64: return numpy_from(o.data.take<std::int64_t>(), o.shape);
    case io::DType::UInt8: return numpy_from(o.data.take<std::uint8_t>(), o.shape);
  }
  throw Error(o.name + ": unsupported output dtype");
}

}  // namespace simscope::python
