// DLPack in and out of the module's C++ part (py_dlpack.hpp).
#include "py_dlpack.hpp"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <cstdint>
#include <vector>

#include "arrays/device_arrays.hpp"
#include "params/c_numeric_locale.hpp"
#include "py_call.hpp"

namespace simscope::python {

namespace {

/// The numpy dtype of a DLPack dtype that the inputs take, or false.
bool numpy_dtype(const DLDataType& t, py::dtype& out) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat && t.bits == 32) return out = py::dtype::of<float>(), true;
  if (t.code == kDLFloat && t.bits == 64) return out = py::dtype::of<double>(), true;
  if (t.code == kDLInt && t.bits == 32) return out = py::dtype::of<std::int32_t>(), true;
  if (t.code == kDLInt && t.bits == 64) return out = py::dtype::of<std::int64_t>(), true;
  if (t.code == kDLUInt && t.bits == 8) return out = py::dtype::of<std::uint8_t>(), true;
  return false;
}

/// The io::DType of a DLPack dtype that the inputs take, or false.
bool io_dtype(const DLDataType& t, io::DType& out) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat && t.bits == 32) return out = io::DType::Float32, true;
  if (t.code == kDLFloat && t.bits == 64) return out = io::DType::Float64, true;
  if (t.code == kDLInt && t.bits == 32) return out = io::DType::Int32, true;
  if (t.code == kDLInt && t.bits == 64) return out = io::DType::Int64, true;
  if (t.code == kDLUInt && t.bits == 8) return out = io::DType::UInt8, true;
  return false;
}

/// What a capsule made by dlpack_of_device owns.
struct DeviceExport {
  DLManagedTensor tensor{};
  app::OutputData data;  ///< shares the device memory: kept alive with the tensor
  std::vector<std::int64_t> shape;
};

}  // namespace

py::array host_from_dlpack(const py::capsule& capsule, const std::string& name) {
  if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
    throw Error(name + ": the DLPack capsule was already used (a capsule is read once)");
  auto* m = static_cast<DLManagedTensor*>(capsule.get_pointer());
  const DLTensor& t = m->dl_tensor;
  struct Consume {  // the consumer calls the deleter, once, whatever happens below
    DLManagedTensor* m;
    ~Consume() {
      if (m->deleter) m->deleter(m);
    }
  };
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  Consume consume{m};
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged)
    throw Error(name + ": DLPack device type " + std::to_string(int(t.device.device_type)) +
                " is not a CUDA device");
  py::dtype dt;
  if (!numpy_dtype(t.dtype, dt))
    throw Error(name + ": DLPack dtype (code " + std::to_string(int(t.dtype.code)) + ", " +
                std::to_string(int(t.dtype.bits)) + " bits, " + std::to_string(int(t.dtype.lanes)) +
                " lanes) is not supported; expected float32, float64, int32, int64 or uint8");
  std::vector<py::ssize_t> shape(t.shape, t.shape + t.ndim);
  std::size_t count = 1;
  for (py::ssize_t d : shape) count *= std::size_t(d);
  if (t.strides && count > 1) {  // C order: each stride the product of the later dimensions
    std::int64_t expect = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      if (t.shape[d] != 1 && t.strides[d] != expect)
        throw Error(name +
                    ": a strided CUDA array (not C order); make it contiguous first "
                    "(tensor.contiguous())");
      expect *= t.shape[d];
    }
  }
  py::array host(dt, shape);
  const std::size_t bytes = count * std::size_t(t.dtype.bits / 8);
  if (bytes > 0)
    copy_device_to_host(host.mutable_data(), static_cast<const char*>(t.data) + t.byte_offset,
                        bytes, t.device.device_id);
  return host;
}

DeviceView device_view_of(const DLTensor& t, const std::string& name, std::uintptr_t stream) {
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged)
    throw Error(name + ": DLPack device type " + std::to_string(int(t.device.device_type)) +
                " is not a CUDA device");
  DeviceView v;
  if (!io_dtype(t.dtype, v.dtype))
    throw Error(name + ": DLPack dtype (code " + std::to_string(int(t.dtype.code)) + ", " +
                std::to_string(int(t.dtype.bits)) + " bits, " + std::to_string(int(t.dtype.lanes)) +
                " lanes) is not supported; expected float32, float64, int32, int64 or uint8");
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape))
    throw Error(name + ": a DLPack tensor without a shape");
  v.data = static_cast<const char*>(t.data) + t.byte_offset;
  v.shape.assign(t.shape, t.shape + t.ndim);
  for (std::int64_t d : v.shape)
    if (d < 0) throw Error(name + ": a DLPack tensor with a negative dimension");
  const auto item = std::ptrdiff_t(v.itemsize());
  v.strides.resize(std::size_t(t.ndim));
  std::ptrdiff_t c_order = item;  // strides == null: C order (DLPack)
  for (int d = t.ndim - 1; d >= 0; --d) {
    v.strides[std::size_t(d)] = t.strides ? std::ptrdiff_t(t.strides[d]) * item : c_order;
    c_order *= std::ptrdiff_t(t.shape[d]);
  }
  v.device = t.device.device_id;
  v.stream = stream;
  v.name = name;
  return v;
}

DeviceArray::DeviceArray(const py::capsule& capsule, const std::string& name,
                         std::uintptr_t stream) {
  if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
    throw Error(name + ": the DLPack capsule was already used (a capsule is read once)");
  auto* m = static_cast<DLManagedTensor*>(capsule.get_pointer());
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // consumed: we call the deleter
  managed_ = m;
  try {
    view_ = device_view_of(m->dl_tensor, name, stream);
  } catch (...) {
    if (m->deleter) m->deleter(m);
    managed_ = nullptr;
    throw;
  }
}

DeviceArray::~DeviceArray() {
  auto* m = static_cast<DLManagedTensor*>(managed_);
  if (m && m->deleter) m->deleter(m);
}

py::array DeviceArray::to_host() const {
  py::dtype dt;
  switch (view_.dtype) {
    case io::DType::Float32:
      dt = py::dtype::of<float>();
      break;
    case io::DType::Float64:
      dt = py::dtype::of<double>();
      break;
    case io::DType::Int32:
      dt = py::dtype::of<std::int32_t>();
      break;
    case io::DType::Int64:
      dt = py::dtype::of<std::int64_t>();
      break;
    case io::DType::UInt8:
      dt = py::dtype::of<std::uint8_t>();
      break;
  }
  // The run layer's copy (C order only), handed to numpy without another.
  auto* bytes = new std::vector<std::uint8_t>(app::host_copy(view_));
  py::capsule keep(bytes, [](void* p) { delete static_cast<std::vector<std::uint8_t>*>(p); });
  std::vector<py::ssize_t> shape(view_.shape.begin(), view_.shape.end());
  return py::array(dt, shape, bytes->data(), keep);
}

py::capsule dlpack_of_device(const app::OutputData& data, const std::vector<std::size_t>& shape,
                             int device) {
  auto* e = new DeviceExport;
  e->data = data;
  e->shape.assign(shape.begin(), shape.end());
  DLTensor& t = e->tensor.dl_tensor;
  t.data = const_cast<void*>(data.device_bytes());
  t.device = {kDLCUDA, device};
  t.ndim = int(e->shape.size());
  switch (data.dtype()) {  // the dtype the values are held in (OutputData's four)
    case io::DType::Float64: t.dtype = {kDLFloat, 64, 1}; break;
    case io::DType::Int32: t.dtype = {kDLInt, 32, 1}; break;
    case io::DType::UInt8: t.dtype = {kDLUInt, 8, 1}; break;
    default: t.dtype = {kDLFloat, 32, 1}; break;
  }
  t.shape = e->shape.data();
  t.strides = nullptr;  // C order
  t.byte_offset = 0;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = [](DLManagedTensor* self) {
    delete static_cast<DeviceExport*>(self->manager_ctx);
  };
  // Unconsumed, the capsule frees it; consumed ("used_dltensor"), the consumer calls the deleter.
  return py::capsule(&e->tensor, "dltensor", [](PyObject* cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      m->deleter(m);
    }
  });
}

void bind_dlpack(py::module_& m) {
  m.def(
      "host_from_dlpack",
      [](const py::capsule& capsule, const std::string& name) {
        return checked([&] { return host_from_dlpack(capsule, name); });
      },
      py::call_guard<app::CNumericLocale>(), py::arg("capsule"), py::arg("name"),
      "A CUDA DLPack capsule's array copied into a host numpy array (see py_dlpack.hpp).");
  py::class_<DeviceArray>(m, "DeviceArray",
                          "A CUDA array taken through DLPack (py_dlpack.hpp): the consumed "
                          "capsule's tensor, held until this object goes.")
      .def(py::init([](const py::capsule& capsule, const std::string& name, std::uintptr_t stream) {
             return checked([&] { return std::make_unique<DeviceArray>(capsule, name, stream); });
           }),
           py::call_guard<app::CNumericLocale>(), py::arg("capsule"), py::arg("name"), py::arg("stream") = 1)
      .def_property_readonly("name", [](const DeviceArray& a) { return a.view().name; })
      .def_property_readonly("device", [](const DeviceArray& a) { return a.view().device; })
      .def_property_readonly("stream",
                             [](const DeviceArray& a) { return std::uint64_t(a.view().stream); })
      .def_property_readonly(
          "data_ptr",
          [](const DeviceArray& a) {
            return std::uint64_t(reinterpret_cast<std::uintptr_t>(a.view().data));
          })
      .def_property_readonly(
          "dtype", [](const DeviceArray& a) { return std::string(io::to_string(a.view().dtype)); })
      .def_property_readonly("shape",
                             [](const DeviceArray& a) {
                               py::tuple t(a.view().shape.size());
                               for (std::size_t k = 0; k < a.view().shape.size(); ++k)
                                 t[k] = a.view().shape[k];
                               return t;
                             })
      .def_property_readonly(
          "strides",
          [](const DeviceArray& a) {
            py::tuple t(a.view().strides.size());
            for (std::size_t k = 0; k < a.view().strides.size(); ++k) t[k] = a.view().strides[k];
            return t;
          },
          "In bytes.")
      .def(
          "to_host", [](const DeviceArray& a) { return checked([&] { return a.to_host(); }); },
          "The bytes copied to a host numpy array (C-order arrays only).");
}

}  // namespace simscope::python
