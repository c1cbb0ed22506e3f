#pragma once
// Device building blocks shared by the CUDA lsq solver's kernels: the Gram path's
// (classify_kernel.cuh, solve_kernel.cuh) and small_kernel.cu's (the downdate and minimum-norm
// paths). Defines the pixel kinds, and one warp's packed Cholesky, triangular solves and
// Hager/Higham 1-norm estimate on matrices in shared memory. Not a public API. Include from .cu
// files only.
#include <cuda_runtime.h>

#include <cstdint>

namespace simscope::lsq::detail {
namespace {

/// What a pixel of a chunk goes through (classify_kernel): empty, no gaps (the shared SVD's
/// operator), the Gram path's Cholesky, the host SVD, the downdate, or the row-Gram minimum norm.
enum Kind : std::uint8_t {
  kKindEmpty = 0,
  kKindShared = 1,
  kKindChol = 2,
  kKindHost = 3,
  kKindDowndate = 4,
  kKindMinNorm = 5
};
constexpr std::uint8_t kStatusHost = 255;  // "solve this pixel on the host"

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Index and value of the largest |a_j|, first index on ties. The same on every lane.
__device__ __forceinline__ int warp_argmax_abs(const double* a, int n, int lane) {
  double best = -1;
  int idx = 0;
  for (int j = lane; j < n; j += 32) {
    const double v = fabs(a[j]);
    if (v > best) best = v, idx = j;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const double ob = __shfl_xor_sync(0xffffffffu, best, o);
    const int oi = __shfl_xor_sync(0xffffffffu, idx, o);
    if (ob > best || (ob == best && oi < idx)) best = ob, idx = oi;
  }
  return idx;
}

__device__ __forceinline__ int rowbase(int i) { return i * (i + 1) / 2; }

/// y <- (L L^T)^-1 y. L is packed lower row-major and y is n doubles, both in shared memory.
template <class T>
__device__ void warp_solve(const T* L, int n, double* y, int lane) {
  for (int i = 0; i < n; ++i) {
    const T* Li = L + rowbase(i);
    double s = 0;
    for (int j = lane; j < i; j += 32) s += double(Li[j]) * y[j];
    s = warp_sum(s);
    if (lane == 0) y[i] = (y[i] - s) / double(Li[i]);
    __syncwarp();
  }
  for (int i = n - 1; i >= 0; --i) {
    const T* Li = L + rowbase(i);
    const double xi = y[i] / double(Li[i]);
    __syncwarp();
    if (lane == 0) y[i] = xi;
    for (int j = lane; j < i; j += 32) y[j] -= double(Li[j]) * xi;
    __syncwarp();
  }
}

/// In-place right-looking Cholesky of the packed lower matrix L, outer product form (Golub &
/// Van Loan 4.2.2). Returns false, uniformly across the warp, on a pivot <= tol. col: n entries
/// of scratch.
template <class T>
__device__ bool warp_cholesky(T* L, T* col, int n, T tol, int lane) {
  for (int k = 0; k < n; ++k) {
    T* Lk = L + rowbase(k);
    const T d = Lk[k];
    __syncwarp();
    if (!(d > tol)) return false;
    const T s = sqrt(d);
    const T inv = T(1) / s;
    if (lane == 0) Lk[k] = s;
    for (int i = k + 1 + lane; i < n; i += 32) {
      T* p = L + rowbase(i) + k;
      const T v = *p * inv;
      *p = v;
      col[i] = v;
    }
    __syncwarp();
    for (int i = k + 1; i < n; ++i) {
      T* Li = L + rowbase(i);
      const T lik = col[i];
      for (int j = k + 1 + lane; j <= i; j += 32) Li[j] -= lik * col[j];
    }
    __syncwarp();
  }
  return true;
}

/// Hager's estimate of ||G^-1||_1 with Higham's refinements (LAPACK xLACN2), G = L L^T.
template <class T, int Iterations = 5>
__device__ double warp_inv_norm1(const T* L, int n, double* x, double* z, double* s, int lane) {
  auto norm1 = [&](const double* a) {
    double t = 0;
    for (int j = lane; j < n; j += 32) t += fabs(a[j]);
    return warp_sum(t);
  };
  for (int j = lane; j < n; j += 32) x[j] = 1.0 / n;
  __syncwarp();
  warp_solve(L, n, x, lane);
  double est = norm1(x);
  if (n == 1) return est;
  for (int j = lane; j < n; j += 32) s[j] = z[j] = x[j] >= 0 ? 1.0 : -1.0;
  __syncwarp();
  warp_solve(L, n, z, lane);
  int jmax = warp_argmax_abs(z, n, lane);
  for (int iter = 2; iter <= Iterations; ++iter) {
    for (int j = lane; j < n; j += 32) x[j] = j == jmax ? 1.0 : 0.0;
    __syncwarp();
    warp_solve(L, n, x, lane);
    const double e = norm1(x);
    bool same = true;
    for (int j = lane; j < n; j += 32) same &= (x[j] >= 0) == (s[j] > 0);
    const bool repeated = __all_sync(0xffffffffu, same);
    if (repeated || e <= est) {
      est = fmax(est, e);
      break;
    }
    est = e;
    if (iter == Iterations) break;  // its next index would go unused
    for (int j = lane; j < n; j += 32) s[j] = z[j] = x[j] >= 0 ? 1.0 : -1.0;
    __syncwarp();
    warp_solve(L, n, z, lane);
    const int last = jmax;
    jmax = warp_argmax_abs(z, n, lane);
    if (!(fabs(z[last]) != fabs(z[jmax]))) break;
  }
  for (int j = lane; j < n; j += 32) {
    const double a = 1.0 + double(j) / double(n - 1);
    x[j] = (j % 2) ? -a : a;
  }
  __syncwarp();
  warp_solve(L, n, x, lane);
  return fmax(est, 2.0 * norm1(x) / (3.0 * n));
}

}  // namespace
}  // namespace simscope::lsq::detail
