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

}  // namespace simscope

#define SIMSCOPE_CUDA_CHECK(call) ::simscope::cuda_check((call), #call)
