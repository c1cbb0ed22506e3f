#pragma once
/// @file Inner loops of the CPU field evaluator: one target against one tile of sources.
/// Explicit AVX-512, AVX2 + FMA or SSE2 code, whichever the instruction-set level this file is
/// compiled for has (core/isa.hpp: x86-64-v4, v3, v2), a scalar loop for the tile's remainder.
/// Intrinsics are needed because GCC does not vectorise 1/sqrt in a plain loop without
/// -fno-math-errno, which the build does not set. Every path sums in 16 fp32 (8 fp64) lanes, so
/// the rounding of long tiles is alike at every level; FMA exists from v3 only.
///
/// Every routine adds the tile's sums (x - y_j) q_j / r^3 (3 components) and q_j / r, with
/// r^2 = |x - y_j|^2 + eps^2, to `out[0..3]`, without checking r^2 > 0. A coincidence
/// (r^2 == 0) makes the result non-finite; the caller then redoes that tile with
/// tile_checked(), which skips and counts such terms. So the hot loop carries no select.
#include <cmath>
#include <cstdint>

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

// GCC 12 reports false "maybe-uninitialized" warnings inside the AVX-512 reduction intrinsics.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace simscope::field::cpu {

/// a * b + c, fused where the level has FMA (a library call otherwise).
inline float fmadd(float a, float b, float c) {
#if defined(__FMA__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

/// Source arrays of one tile, fp32 SoA, and its length.
struct Tile {
  const float *x, *y, *z, *q;
  int n;
};

/// Float64 version of a tile for one target, skipping and counting terms with r^2 == 0.
/// Used for tiles whose fast sums are not finite, and by the fp64 scalar fallback.
inline void tile_checked(const Tile& s, double tx, double ty, double tz, double eps2, double out[4],
                         std::uint64_t& skipped) {
  for (int j = 0; j < s.n; ++j) {
    const double dx = tx - s.x[j], dy = ty - s.y[j], dz = tz - s.z[j];
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    if (r2 == 0) {
      ++skipped;
      continue;
    }
    const double inv = 1.0 / std::sqrt(r2), qi = s.q[j] * inv, w = qi * inv * inv;
    out[0] += w * dx, out[1] += w * dy, out[2] += w * dz, out[3] += qi;
  }
}

/// fp32 terms and fp32 sums over the tile. Overwrites sums[0..3].
inline void tile_fp32(const Tile& s, float tx, float ty, float tz, float eps2, float sums[4]) {
  float a = 0, b = 0, c = 0, p = 0;
  int j = 0;
#if defined(__AVX512F__)
  {
    __m512 va = _mm512_setzero_ps(), vb = va, vc = va, vp = va;
    const __m512 X = _mm512_set1_ps(tx), Y = _mm512_set1_ps(ty), Z = _mm512_set1_ps(tz),
                 E2 = _mm512_set1_ps(eps2), one = _mm512_set1_ps(1.0f);
    for (; j + 16 <= s.n; j += 16) {
      const __m512 dx = _mm512_sub_ps(X, _mm512_loadu_ps(s.x + j));
      const __m512 dy = _mm512_sub_ps(Y, _mm512_loadu_ps(s.y + j));
      const __m512 dz = _mm512_sub_ps(Z, _mm512_loadu_ps(s.z + j));
      const __m512 r2 =
          _mm512_fmadd_ps(dx, dx, _mm512_fmadd_ps(dy, dy, _mm512_fmadd_ps(dz, dz, E2)));
      const __m512 inv = _mm512_div_ps(one, _mm512_sqrt_ps(r2));
      const __m512 qi = _mm512_mul_ps(_mm512_loadu_ps(s.q + j), inv);
      const __m512 w = _mm512_mul_ps(qi, _mm512_mul_ps(inv, inv));
      va = _mm512_fmadd_ps(w, dx, va), vb = _mm512_fmadd_ps(w, dy, vb);
      vc = _mm512_fmadd_ps(w, dz, vc), vp = _mm512_add_ps(vp, qi);
    }
    a = _mm512_reduce_add_ps(va), b = _mm512_reduce_add_ps(vb);
    c = _mm512_reduce_add_ps(vc), p = _mm512_reduce_add_ps(vp);
  }
#elif defined(__AVX2__) && defined(__FMA__)
  {
    __m256 va = _mm256_setzero_ps(), vb = va, vc = va, vp = va;
    const __m256 X = _mm256_set1_ps(tx), Y = _mm256_set1_ps(ty), Z = _mm256_set1_ps(tz),
                 E2 = _mm256_set1_ps(eps2), one = _mm256_set1_ps(1.0f);
    for (; j + 8 <= s.n; j += 8) {
      const __m256 dx = _mm256_sub_ps(X, _mm256_loadu_ps(s.x + j));
      const __m256 dy = _mm256_sub_ps(Y, _mm256_loadu_ps(s.y + j));
      const __m256 dz = _mm256_sub_ps(Z, _mm256_loadu_ps(s.z + j));
      const __m256 r2 =
          _mm256_fmadd_ps(dx, dx, _mm256_fmadd_ps(dy, dy, _mm256_fmadd_ps(dz, dz, E2)));
      const __m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(r2));
      const __m256 qi = _mm256_mul_ps(_mm256_loadu_ps(s.q + j), inv);
      const __m256 w = _mm256_mul_ps(qi, _mm256_mul_ps(inv, inv));
      va = _mm256_fmadd_ps(w, dx, va), vb = _mm256_fmadd_ps(w, dy, vb);
      vc = _mm256_fmadd_ps(w, dz, vc), vp = _mm256_add_ps(vp, qi);
    }
    alignas(32) float t[4][8];
    _mm256_store_ps(t[0], va), _mm256_store_ps(t[1], vb), _mm256_store_ps(t[2], vc);
    _mm256_store_ps(t[3], vp);
    for (int l = 0; l < 8; ++l) a += t[0][l], b += t[1][l], c += t[2][l], p += t[3][l];
  }
#elif defined(__SSE2__)
  {
    // Four 4-lane blocks per 16 sources: the 16 lanes of the AVX-512 path, without FMA.
    __m128 va[4], vb[4], vc[4], vp[4];
    for (int k = 0; k < 4; ++k) va[k] = vb[k] = vc[k] = vp[k] = _mm_setzero_ps();
    const __m128 X = _mm_set1_ps(tx), Y = _mm_set1_ps(ty), Z = _mm_set1_ps(tz),
                 E2 = _mm_set1_ps(eps2), one = _mm_set1_ps(1.0f);
    for (; j + 16 <= s.n; j += 16)
      for (int k = 0; k < 4; ++k) {
        const int i = j + 4 * k;
        const __m128 dx = _mm_sub_ps(X, _mm_loadu_ps(s.x + i));
        const __m128 dy = _mm_sub_ps(Y, _mm_loadu_ps(s.y + i));
        const __m128 dz = _mm_sub_ps(Z, _mm_loadu_ps(s.z + i));
        const __m128 r2 = _mm_add_ps(
            _mm_mul_ps(dx, dx), _mm_add_ps(_mm_mul_ps(dy, dy), _mm_add_ps(_mm_mul_ps(dz, dz), E2)));
        const __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(r2));
        const __m128 qi = _mm_mul_ps(_mm_loadu_ps(s.q + i), inv);
        const __m128 w = _mm_mul_ps(qi, _mm_mul_ps(inv, inv));
        va[k] = _mm_add_ps(va[k], _mm_mul_ps(w, dx)), vb[k] = _mm_add_ps(vb[k], _mm_mul_ps(w, dy));
        vc[k] = _mm_add_ps(vc[k], _mm_mul_ps(w, dz)), vp[k] = _mm_add_ps(vp[k], qi);
      }
    alignas(16) float t[4][4][4];
    for (int k = 0; k < 4; ++k) {
      _mm_store_ps(t[0][k], va[k]), _mm_store_ps(t[1][k], vb[k]), _mm_store_ps(t[2][k], vc[k]);
      _mm_store_ps(t[3][k], vp[k]);
    }
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 4; ++l) a += t[0][k][l], b += t[1][k][l], c += t[2][k][l], p += t[3][k][l];
  }
#endif
  for (; j < s.n; ++j) {  // the tile's remainder
    const float dx = tx - s.x[j], dy = ty - s.y[j], dz = tz - s.z[j];
    const float r2 = fmadd(dx, dx, fmadd(dy, dy, fmadd(dz, dz, eps2)));
    const float inv = 1.0f / std::sqrt(r2), qi = s.q[j] * inv, w = qi * (inv * inv);
    a = fmadd(w, dx, a), b = fmadd(w, dy, b), c = fmadd(w, dz, c), p += qi;
  }
  sums[0] = a, sums[1] = b, sums[2] = c, sums[3] = p;
}

/// fp64 terms and sums over the tile, sources converted from fp32. Overwrites sums[0..3].
inline void tile_fp64(const Tile& s, double tx, double ty, double tz, double eps2, double sums[4]) {
  double a = 0, b = 0, c = 0, p = 0;
  int j = 0;
#if defined(__AVX512F__)
  {
    __m512d va = _mm512_setzero_pd(), vb = va, vc = va, vp = va;
    const __m512d X = _mm512_set1_pd(tx), Y = _mm512_set1_pd(ty), Z = _mm512_set1_pd(tz),
                  E2 = _mm512_set1_pd(eps2), one = _mm512_set1_pd(1.0);
    for (; j + 8 <= s.n; j += 8) {
      const __m512d dx = _mm512_sub_pd(X, _mm512_cvtps_pd(_mm256_loadu_ps(s.x + j)));
      const __m512d dy = _mm512_sub_pd(Y, _mm512_cvtps_pd(_mm256_loadu_ps(s.y + j)));
      const __m512d dz = _mm512_sub_pd(Z, _mm512_cvtps_pd(_mm256_loadu_ps(s.z + j)));
      const __m512d r2 =
          _mm512_fmadd_pd(dx, dx, _mm512_fmadd_pd(dy, dy, _mm512_fmadd_pd(dz, dz, E2)));
      const __m512d inv = _mm512_div_pd(one, _mm512_sqrt_pd(r2));
      const __m512d qi = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_loadu_ps(s.q + j)), inv);
      const __m512d w = _mm512_mul_pd(qi, _mm512_mul_pd(inv, inv));
      va = _mm512_fmadd_pd(w, dx, va), vb = _mm512_fmadd_pd(w, dy, vb);
      vc = _mm512_fmadd_pd(w, dz, vc), vp = _mm512_add_pd(vp, qi);
    }
    a = _mm512_reduce_add_pd(va), b = _mm512_reduce_add_pd(vb);
    c = _mm512_reduce_add_pd(vc), p = _mm512_reduce_add_pd(vp);
  }
#elif defined(__AVX2__) && defined(__FMA__)
  {
    __m256d va = _mm256_setzero_pd(), vb = va, vc = va, vp = va;
    const __m256d X = _mm256_set1_pd(tx), Y = _mm256_set1_pd(ty), Z = _mm256_set1_pd(tz),
                  E2 = _mm256_set1_pd(eps2), one = _mm256_set1_pd(1.0);
    for (; j + 4 <= s.n; j += 4) {
      const __m256d dx = _mm256_sub_pd(X, _mm256_cvtps_pd(_mm_loadu_ps(s.x + j)));
      const __m256d dy = _mm256_sub_pd(Y, _mm256_cvtps_pd(_mm_loadu_ps(s.y + j)));
      const __m256d dz = _mm256_sub_pd(Z, _mm256_cvtps_pd(_mm_loadu_ps(s.z + j)));
      const __m256d r2 =
          _mm256_fmadd_pd(dx, dx, _mm256_fmadd_pd(dy, dy, _mm256_fmadd_pd(dz, dz, E2)));
      const __m256d inv = _mm256_div_pd(one, _mm256_sqrt_pd(r2));
      const __m256d qi = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(s.q + j)), inv);
      const __m256d w = _mm256_mul_pd(qi, _mm256_mul_pd(inv, inv));
      va = _mm256_fmadd_pd(w, dx, va), vb = _mm256_fmadd_pd(w, dy, vb);
      vc = _mm256_fmadd_pd(w, dz, vc), vp = _mm256_add_pd(vp, qi);
    }
    alignas(32) double t[4][4];
    _mm256_store_pd(t[0], va), _mm256_store_pd(t[1], vb), _mm256_store_pd(t[2], vc);
    _mm256_store_pd(t[3], vp);
    for (int l = 0; l < 4; ++l) a += t[0][l], b += t[1][l], c += t[2][l], p += t[3][l];
  }
#elif defined(__SSE2__)
  {
    // Four 2-lane blocks per 8 sources: the 8 lanes of the AVX-512 path, without FMA.
    __m128d va[4], vb[4], vc[4], vp[4];
    for (int k = 0; k < 4; ++k) va[k] = vb[k] = vc[k] = vp[k] = _mm_setzero_pd();
    const __m128d X = _mm_set1_pd(tx), Y = _mm_set1_pd(ty), Z = _mm_set1_pd(tz),
                  E2 = _mm_set1_pd(eps2), one = _mm_set1_pd(1.0);
    auto load2 = [](const float* f) {  // two floats as two doubles
      return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(f))));
    };
    for (; j + 8 <= s.n; j += 8)
      for (int k = 0; k < 4; ++k) {
        const int i = j + 2 * k;
        const __m128d dx = _mm_sub_pd(X, load2(s.x + i));
        const __m128d dy = _mm_sub_pd(Y, load2(s.y + i));
        const __m128d dz = _mm_sub_pd(Z, load2(s.z + i));
        const __m128d r2 = _mm_add_pd(
            _mm_mul_pd(dx, dx), _mm_add_pd(_mm_mul_pd(dy, dy), _mm_add_pd(_mm_mul_pd(dz, dz), E2)));
        const __m128d inv = _mm_div_pd(one, _mm_sqrt_pd(r2));
        const __m128d qi = _mm_mul_pd(load2(s.q + i), inv);
        const __m128d w = _mm_mul_pd(qi, _mm_mul_pd(inv, inv));
        va[k] = _mm_add_pd(va[k], _mm_mul_pd(w, dx)), vb[k] = _mm_add_pd(vb[k], _mm_mul_pd(w, dy));
        vc[k] = _mm_add_pd(vc[k], _mm_mul_pd(w, dz)), vp[k] = _mm_add_pd(vp[k], qi);
      }
    alignas(16) double t[4][4][2];
    for (int k = 0; k < 4; ++k) {
      _mm_store_pd(t[0][k], va[k]), _mm_store_pd(t[1][k], vb[k]), _mm_store_pd(t[2][k], vc[k]);
      _mm_store_pd(t[3][k], vp[k]);
    }
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 2; ++l) a += t[0][k][l], b += t[1][k][l], c += t[2][k][l], p += t[3][k][l];
  }
#endif
  for (; j < s.n; ++j) {
    const double dx = tx - s.x[j], dy = ty - s.y[j], dz = tz - s.z[j];
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    const double inv = 1.0 / std::sqrt(r2), qi = s.q[j] * inv, w = qi * inv * inv;
    a += w * dx, b += w * dy, c += w * dz, p += qi;
  }
  sums[0] = a, sums[1] = b, sums[2] = c, sums[3] = p;
}

}  // namespace simscope::field::cpu

#pragma GCC diagnostic pop
