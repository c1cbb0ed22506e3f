#pragma once
// The CUDA lsq solver's downdate and minimum-norm paths (small_kernel.cu): one warp per pixel
// of kind kKindDowndate or kKindMinNorm (warp.cuh), lsq_downdate.hpp's algorithm in float64
// whatever the precision. Not a public API. Include from .cu files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace simscope::lsq::detail {

/// Inputs and outputs of one chunk's small solves: device pointers over pc pixels.
struct SmallArgs {
  int M = 0, N = 0, pc = 0;
  int nmax = 0;       ///< the largest small size s (downdate) or k (min-norm) in the chunk
  double lambda = 0;  ///< Tikhonov parameter
  double limit = 0;   ///< estimated cond2(G_p) (cond(R_OO)) above which a pixel goes to the SVD
  double cond_g = 0;  ///< cond2(G), G = A^T A + lambda I
  const double* a = nullptr;           ///< M x N row-major: A
  const double* bt = nullptr;          ///< M x N row-major: B^T, B = G^-1 A^T (downdate only)
  const double* c = nullptr;           ///< M x M: C = A G^-1 A^T (downdate only)
  const double* r = nullptr;           ///< M x M: A A^T (minimum norm only)
  const double* ginv = nullptr;        ///< N x N: G^-1 (downdate refinement)
  const std::uint8_t* kind = nullptr;  ///< pc pixel kinds
  const int* count = nullptr;          ///< pc observed-row counts
  const double* bpm = nullptr;         ///< M x pc pixel-major data, gaps = 0
  const std::uint8_t* mpm = nullptr;   ///< M x pc pixel-major 0/1 mask
  const double* y = nullptr;           ///< N x pc column-major: y = B (w o b) (downdate only)
  double* scratch = nullptr;           ///< M x pc pixel-major: residual vectors
  double* x = nullptr;                 ///< N x pc row-major: solutions
  float* residual = nullptr;
  float* condition = nullptr;
  std::uint8_t* status = nullptr;  ///< status codes; 255 (kStatusHost) sends a pixel to the SVD
};

/// Shared memory bytes one warp of the small kernel needs for sizes up to n, with N unknowns.
__host__ __device__ inline std::size_t small_warp_bytes(int n, int N) {
  const std::size_t nn = std::size_t(n), doubles = nn * (nn + 1) / 2 + 5 * nn + 4 * std::size_t(N);
  return doubles * sizeof(double) + (nn + 1) / 2 * sizeof(double);  // + n ints of row indices
}

/// The largest small size the kernel takes with `smem_optin` bytes of shared memory per block
/// (cudaDevAttrMaxSharedMemoryPerBlockOptin). At most `M`.
inline int small_size_limit(int N, int M, std::size_t smem_optin) {
  int n = 1;
  while (n < M && small_warp_bytes(n + 1, N) <= smem_optin) ++n;
  return n;
}

/// Launches the small kernel for a chunk on `stream`; requires a.nmax >= 1. Pixels of other
/// kinds are left alone. Each downdate or min-norm pixel gets its solution, residual, condition
/// and status, or status kStatusHost when its K (R_OO) is not definite or its estimated
/// condition exceeds a.limit; the caller solves those by the float64 SVD. Throws Error on a
/// launch failure.
void launch_small(const SmallArgs& a, std::size_t smem_optin, cudaStream_t stream);

}  // namespace simscope::lsq::detail
