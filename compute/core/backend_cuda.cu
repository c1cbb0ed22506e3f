// CUDA half of core/backend.hpp: device probing. Built only with SIMSCOPE_HAVE_CUDA.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <mutex>

#include "core/backend.hpp"
#include "core/error.hpp"

namespace simscope {

namespace {
/// Whether the NVIDIA driver library libcuda.so.1 can be loaded.
bool driver_library_present() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}
}  // namespace

const CudaStatus& cuda_status() {
  static CudaStatus s;
  static std::once_flag once;
  std::call_once(once, [] {
    s.compiled = true;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      // Without a driver the runtime reports "driver version is insufficient".
      // Report the missing driver instead.
      s.reason = e == cudaErrorInsufficientDriver && !driver_library_present()
                     ? "no NVIDIA driver installed: libcuda.so.1 not found"
                     : std::string("CUDA runtime: ") + cudaGetErrorString(e);
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

int cuda_device_count() {
  if (!cuda_status().usable) return 0;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::string cuda_select_device(int index) {
  const int n = cuda_device_count();
  if (index < 0 || index >= n)
    throw Error("CUDA device " + std::to_string(index) + ": this process sees " +
                std::to_string(n) + " device(s)");
  cudaError_t e = cudaSetDevice(index);
  cudaDeviceProp prop{};
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, index);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("CUDA device " + std::to_string(index) + ": " + cudaGetErrorString(e));
  }
  return prop.name;
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
