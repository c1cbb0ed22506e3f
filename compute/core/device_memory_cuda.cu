// CUDA half of core/device_memory.hpp: raw cudaMalloc, cudaFree and cudaMemGetInfo of one device.
// Accounting and the out-of-memory message live in device_memory.cpp.
#include <cuda_runtime.h>

#include <map>
#include <mutex>

#include "core/bytes.hpp"
#include "core/cuda_check.hpp"
#include "core/device_memory.hpp"

namespace simscope {
namespace {

class CudaRawMemory final : public RawDeviceMemory {
 public:
  explicit CudaRawMemory(int device) : device_(device) {}
  void* allocate(std::size_t bytes, std::string& error) noexcept override {
    const CudaDeviceScope on(device_);
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear the error state
      error = cudaGetErrorString(e);
      return nullptr;
    }
    return p;
  }
  void release(void* p) noexcept override {
    const CudaDeviceScope on(device_);  // the last holder may be on any thread
    if (cudaFree(p) != cudaSuccess) cudaGetLastError();
  }
  std::pair<std::size_t, std::size_t> info() noexcept override {
    const CudaDeviceScope on(device_);
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
      cudaGetLastError();
      return {0, 0};
    }
    return {free_b, total_b};
  }

 private:
  int device_;
};

}  // namespace

void copy_device_to_host(void* dst, const void* src, std::size_t bytes, int device) {
  if (bytes == 0) return;
  const CudaDeviceScope on(device);
  const cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("device memory: copy of " + format_bytes(double(bytes)) +
                " to the host failed: " + cudaGetErrorString(e));
  }
}

std::shared_ptr<RawDeviceMemory> cuda_device_memory(int device) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<RawDeviceMemory>> devices;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& d = devices[device];
  if (!d) d = std::make_shared<CudaRawMemory>(device);
  return d;
}

}  // namespace simscope
