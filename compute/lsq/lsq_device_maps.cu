// lsq_device_maps.hpp on CUDA: the upright image kernel and the row ranges' 2-D copies.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "lsq/lsq_device_maps.hpp"

namespace simscope::lsq {
namespace {

/// out[i * H + j] = map[offset + (H - 1 - j) * W + i] as float (the lsq view's orientation);
/// with `max_bits`, the largest finite |value| as float bits (non-negative floats order as
/// their bits).
template <class T>
__global__ void upright_kernel(const T* __restrict__ map, std::size_t offset, std::size_t H,
                               std::size_t W, float* __restrict__ out, unsigned* max_bits) {
  const std::size_t n = H * W;
  float m = 0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = k / H, j = k % H;
    const float v = float(map[offset + (H - 1 - j) * W + i]);
    out[k] = v;
    if (isfinite(v)) m = fmaxf(m, fabsf(v));
  }
  if (max_bits && m > 0) atomicMax(max_bits, __float_as_uint(m));
}

unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + 255) / 256;
  return unsigned(b < 1 ? 1 : (b > 65535 * 8 ? 65535 * 8 : b));
}

}  // namespace

std::shared_ptr<const float> upright_image_on_device(const void* map, io::DType dtype,
                                                     std::size_t offset, std::size_t height,
                                                     std::size_t width, int device,
                                                     double* max_abs) {
  const CudaDeviceScope on(device);
  const std::size_t n = height * width;
  auto alloc = DeviceAllocator::cuda("lsq view", device);
  auto img = make_shared_buffer(DeviceBuffer<float>(alloc, n, "the lsq view image"));
  DeviceBuffer<unsigned> bits;
  if (max_abs) {
    bits = DeviceBuffer<unsigned>(alloc, 1, "the lsq view's range");
    SIMSCOPE_CUDA_CHECK(cudaMemset(bits.get(), 0, sizeof(unsigned)));
  }
  unsigned* mb = bits.get();
  float* out = img->get();
  const unsigned g = blocks_for(n);
  switch (dtype) {
    case io::DType::Float32:
      upright_kernel<<<g, 256>>>(static_cast<const float*>(map), offset, height, width, out, mb);
      break;
    case io::DType::Float64:
      upright_kernel<<<g, 256>>>(static_cast<const double*>(map), offset, height, width, out, mb);
      break;
    case io::DType::Int32:
      upright_kernel<<<g, 256>>>(static_cast<const std::int32_t*>(map), offset, height, width,
                                 out, mb);
      break;
    case io::DType::UInt8:
      upright_kernel<<<g, 256>>>(static_cast<const std::uint8_t*>(map), offset, height, width,
                                 out, mb);
      break;
    default:
      throw Error("lsq: a device map of another dtype than float32, float64, int32 or uint8");
  }
  SIMSCOPE_CUDA_CHECK(cudaGetLastError());
  SIMSCOPE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // complete before the view reads it
  if (max_abs) {
    unsigned b = 0;
    SIMSCOPE_CUDA_CHECK(cudaMemcpy(&b, mb, sizeof b, cudaMemcpyDeviceToHost));
    float f = 0;
    static_assert(sizeof f == sizeof b);
    std::memcpy(&f, &b, sizeof f);
    *max_abs = double(f);
  }
  return std::shared_ptr<const float>(img, out);
}

std::shared_ptr<const void> concat_blocks_on_device(const std::vector<const void*>& parts,
                                                    const std::vector<std::size_t>& bytes,
                                                    std::size_t outer, int device) {
  if (parts.size() != bytes.size() || parts.empty())
    throw Error("lsq: concat_blocks_on_device needs one size per part");
  const CudaDeviceScope on(device);
  const std::size_t block = std::accumulate(bytes.begin(), bytes.end(), std::size_t(0));
  auto out = make_shared_buffer(DeviceBuffer<unsigned char>(
      DeviceAllocator::cuda("lsq", device), block * outer, "the merged row ranges"));
  std::size_t at = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (bytes[k] > 0 && outer > 0)
      SIMSCOPE_CUDA_CHECK(cudaMemcpy2D(out->get() + at, block, parts[k], bytes[k], bytes[k],
                                       outer, cudaMemcpyDeviceToDevice));
    at += bytes[k];
  }
  SIMSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  return std::shared_ptr<const void>(out, out->get());
}

}  // namespace simscope::lsq
