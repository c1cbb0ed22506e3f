#pragma once
/// @file A caller's arrays in CUDA memory (DeviceView) at a workload's array entry point: the
/// checks that the call can read one where it is, its copy to the host, and work on its device.
#include <exception>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "arrays/vocabulary.hpp"

namespace simscope::app {

/// Throws simscope::Error naming v.name unless `backend` is CUDA.
/// A CUDA input is computed where it lives; the message says how to copy it instead.
void require_cuda_backend(const DeviceView& v, Backend backend);
/// Throws simscope::Error naming v.name unless v.device is a CUDA device this process sees
/// (cuda_device_count()). The call then runs on v.device.
void require_visible_device(const DeviceView& v);

/// The bytes of `v`, C order only, copied to the host once (copy_device_to_host): v.size() *
/// v.itemsize() bytes. Throws simscope::Error naming v.name for other strides ("make it
/// contiguous first"), "device memory: ..." for a failed copy.
std::vector<std::uint8_t> host_copy(const DeviceView& v);

/// Runs `f()` on a new thread whose current CUDA device is `device` and returns its result.
/// -1 leaves the device unchanged. Rethrows its exception. Back ends made there work on that
/// device; the calling thread's device is untouched.
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

}  // namespace simscope::app
