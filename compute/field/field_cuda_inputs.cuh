#pragma once
/// @file CUDA kernels that read the field's inputs from the caller's device memory for
/// Evaluator::evaluate_device. Included by field_cuda.cu only.
/// Converts a strided (P,4) or (P,3) float32/float64 array into the evaluator's float4 sources,
/// a strided (T,3) array into its fp64 structure of arrays of targets, and reduces the targets'
/// bounding box for the fp32 local origin. Checks match the host readers' (sources.cpp
/// store_row, targets.cpp): a non-finite value, or a source value not finite once rounded to
/// float32. The first bad element in row-major order is kept as row * 4 + column in `bad` via
/// atomicMin; ULLONG_MAX means none.
#include <cuda_runtime.h>

namespace simscope::field::cuda {

constexpr unsigned long long kNoBad = ~0ull;

template <typename In>
__device__ __forceinline__ double element(const unsigned char* base, long long i, int c,
                                          long long row_stride, long long col_stride) {
  return double(*reinterpret_cast<const In*>(base + i * row_stride + c * col_stride));
}

/// dst[i] = (x, y, z, q) of row i of the view, rounded to fp32; q = 1 when cols == 3.
template <typename In>
__global__ void sources_from_view_kernel(const unsigned char* __restrict__ base, long long P,
                                         int cols, long long row_stride, long long col_stride,
                                         float4* __restrict__ dst,
                                         unsigned long long* __restrict__ bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < P;
       i += (long long)gridDim.x * blockDim.x) {
    float f[4] = {0.f, 0.f, 0.f, 1.f};
    for (int c = 0; c < cols; ++c) {
      const double v = element<In>(base, i, c, row_stride, col_stride);
      const float g = __double2float_rn(v);
      if (!isfinite(v) || !isfinite(g)) atomicMin(bad, (unsigned long long)(i * 4 + c));
      f[c] = g;
    }
    dst[i] = make_float4(f[0], f[1], f[2], f[3]);
  }
}

/// dst[c * T + i] = coordinate c of row i of the (T,3) view, in fp64.
template <typename In>
__global__ void targets_from_view_kernel(const unsigned char* __restrict__ base, long long T,
                                         long long row_stride, long long col_stride,
                                         double* __restrict__ dst,
                                         unsigned long long* __restrict__ bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < T;
       i += (long long)gridDim.x * blockDim.x)
    for (int c = 0; c < 3; ++c) {
      const double v = element<In>(base, i, c, row_stride, col_stride);
      if (!isfinite(v)) atomicMin(bad, (unsigned long long)(i * 4 + c));
      dst[c * T + i] = v;
    }
}

constexpr int kBoundsThreads = 256;

/// out[c] = min and out[3 + c] = max over the T values of axis c of `t`, a structure of arrays.
/// Launch one block of kBoundsThreads threads; the targets are few.
__global__ void target_bounds_kernel(const double* __restrict__ t, long long T,
                                     double* __restrict__ out) {
  __shared__ double lo[3][kBoundsThreads], hi[3][kBoundsThreads];
  for (int c = 0; c < 3; ++c) {
    double l = INFINITY, h = -INFINITY;
    for (long long i = threadIdx.x; i < T; i += kBoundsThreads) {
      const double v = t[c * T + i];
      l = fmin(l, v), h = fmax(h, v);
    }
    lo[c][threadIdx.x] = l, hi[c][threadIdx.x] = h;
  }
  __syncthreads();
  for (int s = kBoundsThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      for (int c = 0; c < 3; ++c) {
        lo[c][threadIdx.x] = fmin(lo[c][threadIdx.x], lo[c][threadIdx.x + s]);
        hi[c][threadIdx.x] = fmax(hi[c][threadIdx.x], hi[c][threadIdx.x + s]);
      }
    __syncthreads();
  }
  if (threadIdx.x < 3) {
    out[threadIdx.x] = lo[threadIdx.x][0];
    out[3 + threadIdx.x] = hi[threadIdx.x][0];
  }
}

}  // namespace simscope::field::cuda
