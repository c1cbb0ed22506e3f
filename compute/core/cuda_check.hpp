#pragma once
/// @file CUDA error checking for .cu files: every runtime call goes through SIMSCOPE_CUDA_CHECK.
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

/// The one device rule of the CUDA back ends (field, lsq, oscillators): a CUDA evaluator, solver
/// or integrator works on the device that was current on the thread that created it
/// (cuda_current_device() in its constructor), and every public entry point, which may run on
/// another thread (the GUI's worker, an MPI rank's thread), first calls cuda_use_device() with
/// it, before any allocation, stream or kernel. Throws simscope::Error on a runtime failure.
inline int cuda_current_device() {
  int d = 0;
  cuda_check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}
/// Makes `device` current on the calling thread (see cuda_current_device()).
inline void cuda_use_device(int device) { cuda_check(cudaSetDevice(device), "cudaSetDevice"); }

/// Makes `device` current for a scope and restores the thread's previous device at its end, for
/// code that runs on a thread that may work on another device (e.g. a deleter of device memory
/// called from the UI thread). Never throws: errors are cleared and ignored.
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
