#pragma once
/// @file CUDA kernels of the field workload. Included by field_cuda.cu only.
///
/// field_kernel<R, RB>: each block of kThreads threads owns kThreads * RB targets, RB per
/// thread, strided by kThreads so loads and atomics coalesce. blockIdx.y picks the block's
/// range of sources inside the launch's chunk. Sources stream through shared memory in tiles
/// of kTile float4 (x, y, z, q); the next tile is prefetched into registers. Per tile each
/// thread sums the terms for its RB targets in R, then adds the tile's partial sums into fp64
/// registers. R = float: fp32 terms with rsqrt.approx, summed in sub-tiles of 32 whose sums are
/// then added. R = double: fp64.
/// The hot loop has no select. A coincidence (r^2 == 0) makes the tile's sums non-finite; that
/// rare tile is redone for that target in fp64 at the exact positions (fp64 target, fp32 source
/// re-read from global memory), skipping and counting r^2 == 0 terms as the CPU evaluator
/// does. So only a target exactly on a source in fp64 is skipped.
/// Coordinates are relative to the evaluation's origin (ox, oy, oz), by detail::local_origin's
/// rule; zero in fp64. Each source is shifted in fp64 and rounded to fp32 as it is stored into
/// shared memory, once per source and block; each target likewise when loaded. The cached
/// device sources are never rewritten.
/// At the end each thread adds its fp64 sums into acc with atomicAdd on double; several blocks
/// share a target when the sources are split.
///
/// Cost per pair in fp32: 14 issue slots (3 FADD, 3 FFMA, 1 MUFU.RSQ, 3 FMUL, 3 FFMA, 1 FADD),
/// one LDS.128 per RB pairs, and per 32 pairs 4 FADD and 4 register clears for the sub-tile
/// sums. Breakdown: tests/bench/NOTES.md "CUDA".
#include <cuda_runtime.h>

namespace simscope::field::cuda {

constexpr int kThreads = 256;  // threads per block
constexpr int kTile = 256;     // sources per shared-memory tile (one float4 load per thread)
constexpr float kFar = 1e30f;  // padding position: r^2 overflows to inf, 1/r to 0, q is 0
static_assert(kTile == kThreads, "each thread loads one source of a tile");

/// Sources per first-level sum of a tile. fp32: sums of 32 terms, then the 8 sums added; the
/// error this saves is in tests/bench/NOTES.md "CUDA". fp64: the whole tile.
template <typename R>
struct SubTile {
  static constexpr int n = kTile;
};
template <>
struct SubTile<float> {
  static constexpr int n = 32;
};
static_assert(kTile % SubTile<float>::n == 0, "whole sub-tiles");

__device__ __forceinline__ float rsqrt_fast(float x) {
  float y;  // max relative error 2^-22.9 (PTX ISA); +0 -> +inf, +inf -> +0
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ double rsqrt_fast(double x) { return ::rsqrt(x); }  // 1 ulp

template <typename R>
__device__ __forceinline__ R fma_(R a, R b, R c) {
  return ::fma(a, b, c);
}
template <>
__device__ __forceinline__ float fma_<float>(float a, float b, float c) {
  return ::fmaf(a, b, c);
}

/// Target coordinates, already relative to the origin in fp64, as the evaluator sees them:
/// rounded to fp32 in fp32 mode, as on the CPU.
template <typename R>
__device__ __forceinline__ R target_coord(double v) {
  return R(v);
}
template <>
__device__ __forceinline__ float target_coord<float>(double v) {
  return __double2float_rn(v);
}

/// A source relative to the origin: fp32(double(y) - o) per coordinate; q unchanged.
__device__ __forceinline__ float4 shifted(float4 s, double ox, double oy, double oz) {
  return make_float4(__double2float_rn(double(s.x) - ox), __double2float_rn(double(s.y) - oy),
                     __double2float_rn(double(s.z) - oz), s.w);
}

/// Sums over sources [j_begin, j_end). The block's range is [j_begin + blockIdx.y * per_block,
/// + per_block). acc holds 4 arrays of T doubles: the Ex, Ey, Ez, phi sums, without k.
template <typename R, int RB>
__global__ void __launch_bounds__(kThreads)
    field_kernel(const float4* __restrict__ src, int j_begin, int j_end, int per_block,
                 const double* __restrict__ tx, const double* __restrict__ ty,
                 const double* __restrict__ tz, int T, double ox, double oy, double oz, double eps2,
                 double* __restrict__ acc, unsigned long long* __restrict__ skipped) {
  __shared__ float4 tile[kTile];
  const int base = blockIdx.x * (kThreads * RB) + threadIdx.x;
  const long long jb = (long long)j_begin + (long long)blockIdx.y * per_block;
  const int j0 = int(jb < j_end ? jb : j_end);
  const int j1 = int(jb + per_block < j_end ? jb + per_block : j_end);
  const R e2 = R(eps2);

  R px[RB], py[RB], pz[RB];
  double Ex[RB], Ey[RB], Ez[RB], Ph[RB];
#pragma unroll
  for (int r = 0; r < RB; ++r) {
    const int i = base + r * kThreads;
    px[r] = i < T ? target_coord<R>(tx[i] - ox) : R(0);
    py[r] = i < T ? target_coord<R>(ty[i] - oy) : R(0);
    pz[r] = i < T ? target_coord<R>(tz[i] - oz) : R(0);
    Ex[r] = Ey[r] = Ez[r] = Ph[r] = 0.0;
  }
  unsigned long long nskip = 0;

  const float4 pad = make_float4(kFar, kFar, kFar, 0.f);
  float4 next = j0 + int(threadIdx.x) < j1 ? shifted(src[j0 + threadIdx.x], ox, oy, oz) : pad;
  for (int jt = j0; jt < j1; jt += kTile) {
    tile[threadIdx.x] = next;
    __syncthreads();
    {  // prefetch the next tile into a register while this one is computed
      const int jn = jt + kTile + int(threadIdx.x);
      next = jn < j1 ? shifted(src[jn], ox, oy, oz) : pad;
    }
    R ax[RB], ay[RB], az[RB], ap[RB];
#pragma unroll
    for (int r = 0; r < RB; ++r) ax[r] = ay[r] = az[r] = ap[r] = R(0);
#pragma unroll 1
    for (int k0 = 0; k0 < kTile; k0 += SubTile<R>::n) {
      R bx[RB], by[RB], bz[RB], bp[RB];  // sums over sub-tile [k0, k0 + n)
#pragma unroll
      for (int r = 0; r < RB; ++r) bx[r] = by[r] = bz[r] = bp[r] = R(0);
#pragma unroll 8
      for (int k = k0; k < k0 + SubTile<R>::n; ++k) {
        const float4 s = tile[k];
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          const R dx = px[r] - R(s.x), dy = py[r] - R(s.y), dz = pz[r] - R(s.z);
          const R r2 = fma_(dx, dx, fma_(dy, dy, fma_(dz, dz, e2)));
          const R inv = rsqrt_fast(r2);
          const R qi = R(s.w) * inv, w = qi * (inv * inv);
          bx[r] = fma_(w, dx, bx[r]), by[r] = fma_(w, dy, by[r]), bz[r] = fma_(w, dz, bz[r]);
          bp[r] += qi;
        }
      }
#pragma unroll
      for (int r = 0; r < RB; ++r) ax[r] += bx[r], ay[r] += by[r], az[r] += bz[r], ap[r] += bp[r];
    }
#pragma unroll
    for (int r = 0; r < RB; ++r) {
      if (base + r * kThreads >= T) continue;
      if (isfinite(ax[r] + ay[r] + az[r] + ap[r])) {
        Ex[r] += double(ax[r]), Ey[r] += double(ay[r]), Ez[r] += double(az[r]);
        Ph[r] += double(ap[r]);
      } else {  // a coincidence or an overflow in this tile: redo it in fp64 for this target
        const int n = j1 - jt < kTile ? j1 - jt : kTile;
        const int i = base + r * kThreads;
        const double x = tx[i], y = ty[i], z = tz[i];  // exact, unshifted (as the CPU's)
        for (int k = 0; k < n; ++k) {
          const float4 s = src[jt + k];
          const double dx = x - double(s.x), dy = y - double(s.y), dz = z - double(s.z);
          const double r2 = dx * dx + dy * dy + dz * dz + eps2;
          if (r2 == 0.0) {
            ++nskip;
            continue;
          }
          const double inv = 1.0 / sqrt(r2), qi = double(s.w) * inv, w = qi * inv * inv;
          Ex[r] += w * dx, Ey[r] += w * dy, Ez[r] += w * dz, Ph[r] += qi;
        }
      }
    }
    __syncthreads();
  }
  if (nskip) atomicAdd(skipped, nskip);
  if (j0 >= j1) return;
#pragma unroll
  for (int r = 0; r < RB; ++r) {
    const int i = base + r * kThreads;
    if (i >= T) continue;
    atomicAdd(acc + i, Ex[r]);
    atomicAdd(acc + T + i, Ey[r]);
    atomicAdd(acc + 2 * (size_t)T + i, Ez[r]);
    atomicAdd(acc + 3 * (size_t)T + i, Ph[r]);
  }
}

/// out = 5 arrays of T floats: |E|, Ex, Ey, Ez, phi, all times k.
__global__ void finalize_kernel(const double* __restrict__ acc, int T, double k,
                                float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= T) return;
  // acc holds sum q (x - y) / r^3; field.hpp's E is k sum q (y - x) / r^3.
  const double ex = -k * acc[i], ey = -k * acc[T + i], ez = -k * acc[2 * (size_t)T + i];
  out[i] = float(sqrt(ex * ex + ey * ey + ez * ez));
  out[(size_t)T + i] = float(ex);
  out[2 * (size_t)T + i] = float(ey);
  out[3 * (size_t)T + i] = float(ez);
  out[4 * (size_t)T + i] = float(k * acc[3 * (size_t)T + i]);
}

}  // namespace simscope::field::cuda
