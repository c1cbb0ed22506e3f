#pragma once
/// @file CUDA kernels that read an lsq cube from the caller's device memory, for
/// Solver::solve_device. Included by solver.cu only. Gathers a strided (M, H, W) view into C
/// order, and applies the loader's check: no inf entry, NaN marks a gap. The first inf entry's
/// flat C-order index is kept in `bad` via atomicMin; ULLONG_MAX means none.
#include <cuda_runtime.h>

namespace simscope::lsq::cuda_inputs {

constexpr unsigned long long kNoBad = ~0ull;

/// dst[(i * H + h) * W + w] = the view's element (i, h, w), `item` bytes each, 4 or 8.
template <typename E>
__global__ void gather_cube_kernel(const unsigned char* __restrict__ base, long long M, long long H,
                                   long long W, long long si, long long sh, long long sw,
                                   E* __restrict__ dst) {
  const long long n = M * H * W;
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x) {
    const long long w = k % W, h = (k / W) % H, i = k / (W * H);
    dst[k] = *reinterpret_cast<const E*>(base + i * si + h * sh + w * sw);
  }
}

/// bad = min over the C-order cube `v` of n entries of the flat index of an inf entry.
template <typename E>
__global__ void first_inf_kernel(const E* __restrict__ v, long long n,
                                 unsigned long long* __restrict__ bad) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x)
    if (isinf(v[k])) atomicMin(bad, (unsigned long long)k);
}

}  // namespace simscope::lsq::cuda_inputs
