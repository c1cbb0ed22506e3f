#pragma once
/// @file CUDA error checking for .cu files. Every runtime call goes through SIMSCOPE_CUDA_CHECK.
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace simscope {

/// Throws simscope::Error "CUDA error in <what>: <runtime message>" when `e` is not cudaSuccess.
inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
  }
}

/// Returns the calling thread's current CUDA device. Throws simscope::Error on a runtime failure.
/// Device rule of all CUDA back ends: an evaluator, solver or integrator stores this device in its
/// constructor. Every public entry point may run on another thread, so it first calls
/// cuda_use_device() with that device, before any allocation, stream or kernel.
inline int cuda_current_device() {
  int d = 0;
  cuda_check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}
/// Makes `device` current on the calling thread. See cuda_current_device().
inline void cuda_use_device(int device) { cuda_check(cudaSetDevice(device), "cudaSetDevice"); }

/// Makes `device` current for a scope and restores the thread's previous device at its end.
/// Use it on threads that may work on another device, e.g. a deleter run on the UI thread.
/// Never throws: errors are cleared and ignored.
class CudaDeviceScope {
 public:
  explicit CudaDeviceScope(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) {
      cudaGetLastError();
      previous_ = -1;
    }
  }
  ~CudaDeviceScope() {
    if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) cudaGetLastError();
  }
  CudaDeviceScope(const CudaDeviceScope&) = delete;
  CudaDeviceScope& operator=(const CudaDeviceScope&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace simscope

#define SIMSCOPE_CUDA_CHECK(call) ::simscope::cuda_check((call), #call)
