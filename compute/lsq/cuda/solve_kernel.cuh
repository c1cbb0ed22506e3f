#pragma once
// Step 4 of a chunk (solver.cuh): one warp per pixel solves the Gram path (G + lambda I,
// Cholesky, condition estimate, solve, refinement, residual) or applies the shared SVD's operator
// to a pixel without gaps. Launched by chunks.cu. Include from .cu files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "lsq/cuda/warp.cuh"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {
namespace {

constexpr int kMaxWarpsPerBlock = 8;

struct SolveArgs {
  int M, N, pc;
  double lambda;
  bool refine;       // method auto
  double threshold;  // cond(G) above which a pixel goes to the host SVD
  const double* a;   // M x N row-major (float64)
  const double* op;  // N x M row-major: the shared SVD's operator
  std::uint8_t shared_status;
  float shared_condition;
  const std::uint8_t* kind;
  const int* count;
  const double* bpm;        // M x pc pixel-major, gaps = 0
  const std::uint8_t* mpm;  // M x pc pixel-major mask
  const double* h;          // N x pc column-major: A^T b
  double* r;                // M x pc pixel-major scratch
  double* x;                // N x pc row-major: solution (for a pitched copy)
  float* residual;
  float* condition;
  std::uint8_t* status;
};

template <class T>
__global__ void solve_kernel(SolveArgs a, const T* __restrict__ gram) {
  extern __shared__ double smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int q = blockIdx.x * (blockDim.x >> 5) + warp;
  if (q >= a.pc) return;  // uniform per warp
  const int M = a.M, N = a.N, NT = N * (N + 1) / 2;
  const std::size_t per_warp =
      (((std::size_t(NT) + N) * sizeof(T) + 7) / 8) + 3 * std::size_t(N);  // in doubles
  double* base = smem + per_warp * warp;
  T* L = reinterpret_cast<T*>(base);
  T* col = L + NT;
  double* x = base + ((std::size_t(NT) + N) * sizeof(T) + 7) / 8;
  double* z = x + N;
  double* s = z + N;
  const double* b = a.bpm + std::size_t(q) * M;
  const std::uint8_t* w = a.mpm + std::size_t(q) * M;
  const int cnt = a.count[q];
  const std::uint8_t kind = a.kind[q];
  const double nan = __longlong_as_double(0x7ff8000000000000ll);

  auto write_x = [&]() {
    for (int k = lane; k < N; k += 32) a.x[std::size_t(k) * a.pc + q] = x[k];
  };
  auto residual = [&]() {  // RMS over observed rows of A_i . x - b_i
    double ss = 0;
    for (int i = lane; i < M; i += 32) {
      if (!w[i]) continue;
      const double* ai = a.a + std::size_t(i) * N;
      double t = -b[i];
      for (int k = 0; k < N; ++k) t += ai[k] * x[k];
      ss += t * t;
    }
    ss = warp_sum(ss);
    return sqrt(ss / cnt);
  };

  if (kind == kKindEmpty) {
    for (int k = lane; k < N; k += 32) a.x[std::size_t(k) * a.pc + q] = nan;
    if (lane == 0) {
      a.status[q] = kAllMissing;
      a.residual[q] = float(nan);
      a.condition[q] = float(nan);
    }
    return;
  }
  if (kind == kKindDowndate || kind == kKindMinNorm) return;  // small_kernel.cu
  if (kind == kKindHost) {
    if (lane == 0) a.status[q] = kStatusHost;
    return;
  }
  if (kind == kKindShared) {
    for (int k = lane; k < N; k += 32) {
      const double* row = a.op + std::size_t(k) * M;
      double t = 0;
      for (int i = 0; i < M; ++i) t += row[i] * b[i];
      x[k] = t;
    }
    __syncwarp();
    write_x();
    const double res = residual();
    if (lane == 0) {
      a.status[q] = a.shared_status;
      a.condition[q] = a.shared_condition;
      a.residual[q] = float(res);
    }
    return;
  }

  // Cholesky path: G + lambda I, its 1-norm and the breakdown tolerance N eps max(diag G).
  const T* g = gram + std::size_t(q) * NT;
  for (int t = lane; t < NT; t += 32) L[t] = g[t];
  __syncwarp();
  for (int i = lane; i < N; i += 32) L[rowbase(i) + i] += T(a.lambda);
  __syncwarp();
  double norm1 = 0, maxdiag = 0;
  for (int i = lane; i < N; i += 32) {
    double c = 0;
    for (int j = 0; j < N; ++j) c += fabs(double(i >= j ? L[rowbase(i) + j] : L[rowbase(j) + i]));
    norm1 = fmax(norm1, c);
    maxdiag = fmax(maxdiag, double(L[rowbase(i) + i]));
  }
  for (int o = 16; o > 0; o >>= 1) {
    norm1 = fmax(norm1, __shfl_xor_sync(0xffffffffu, norm1, o));
    maxdiag = fmax(maxdiag, __shfl_xor_sync(0xffffffffu, maxdiag, o));
  }
  __syncwarp();
  const T tol = T(N) * std::numeric_limits<T>::epsilon() * T(maxdiag);
  if (!warp_cholesky(L, col, N, tol, lane)) {
    if (lane == 0) a.status[q] = kStatusHost;
    return;
  }
  const double cond = norm1 * warp_inv_norm1(L, N, x, z, s, lane);
  if (!(cond <= a.threshold)) {
    if (lane == 0) a.status[q] = kStatusHost;
    return;
  }
  // x = G^-1 A^T b, then, for method auto, one refinement step with the float64 residual.
  for (int k = lane; k < N; k += 32) x[k] = a.h[std::size_t(q) * N + k];
  __syncwarp();
  warp_solve(L, N, x, lane);
  if (a.refine) {
    double* r = a.r + std::size_t(q) * M;
    for (int i = lane; i < M; i += 32) {
      double t = 0;
      if (w[i]) {
        const double* ai = a.a + std::size_t(i) * N;
        t = b[i];
        for (int k = 0; k < N; ++k) t -= ai[k] * x[k];
      }
      r[i] = t;
    }
    __syncwarp();
    for (int k = lane; k < N; k += 32) {
      double d = -a.lambda * x[k];
      for (int i = 0; i < M; ++i) d += a.a[std::size_t(i) * N + k] * r[i];
      z[k] = d;
    }
    __syncwarp();
    warp_solve(L, N, z, lane);
    for (int k = lane; k < N; k += 32) x[k] += z[k];
    __syncwarp();
  }
  write_x();
  const double res = residual();
  if (lane == 0) {
    a.status[q] = cnt < N ? kUnderdetermined : kOk;
    a.condition[q] = float(sqrt(cond));
    a.residual[q] = float(res);
  }
}

}  // namespace
}  // namespace simscope::lsq::detail
