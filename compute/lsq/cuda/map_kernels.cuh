#pragma once
// The CUDA solver's device maps (lsq.hpp, Solver::keep_outputs_on_device): the kernels that
// assemble full-size maps from each chunk's outputs and from the pixels solved on the host, count
// the values that overflow float32, and round the solution to float32 for fp32 solves. Include
// from .cu files only.
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace simscope::lsq::detail {

/// The full-size maps of a result of P pixels (solution N x P, C order per component).
struct DeviceMaps {
  double* solution = nullptr;
  float* residual = nullptr;
  float* condition = nullptr;
  int* count = nullptr;
  std::uint8_t* status = nullptr;
  std::size_t pixels = 0;  ///< P
};

/// Values per pixel solved on the host as uploaded to scatter_host_kernel: its map index, then
/// x (N values), residual, condition, count and status, all as doubles (exact for each).
__host__ __device__ inline std::size_t host_pixel_record(int n) { return std::size_t(n) + 5; }

// The kernels have internal linkage: chunks.cu and kept_maps.cu each include this header.
namespace {

/// Writes a chunk's outputs (x: N x np row-major, maps: np each) into `maps` from pixel p0.
__global__ void scatter_chunk_kernel(DeviceMaps maps, std::size_t p0, int np, int n,
                                     const double* __restrict__ x,
                                     const float* __restrict__ residual,
                                     const float* __restrict__ condition,
                                     const int* __restrict__ count,
                                     const std::uint8_t* __restrict__ status) {
  const std::size_t total = (std::size_t(n) + 1) * std::size_t(np);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if (i < std::size_t(n) * np) {
      const std::size_t k = i / np, q = i % np;
      maps.solution[k * maps.pixels + p0 + q] = x[i];
    } else {
      const std::size_t q = i - std::size_t(n) * np;
      maps.residual[p0 + q] = residual[q];
      maps.condition[p0 + q] = condition[q];
      maps.count[p0 + q] = count[q];
      maps.status[p0 + q] = status[q];
    }
  }
}

/// Writes `nh` host-solved pixels (records of host_pixel_record(n) doubles) into `maps`.
__global__ void scatter_host_kernel(DeviceMaps maps, int n, std::size_t nh,
                                    const double* __restrict__ records) {
  const std::size_t per = host_pixel_record(n);
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < nh;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const double* r = records + j * per;
    const std::size_t p = std::size_t(r[0]);
    for (int k = 0; k < n; ++k) maps.solution[std::size_t(k) * maps.pixels + p] = r[1 + k];
    maps.residual[p] = float(r[n + 1]);
    maps.condition[p] = float(r[n + 2]);
    maps.count[p] = int(r[n + 3]);
    maps.status[p] = std::uint8_t(r[n + 4]);
  }
}

/// counts[0] += solution values inf once rounded to float32, counts[1] += residual inf values
/// (what the host result's warnings count, lsq_result.hpp).
__global__ void count_inf_kernel(const double* __restrict__ solution, std::size_t ns,
                                 const float* __restrict__ residual, std::size_t nr,
                                 unsigned long long* counts) {
  unsigned long long a = 0, b = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < ns; i += stride)
    a += isinf(float(solution[i]));
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < nr; i += stride)
    b += isinf(residual[i]);
  if (a) atomicAdd(&counts[0], a);
  if (b) atomicAdd(&counts[1], b);
}

/// dst[i] = float(src[i]) (the fp32 solve's exported solution).
__global__ void to_float_kernel(const double* __restrict__ src, std::size_t n,
                                float* __restrict__ dst) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = float(src[i]);
}

}  // namespace

/// Blocks of 256 threads for a grid-stride loop over `n` items.
inline unsigned grid_for(std::size_t n) {
  const std::size_t b = (n + 255) / 256;
  return unsigned(b < 1 ? 1 : (b > 65535 * 8 ? 65535 * 8 : b));
}

}  // namespace simscope::lsq::detail
