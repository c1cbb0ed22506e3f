#pragma once
/// @file DLPack (Debian's libdlpack-dev, dlpack/dlpack.h) in the C++ part of the module: CUDA
/// arrays in (a consumed "dltensor" capsule held as a DeviceArray that the CUDA back ends read
/// in place, or read into host memory where a back end cannot) and results that stay in
/// device memory out (a "dltensor" capsule over an OutputData, which keeps the memory alive).
/// Host DLPack objects go through numpy.from_dlpack in simscope/_arrays.py instead (no copy).
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "core/backend.hpp"
#include "core/device_view.hpp"
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

/// A "dltensor" capsule (kDLCUDA, device `device`, data.dtype(): float32, float64, int32 or
/// uint8, C order, `shape`) over the device values of `data` (data.device_bytes() must not be
/// null): the capsule's DLManagedTensor holds a
/// copy of `data`, so the device memory stays allocated while the consumer (torch.from_dlpack,
/// cupy.from_dlpack) holds it, whatever simscope frees or computes later; the deleter drops it.
py::capsule dlpack_of_device(const app::OutputData& data, const std::vector<std::size_t>& shape,
                             int device);

/// A CUDA array handed to the module through DLPack and held for one call: the consumed
/// "dltensor" capsule's DLManagedTensor (its deleter called when this object goes, with the
/// GIL held: it is a Python object of _core) and its DeviceView (device_view_of). The back ends
/// read `view().data` in place: no host copy (issue 15).
class DeviceArray {
 public:
  /// Consumes `capsule` (renamed "used_dltensor"); `stream` is what the producer's __dlpack__
  /// was asked for (DeviceView::stream). Throws simscope::Error as device_view_of does (the
  /// tensor released first), or when the capsule was already used.
  DeviceArray(const py::capsule& capsule, const std::string& name, std::uintptr_t stream);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  const DeviceView& view() const { return view_; }
  /// The array's bytes as one host numpy array (C order): the staged copy of a back end that
  /// cannot read device memory (counted by the caller in stats["host_staging_bytes"]).
  py::array to_host() const;

 private:
  void* managed_ = nullptr;  ///< DLManagedTensor*
  DeviceView view_;
};

/// The DeviceView of a DLPack tensor in CUDA memory (kDLCUDA or kDLCUDAManaged): data +
/// byte_offset, shape, strides converted from elements to bytes (C order when null), dtype
/// (float32, float64, int32, int64, uint8, one lane), device_id. Throws simscope::Error naming
/// `name` for another device type or dtype (the host path's messages). Touches no CUDA API.
DeviceView device_view_of(const DLTensor& t, const std::string& name, std::uintptr_t stream);

/// Throws simscope::Error naming v.name unless `backend` is CUDA: a CUDA input is computed
/// where it lives (backend="cpu" with a CUDA array; the message says how to copy it instead).
void require_cuda_backend(const DeviceView& v, Backend backend);
/// Throws simscope::Error naming v.name unless v.device is a CUDA device this process sees
/// (cuda_device_count()). The call then runs its back end on v.device (cuda_select_device on
/// its worker thread: the caller's device).
void require_visible_device(const DeviceView& v);

/// Runs `f()` on a new thread whose current CUDA device is `device` (cuda_select_device; -1:
/// unchanged) and returns its result, rethrowing its exception: a back end made there works on
/// that device (the CUDA back ends' device rule), and the calling thread's device is untouched.
template <class F>
auto on_device(int device, F&& f) {
  using R = decltype(f());
  std::optional<R> result;
  std::exception_ptr error;
  std::thread t([&] {
    try {
      if (device >= 0) cuda_select_device(device);
      result.emplace(f());
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

/// Binds _core.host_from_dlpack(capsule, name) and the DeviceArray class
/// (_core.DeviceArray(capsule, name, stream)).
void bind_dlpack(py::module_& m);

}  // namespace simscope::python
