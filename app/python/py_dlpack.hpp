#pragma once
/// @file DLPack (dlpack/dlpack.h) in the module's C++ part.
/// CUDA arrays come in as consumed "dltensor" capsules held by a DeviceArray. CUDA back ends read
/// them in place; others read them into host memory. Results in device memory go out as
/// "dltensor" capsules over an OutputData, which keeps the memory alive. Host DLPack objects go
/// through numpy.from_dlpack in simscope/_arrays.py instead.
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "arrays/vocabulary.hpp"
#include "output/output_data.hpp"

namespace simscope::python {

namespace py = pybind11;

/// A CUDA array's "dltensor" capsule (kDLCUDA or kDLCUDAManaged) as a C-order host numpy array.
/// Same dtype (float32, float64, int32, int64, uint8) and shape; the bytes are copied once
/// (copy_device_to_host). The capsule is consumed: renamed "used_dltensor", deleter called.
/// Throws simscope::Error naming `name` for another device type, an unsupported dtype, non-C-order
/// strides, or a used capsule. A device failure of the copy throws simscope::Error
/// "device memory: ...".
py::array host_from_dlpack(const py::capsule& capsule, const std::string& name);

/// A "dltensor" capsule (kDLCUDA, device `device`, data.dtype(): float32, float64, int32 or
/// uint8, C order, `shape`) over the device values of `data`; data.device_bytes() must not be
/// null. The capsule's DLManagedTensor holds a copy of `data`, so the device memory stays
/// allocated while the consumer holds it. The deleter drops it.
py::capsule dlpack_of_device(const app::OutputData& data, const std::vector<std::size_t>& shape,
                             int device);

/// A CUDA array passed through DLPack, held for one call.
/// Holds the consumed capsule's DLManagedTensor and its DeviceView (device_view_of). The deleter
/// runs with the GIL held when this object goes. Back ends read `view().data` in place, with no
/// host copy.
class DeviceArray {
 public:
  /// Consumes `capsule`, renaming it "used_dltensor". `stream` is the stream the producer's
  /// __dlpack__ was asked for (DeviceView::stream). Throws simscope::Error as device_view_of does,
  /// after releasing the tensor, or when the capsule was already used.
  DeviceArray(const py::capsule& capsule, const std::string& name, std::uintptr_t stream);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  const DeviceView& view() const { return view_; }
  /// The array's bytes as one C-order host numpy array, for a back end that cannot read device
  /// memory. The caller counts it in stats["host_staging_bytes"].
  py::array to_host() const;

 private:
  void* managed_ = nullptr;  ///< DLManagedTensor*
  DeviceView view_;
};

/// The DeviceView of a DLPack tensor in CUDA memory (kDLCUDA or kDLCUDAManaged).
/// Fields: data + byte_offset, shape, strides in bytes (C order when null), dtype (float32,
/// float64, int32, int64, uint8; one lane) and device_id. Throws simscope::Error naming `name` for
/// another device type or dtype, with the host path's messages. Touches no CUDA API.
DeviceView device_view_of(const DLTensor& t, const std::string& name, std::uintptr_t stream);

/// Binds _core.host_from_dlpack(capsule, name) and _core.DeviceArray(capsule, name, stream).
void bind_dlpack(py::module_& m);

}  // namespace simscope::python
