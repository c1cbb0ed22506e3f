// The CUDA lsq solver's downdate and minimum-norm paths (small_kernel.cuh): one warp per
// pixel, lsq_downdate.hpp's algorithm in float64, with the pixel's small matrix in shared memory.
//  - Downdate (kKindDowndate, Sherman-Morrison-Woodbury): S = the s missing rows, listed by warp
//    ballots. K = I - C_SS gathered from C; z = A_S y with y = B (w o b) from the chunk's cuBLAS
//    GEMM; Cholesky of K, failing on a pivot <= s eps max(diag K); the 1-norm estimate of K^-1,
//    with cond2(G_p) <= cond2(G) ||K^-1||_1; u = K^-1 z; x = y + B_:S u.
//  - Minimum norm (kKindMinNorm, k = m_p < N observed rows O): R_OO + lambda I gathered from
//    R = A A^T; Cholesky, failing on a pivot <= k eps max(diag); cond = ||R_OO||_1 est
//    ||R_OO^-1||_1; v = R_OO^-1 b_O; x = A_O^T v.
//  - Both: one refinement step with the float64 residual where the estimate exceeds
//    kRefineCondition. Beyond `limit`, or on a breakdown, the pixel is marked for the host SVD.
//    Writes the residual RMS over the observed rows, the status (1 if m_p < N, else 0) and the
//    condition as the CPU back end's fp64 groups do: sqrt of the estimate, or
//    sqrt(||R_OO + lambda I||_1 / lambda) for min-norm with lambda > 0.
#include <algorithm>
#include <limits>

#include "core/cuda_check.hpp"
#include "lsq/lsq.hpp"
#include "lsq/cuda/small_kernel.cuh"
#include "lsq/lsq_downdate.hpp"
#include "lsq/cuda/warp.cuh"

namespace simscope::lsq::detail {
namespace {

constexpr int kMaxSmallWarps = 8;

__device__ __forceinline__ double dot_global(const double* a, const double* b, int n) {
  double s0 = 0, s1 = 0;
  int k = 0;
  for (; k + 1 < n; k += 2) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
  }
  if (k < n) s0 += a[k] * b[k];
  return s0 + s1;
}

__global__ void small_kernel(SmallArgs a) {
  extern __shared__ double smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int q = blockIdx.x * (blockDim.x >> 5) + warp;
  if (q >= a.pc) return;  // uniform per warp
  const std::uint8_t kind = a.kind[q];
  if (kind != kKindDowndate && kind != kKindMinNorm) return;
  const bool down = kind == kKindDowndate;
  const int M = a.M, N = a.N, n = a.nmax;
  const std::size_t nt = std::size_t(n) * (n + 1) / 2;
  double* base = smem + (small_warp_bytes(n, N) / sizeof(double)) * warp;
  double* L = base;
  double* col = L + nt;
  double* ex = col + n;
  double* ez = ex + n;
  double* es = ez + n;
  double* u = es + n;
  double* y = u + n;
  double* x = y + N;
  double* g = x + N;
  double* y2 = g + N;
  int* idx = reinterpret_cast<int*>(y2 + N);
  const double* b = a.bpm + std::size_t(q) * M;
  const std::uint8_t* w = a.mpm + std::size_t(q) * M;
  const int cnt = a.count[q];
  const double* A = a.a;

  // The rows of the small matrix, ascending: missing ones (downdate) or observed (min-norm).
  int s = 0;
  for (int i0 = 0; i0 < M; i0 += 32) {
    const int i = i0 + lane;
    const bool take = i < M && ((w[i] != 0) != down);
    const unsigned bal = __ballot_sync(0xffffffffu, take);
    const int at = s + __popc(bal & ((1u << lane) - 1u));
    if (take && at < n) idx[at] = i;
    s += __popc(bal);
  }
  __syncwarp();
  auto to_host = [&]() {
    if (lane == 0) a.status[q] = kStatusHost;
  };
  if (s < 1 || s > n) {  // the classify kernel's sizes say this cannot happen
    to_host();
    return;
  }

  // The small matrix, packed lower row-major, and its right-hand side.
  if (down)
    for (int k = lane; k < N; k += 32) y[k] = a.y[std::size_t(q) * N + k];
  for (int i = 0; i < s; ++i) {
    const double* src = (down ? a.c : a.r) + std::size_t(idx[i]) * M;
    double* Li = L + rowbase(i);
    for (int j = lane; j <= i; j += 32) {
      const double v = src[idx[j]];
      Li[j] = down ? (i == j ? 1.0 : 0.0) - v : v + (i == j ? a.lambda : 0.0);
    }
  }
  __syncwarp();
  for (int t = lane; t < s; t += 32)
    u[t] = down ? dot_global(A + std::size_t(idx[t]) * N, y, N) : b[idx[t]];
  double norm1 = 0, maxdiag = 0;
  for (int i = lane; i < s; i += 32) {
    double c = 0;
    for (int j = 0; j < s; ++j) c += fabs(i >= j ? L[rowbase(i) + j] : L[rowbase(j) + i]);
    norm1 = fmax(norm1, c);
    maxdiag = fmax(maxdiag, L[rowbase(i) + i]);
  }
  for (int o = 16; o > 0; o >>= 1) {
    norm1 = fmax(norm1, __shfl_xor_sync(0xffffffffu, norm1, o));
    maxdiag = fmax(maxdiag, __shfl_xor_sync(0xffffffffu, maxdiag, o));
  }
  __syncwarp();
  const double tol = double(s) * std::numeric_limits<double>::epsilon() * maxdiag;
  if (!warp_cholesky(L, col, s, tol, lane)) {
    to_host();
    return;
  }
  const double est = warp_inv_norm1<double, kSmallHagerIterations>(L, s, ex, ez, es, lane);
  const double cond = down ? a.cond_g * est : norm1 * est;
  if (!(cond <= a.limit)) {
    to_host();
    return;
  }
  __syncwarp();
  warp_solve(L, s, u, lane);
  // x = y + B_:S u (downdate) or A_O^T v (min-norm); lanes over the unknowns, rows coalesced.
  const double* rowsrc = down ? a.bt : A;
  for (int k = lane; k < N; k += 32) {
    double t = down ? y[k] : 0.0;
    for (int j = 0; j < s; ++j) t += rowsrc[std::size_t(idx[j]) * N + k] * u[j];
    x[k] = t;
  }
  __syncwarp();
  if (cond > kRefineCondition) {
    if (down) {
      // g = A_p^T (b - A_p x) - lambda x, y2 = G^-1 g, z2 = A_S y2, x += y2 + B_:S K^-1 z2.
      double* r = a.scratch + std::size_t(q) * M;
      for (int i = lane; i < M; i += 32)
        r[i] = w[i] ? b[i] - dot_global(A + std::size_t(i) * N, x, N) : 0.0;
      __syncwarp();
      for (int k = lane; k < N; k += 32) {
        double d = -a.lambda * x[k];
        for (int i = 0; i < M; ++i) d += A[std::size_t(i) * N + k] * r[i];
        g[k] = d;
      }
      __syncwarp();
      for (int k = lane; k < N; k += 32) y2[k] = dot_global(a.ginv + std::size_t(k) * N, g, N);
      __syncwarp();
      for (int t = lane; t < s; t += 32) ez[t] = dot_global(A + std::size_t(idx[t]) * N, y2, N);
      __syncwarp();
      warp_solve(L, s, ez, lane);
      for (int k = lane; k < N; k += 32) {
        double t = y2[k];
        for (int j = 0; j < s; ++j) t += a.bt[std::size_t(idx[j]) * N + k] * ez[j];
        x[k] += t;
      }
    } else {
      // rho = b_O - A_O x - lambda v, x += A_O^T (R_OO + lambda I)^-1 rho.
      for (int t = lane; t < s; t += 32)
        ez[t] = b[idx[t]] - dot_global(A + std::size_t(idx[t]) * N, x, N) - a.lambda * u[t];
      __syncwarp();
      warp_solve(L, s, ez, lane);
      for (int k = lane; k < N; k += 32) {
        double t = 0;
        for (int j = 0; j < s; ++j) t += A[std::size_t(idx[j]) * N + k] * ez[j];
        x[k] += t;
      }
    }
    __syncwarp();
  }
  for (int k = lane; k < N; k += 32) a.x[std::size_t(k) * a.pc + q] = x[k];
  double ss = 0;  // RMS over the observed rows of A_i . x - b_i
  for (int i = lane; i < M; i += 32) {
    if (!w[i]) continue;
    const double t = dot_global(A + std::size_t(i) * N, x, N) - b[i];
    ss += t * t;
  }
  ss = warp_sum(ss);
  if (lane == 0) {
    a.status[q] = cnt < N ? kUnderdetermined : kOk;
    a.condition[q] = float(!down && a.lambda > 0 ? sqrt(norm1 / a.lambda) : sqrt(cond));
    a.residual[q] = float(sqrt(ss / cnt));
  }
}

}  // namespace

void launch_small(const SmallArgs& a, std::size_t smem_optin, cudaStream_t stream) {
  const std::size_t per_warp = small_warp_bytes(a.nmax, a.N);
  if (per_warp > smem_optin)
    throw Error("lsq (CUDA): the small solves' size " + std::to_string(a.nmax) +
                " exceeds the device's shared memory");
  const int warps = int(std::clamp<std::size_t>(smem_optin / per_warp, 1, kMaxSmallWarps));
  // Blocks of up to 8 warps, but small enough shared memory for several blocks per SM.
  const int use = std::max(1, std::min(warps, int((48 * 1024) / per_warp)));
  const std::size_t shm = per_warp * std::size_t(use);
  if (shm > 48 * 1024)
    SIMSCOPE_CUDA_CHECK(
        cudaFuncSetAttribute(small_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));
  small_kernel<<<unsigned((a.pc + use - 1) / use), unsigned(32 * use), shm, stream>>>(a);
  SIMSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace simscope::lsq::detail
