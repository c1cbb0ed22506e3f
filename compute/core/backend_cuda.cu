// CUDA half of core/backend.hpp: device probing. Compiled only when SIMSCOPE_HAVE_CUDA.
#include <cuda_runtime.h>

#include <mutex>

#include "core/backend.hpp"

namespace simscope {

const CudaStatus& cuda_status() {
  static CudaStatus s;
  static std::once_flag once;
  std::call_once(once, [] {
    s.compiled = true;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      s.reason = std::string("CUDA runtime: ") + cudaGetErrorString(e);
      cudaGetLastError();
      return;
    }
    if (n == 0) {
      s.reason = "no CUDA device found";
      return;
    }
    cudaDeviceProp prop{};
    e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
      s.reason = std::string("CUDA runtime: ") + cudaGetErrorString(e);
      cudaGetLastError();
      return;
    }
    s.usable = true;
    s.device = prop.name;
    s.total_bytes = double(prop.totalGlobalMem);
  });
  return s;
}

double cuda_memory_used_bytes() {
  if (!cuda_status().usable) return 0;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return double(total_b - free_b);
}

}  // namespace simscope
