// DLPack in and out of the module's C++ part (py_dlpack.hpp).
#include "py_dlpack.hpp"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <cstdint>
#include <vector>

#include "core/device_memory.hpp"
#include "core/error.hpp"
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

py::capsule dlpack_of_device(const app::OutputData& data, const std::vector<std::size_t>& shape,
                             int device) {
  auto* e = new DeviceExport;
  e->data = data;
  e->shape.assign(shape.begin(), shape.end());
  DLTensor& t = e->tensor.dl_tensor;
  t.data = const_cast<float*>(data.device());
  t.device = {kDLCUDA, device};
  t.ndim = int(e->shape.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = e->shape.data();
  t.strides = nullptr;  // C order
  t.byte_offset = 0;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = [](DLManagedTensor* self) {
    delete static_cast<DeviceExport*>(self->manager_ctx);
  };
  // Not consumed (the capsule dropped unused): the capsule frees it; consumed ("used_dltensor"):
  // the consumer calls the deleter.
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
      py::arg("capsule"), py::arg("name"),
      "A CUDA DLPack capsule's array copied into a host numpy array (see py_dlpack.hpp).");
}

}  // namespace simscope::python
