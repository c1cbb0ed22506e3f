// SoaCholesky (soa_cholesky.hpp): V packed SPD matrices factored and solved together.
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/isa.hpp"
#include "lsq/cpu/soa_cholesky.hpp"
#include "lsq/lsq.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

template <class T, int V>
SoaCholesky<T, V>::SoaCholesky(int nmax)
    : l_(rowbase(nmax) * V), invd_(std::size_t(nmax) * V), colsum_(std::size_t(nmax) * V) {}

template <class T, int V>
void SoaCholesky<T, V>::norm1_and_tolerance() {
  const int N = n;
  std::fill(colsum_.begin(), colsum_.end(), T(0));
  for (int i = 0; i < N; ++i) {
    const T* li = &l_[rowbase(i) * V];
    VT ci{};
    for (int j = 0; j < i; ++j) {
      const VT g = vload<VT>(li + std::size_t(j) * V);
      const VT a = g >= 0 ? g : -g;
      T* cj = &colsum_[std::size_t(j) * V];
      vstore(cj, vload<VT>(cj) + a);
      ci += a;
    }
    const VT d = vload<VT>(li + std::size_t(i) * V);
    ci += d >= 0 ? d : -d;
    T* cp = &colsum_[std::size_t(i) * V];
    vstore(cp, vload<VT>(cp) + ci);
  }
  VT m{};
  for (int j = 0; j < N; ++j) {
    const VT c = vload<VT>(&colsum_[std::size_t(j) * V]);
    m = c > m ? c : m;
  }
  const T eps = std::numeric_limits<T>::epsilon();
  for (int v = 0; v < V; ++v) {
    // Lane v's own size is lane_n[v] <= N in the padded small paths. Use its diagonal only, so the
    // tolerance depends neither on the padding nor on the other lanes.
    T md = 0;
    for (int i = 0; i < lane_n[v]; ++i)
      md = std::max(md, l_[(rowbase(i) + std::size_t(i)) * V + v]);
    norm1[v] = double(m[v]);
    tol_[v] = T(lane_n[v]) * eps * md;
    fail[v] = 0;
  }
}

template <class T, int V>
void SoaCholesky<T, V>::pivot(T* lii, T* inv, const VT& d) {
  alignas(64) T s[V], r[V];
  for (int v = 0; v < V; ++v) {
    T dv = d[v];
    if (!(dv > tol_[v])) {
      fail[v] = 1;
      dv = T(1);
    }
    s[v] = std::sqrt(dv);
    r[v] = T(1) / s[v];
  }
  std::memcpy(lii, s, sizeof s);
  std::memcpy(inv, r, sizeof r);
}

template <class T, int V>
void SoaCholesky<T, V>::factor() {
  const int N = n;
  T* L = l_.data();
  T* invd = invd_.data();
  auto at = [](T* row, int k) { return row + std::size_t(k) * V; };
  auto cat = [](const T* row, int k) { return row + std::size_t(k) * V; };
  for (int i = 0; i < N; i += 2) {
    const bool two = i + 1 < N;
    T* Li = L + rowbase(i) * V;
    T* Li1 = two ? L + rowbase(i + 1) * V : Li;  // a single last row is computed twice
    int j = 0;
    for (; j + 3 < i; j += 4) {  // 2 rows x 4 columns: 6 loads per 8 FMAs
      const T* Lc[4] = {L + rowbase(j) * V, L + rowbase(j + 1) * V, L + rowbase(j + 2) * V,
                        L + rowbase(j + 3) * V};
      VT a0[4], a1[4];
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        a0[c] = vload<VT>(at(Li, j + c));
        a1[c] = vload<VT>(at(Li1, j + c));
      }
      for (int k = 0; k < j; ++k) {
        const VT x0 = vload<VT>(at(Li, k)), x1 = vload<VT>(at(Li1, k));
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) {
          const VT y = vload<VT>(cat(Lc[c], k));
          a0[c] -= x0 * y;
          a1[c] -= x1 * y;
        }
      }
      // The 4 x 4 triangle of columns j..j+3 itself, column by column.
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
#pragma GCC unroll 4
        for (int c2 = 0; c2 < c; ++c2) {
          const VT y = vload<VT>(cat(Lc[c], j + c2));  // L[j+c][j+c2]
          a0[c] -= a0[c2] * y;
          a1[c] -= a1[c2] * y;
        }
        const VT dj = vload<VT>(at(invd, j + c));
        a0[c] *= dj;
        a1[c] *= dj;
        vstore(at(Li, j + c), a0[c]);
        vstore(at(Li1, j + c), a1[c]);
      }
    }
    for (; j + 1 < i; j += 2) {
      const T* Lj = L + rowbase(j) * V;
      const T* Lj1 = L + rowbase(j + 1) * V;
      VT a00 = vload<VT>(at(Li, j)), a01 = vload<VT>(at(Li, j + 1));
      VT a10 = vload<VT>(at(Li1, j)), a11 = vload<VT>(at(Li1, j + 1));
      for (int k = 0; k < j; ++k) {
        const VT x0 = vload<VT>(at(Li, k)), x1 = vload<VT>(at(Li1, k));
        const VT y0 = vload<VT>(cat(Lj, k)), y1 = vload<VT>(cat(Lj1, k));
        a00 -= x0 * y0;
        a01 -= x0 * y1;
        a10 -= x1 * y0;
        a11 -= x1 * y1;
      }
      const VT dj = vload<VT>(at(invd, j)), dj1 = vload<VT>(at(invd, j + 1));
      const VT y = vload<VT>(cat(Lj1, j));  // L[j+1][j]
      const VT l0 = a00 * dj, l1 = a10 * dj;
      vstore(at(Li, j), l0);
      vstore(at(Li1, j), l1);
      vstore(at(Li, j + 1), (a01 - l0 * y) * dj1);
      vstore(at(Li1, j + 1), (a11 - l1 * y) * dj1);
    }
    for (; j < i; ++j) {  // the last odd column
      const T* Lj = L + rowbase(j) * V;
      VT a0 = vload<VT>(at(Li, j)), a1 = vload<VT>(at(Li1, j));
      for (int k = 0; k < j; ++k) {
        const VT y = vload<VT>(cat(Lj, k));
        a0 -= vload<VT>(at(Li, k)) * y;
        a1 -= vload<VT>(at(Li1, k)) * y;
      }
      const VT dj = vload<VT>(at(invd, j));
      vstore(at(Li, j), a0 * dj);
      vstore(at(Li1, j), a1 * dj);
    }
    // Diagonal of row i.
    VT d = vload<VT>(at(Li, i));
    for (int k = 0; k < i; ++k) {
      const VT x = vload<VT>(at(Li, k));
      d -= x * x;
    }
    pivot(at(Li, i), at(invd, i), d);
    if (!two) break;
    // Row i+1: column i, then its diagonal.
    VT o = vload<VT>(at(Li1, i)), d1 = vload<VT>(at(Li1, i + 1));
    for (int k = 0; k < i; ++k) {
      const VT x = vload<VT>(at(Li, k)), x1 = vload<VT>(at(Li1, k));
      o -= x1 * x;
      d1 -= x1 * x1;
    }
    const VT l = o * vload<VT>(at(invd, i));
    vstore(at(Li1, i), l);
    pivot(at(Li1, i + 1), at(invd, i + 1), d1 - l * l);
  }
}

template <class T, int V>
template <class U, int R>
void SoaCholesky<T, V>::solve_many(U* const (&y)[R]) const {
  using VU = typename VecOf<U, V>::type;
  const int N = n;
  const T* L = l_.data();
  const T* invd = invd_.data();
  auto lv = [&](const T* p) { return vconvert<VU>(vload<VT>(p)); };
  auto yp = [&](int r, int k) { return y[r] + std::size_t(k) * V; };
  for (int i = 0; i < N; i += 2) {
    const bool two = i + 1 < N;
    const T* Li = L + rowbase(i) * V;
    const T* Li1 = two ? L + rowbase(i + 1) * V : Li;
    VU a0[R], a1[R], b0[R] = {}, b1[R] = {};
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      a0[r] = vload<VU>(yp(r, i));
      a1[r] = two ? vload<VU>(yp(r, i + 1)) : VU{};
    }
    int k = 0;
    if constexpr (R == 1)
      for (; k + 1 < i; k += 2) {
        const VU yk = vload<VU>(yp(0, k)), yk1 = vload<VU>(yp(0, k + 1));
        a0[0] -= lv(Li + std::size_t(k) * V) * yk;
        a1[0] -= lv(Li1 + std::size_t(k) * V) * yk;
        b0[0] -= lv(Li + std::size_t(k + 1) * V) * yk1;
        b1[0] -= lv(Li1 + std::size_t(k + 1) * V) * yk1;
      }
    for (; k < i; ++k) {
      const VU l0 = lv(Li + std::size_t(k) * V), l1 = lv(Li1 + std::size_t(k) * V);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const VU yk = vload<VU>(yp(r, k));
        a0[r] -= l0 * yk;
        a1[r] -= l1 * yk;
      }
    }
    const VU di = lv(invd + std::size_t(i) * V);
    const VU li = lv(Li1 + std::size_t(i) * V);
    const VU di1 = two ? lv(invd + std::size_t(i + 1) * V) : VU{};
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const VU yi = (a0[r] + b0[r]) * di;
      vstore(yp(r, i), yi);
      if (two) vstore(yp(r, i + 1), ((a1[r] + b1[r]) - li * yi) * di1);
    }
  }
  int i = N - 1;
  for (; i >= 1; i -= 2) {
    const T* Li = L + rowbase(i) * V;
    const T* Lm = L + rowbase(i - 1) * V;
    const VU di = lv(invd + std::size_t(i) * V), dm = lv(invd + std::size_t(i - 1) * V);
    const VU lm = lv(Li + std::size_t(i - 1) * V);
    VU xi[R], xm[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      xi[r] = vload<VU>(yp(r, i)) * di;
      vstore(yp(r, i), xi[r]);
      xm[r] = (vload<VU>(yp(r, i - 1)) - lm * xi[r]) * dm;
      vstore(yp(r, i - 1), xm[r]);
    }
    for (int k = 0; k < i - 1; ++k) {
      const VU l0 = lv(Li + std::size_t(k) * V), l1 = lv(Lm + std::size_t(k) * V);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) vstore(yp(r, k), vload<VU>(yp(r, k)) - l0 * xi[r] - l1 * xm[r]);
    }
  }
  if (i == 0)
    for (int r = 0; r < R; ++r) vstore(yp(r, 0), vload<VU>(yp(r, 0)) * lv(invd));
}

template <class T, int V>
void SoaCholesky<T, V>::gather(int n, const int* sz, const int* const* rows, const double* S, int M,
                               double sign, double diag, const double* pad) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, double> && V == 8) {
    // One 8-lane gather per entry: lane v's index is rows_v[q] M + rows_v[p], which fits 32 bits
    // since M <= 1024. Masked to lanes with q < sz[v]; same products and sums as below.
    alignas(64) std::int32_t ridx[kMaxUnknowns * 8];
    for (int q = 0; q < n; ++q)
      for (int v = 0; v < 8; ++v) ridx[q * 8 + v] = q < sz[v] ? rows[v][q] : 0;
    alignas(64) std::int32_t szv[8];
    for (int v = 0; v < 8; ++v) szv[v] = sz[v];
    const __m256i size = _mm256_load_si256(reinterpret_cast<const __m256i*>(szv));
    const __m256i mm = _mm256_set1_epi32(M);
    const __m512d sg = _mm512_set1_pd(sign), dg = _mm512_set1_pd(diag), pd = _mm512_loadu_pd(pad);
    for (int q = 0; q < n; ++q) {
      const __mmask8 on = _mm256_cmpgt_epi32_mask(size, _mm256_set1_epi32(q));
      const __m256i ro =
          _mm256_mullo_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(ridx + q * 8)), mm);
      double* lq = &l_[rowbase(q) * V];
      for (int p = 0; p < q; ++p) {
        const __m256i ix =
            _mm256_add_epi32(ro, _mm256_load_si256(reinterpret_cast<const __m256i*>(ridx + p * 8)));
        const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), on, ix, S, 8);
        _mm512_storeu_pd(lq + std::size_t(p) * V, _mm512_maskz_mul_pd(on, sg, g));
      }
      const __m256i ix =
          _mm256_add_epi32(ro, _mm256_load_si256(reinterpret_cast<const __m256i*>(ridx + q * 8)));
      const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), on, ix, S, 8);
      _mm512_storeu_pd(lq + std::size_t(q) * V,
                       _mm512_mask_blend_pd(on, pd, _mm512_add_pd(_mm512_mul_pd(sg, g), dg)));
    }
    return;
  }
#endif
  for (int q = 0; q < n; ++q) {
    T* lq = &l_[rowbase(q) * V];
    const double* srow[V];
    for (int v = 0; v < V; ++v) srow[v] = q < sz[v] ? S + std::size_t(rows[v][q]) * M : nullptr;
    for (int p = 0; p < q; ++p) {
      T* l = lq + std::size_t(p) * V;
      for (int v = 0; v < V; ++v) l[v] = srow[v] ? T(sign * srow[v][rows[v][p]]) : T(0);
    }
    T* l = lq + std::size_t(q) * V;
    for (int v = 0; v < V; ++v)
      l[v] = srow[v] ? T(sign * srow[v][rows[v][q]]) + T(diag) : T(pad[v]);
  }
}

template class SoaCholesky<float, kLanesFp32>;
template class SoaCholesky<double, kLanesFp64>;
template void SoaCholesky<float, kLanesFp32>::solve_many<float, 1>(float* const (&)[1]) const;
template void SoaCholesky<float, kLanesFp32>::solve_many<float, 2>(float* const (&)[2]) const;
template void SoaCholesky<float, kLanesFp32>::solve_many<double, 1>(double* const (&)[1]) const;
template void SoaCholesky<double, kLanesFp64>::solve_many<double, 1>(double* const (&)[1]) const;
template void SoaCholesky<double, kLanesFp64>::solve_many<double, 2>(double* const (&)[2]) const;
template void SoaCholesky<double, kLanesFp64>::solve_many<double, 3>(double* const (&)[3]) const;

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
