// A caller's arrays in CUDA memory (device_arrays.hpp).
#include "arrays/device_arrays.hpp"

#include <string>

namespace simscope::app {

void require_cuda_backend(const DeviceView& v, Backend backend) {
  if (backend != Backend::Cuda)
    throw Error(v.name + ": a CUDA array (device " + std::to_string(v.device) +
                "), but backend=\"" + to_string(backend) +
                "\" computes from host memory; use backend=\"cuda\" (or \"auto\"), or copy it "
                "to the host first (tensor.cpu(), cupy.asnumpy(a))");
}

void require_visible_device(const DeviceView& v) {
  const int n = cuda_device_count();
  if (v.device < 0 || v.device >= n)
    throw Error(v.name + ": a CUDA array on device " + std::to_string(v.device) +
                ", but this process sees " + std::to_string(n) + " CUDA device(s)");
}

std::vector<std::uint8_t> host_copy(const DeviceView& v) {
  if (!v.c_contiguous())
    throw Error(v.name +
                ": a strided CUDA array (not C order); make it contiguous first "
                "(tensor.contiguous())");
  std::vector<std::uint8_t> bytes(v.size() * v.itemsize());
  if (!bytes.empty()) copy_device_to_host(bytes.data(), v.data, bytes.size(), v.device);
  return bytes;
}

}  // namespace simscope::app
