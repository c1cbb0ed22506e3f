// Cartesian expansions of the tree method (expansions.hpp).
#include "field/tree/expansions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/register_lanes.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace simscope::field::tree {

SIMSCOPE_ISA_BEGIN

void scaled_powers(const MultiIndex& m, double rx, double ry, double rz, double* P) {
  P[0] = 1;
  const double r[3] = {rx, ry, rz};
  for (int i = 1; i < m.count; ++i) {
    // k = parent + e_c with c the first axis where k_c > 0: r^k/k! = r^(k-e_c)/(k-e_c)! r_c/k_c.
    const int kc[3] = {m.kx[i], m.ky[i], m.kz[i]};
    const int c = kc[0] ? 0 : kc[1] ? 1 : 2;
    P[i] = P[m.minus1[c][i]] * r[c] / double(kc[c]);
  }
}

void derivatives(const MultiIndex& m, double rx, double ry, double rz, double eps2, double* D) {
  const double R2 = rx * rx + ry * ry + rz * rz + eps2;
  const double inv2 = 1.0 / R2;
  const double r[3] = {rx, ry, rz};
  D[0] = std::sqrt(inv2);
  for (int i = 1; i < m.count; ++i) {
    const int n = m.degree[i];
    const int kc[3] = {m.kx[i], m.ky[i], m.kz[i]};
    double a = 0, b = 0;
    for (int c = 0; c < 3; ++c) {
      if (kc[c] >= 1) a += r[c] * kc[c] * D[m.minus1[c][i]];
      if (kc[c] >= 2) b += double(kc[c] * (kc[c] - 1)) * D[m.minus2[c][i]];
    }
    D[i] = -(double(2 * n - 1) * a + double(n - 1) * b) * inv2 / double(n);
  }
}

namespace {

/// Lanes of the P2M's vectors: one register of doubles at this level.
constexpr int kP2MLanes = kRegisterDoubles;
typedef double P2MVec __attribute__((vector_size(kP2MLanes * sizeof(double))));

/// acc[j] = sum over batches b < nb of xy[b] * zp[(c0 + j) nb + b], j < K: K powers of z at
/// once, so each xy is loaded once for K terms and the sums stay in registers.
template <int K>
inline void p2m_terms(const P2MVec* xy, const P2MVec* zp, int nb, int c0, P2MVec* acc) {
  P2MVec s[K] = {};
  for (int b = 0; b < nb; ++b) {
    const P2MVec v = xy[b];
    for (int j = 0; j < K; ++j) s[j] += v * zp[std::size_t(c0 + j) * std::size_t(nb) + b];
  }
  for (int j = 0; j < K; ++j) acc[j] = s[j];
}

}  // namespace

void p2m(const MultiIndex& m, const double c[3], const float* x, const float* y, const float* z,
         const float* q, int n, double* M) {
  // M_(a,b,c) = sum_j q_j rx^a ry^b rz^c / (a! b! c!), r = c - y_j. Sources in batches of
  // kP2MLanes (lanes = sources). Per batch, the tables q rx^a ry^b (every a + b <= p) and
  // rz^c; then per (a, b), the sums over all batches of the tables' products for every c at
  // once, in registers. The lanes are summed and scaled by 1 / k! at the end.
  if (n <= 0) return;
  const int p = m.order, W = kP2MLanes;
  const int nb = (n + W - 1) / W, AB = (p + 1) * (p + 2) / 2;
  static thread_local std::vector<P2MVec> xy_table, z_table;
  xy_table.resize(std::size_t(AB) * std::size_t(nb));
  z_table.resize(std::size_t(p + 1) * std::size_t(nb));
  P2MVec* xy = xy_table.data();
  P2MVec* zp = z_table.data();
  for (int b = 0; b < nb; ++b) {
    P2MVec rx, ry, rz, qq;
    for (int l = 0; l < W; ++l) {
      const int j = b * W + l < n ? b * W + l : n - 1;
      rx[l] = c[0] - double(x[j]), ry[l] = c[1] - double(y[j]), rz[l] = c[2] - double(z[j]);
      qq[l] = b * W + l < n ? double(q[j]) : 0.0;
    }
    P2MVec X[kMaxOrder + 1], Y[kMaxOrder + 1];
    X[0] = qq, Y[0] = qq * 0 + 1;
    for (int a = 1; a <= p; ++a) X[a] = X[a - 1] * rx, Y[a] = Y[a - 1] * ry;
    std::size_t k = 0;
    for (int a = 0; a <= p; ++a)
      for (int bb = 0; bb <= p - a; ++bb) xy[(k++) * std::size_t(nb) + std::size_t(b)] = X[a] * Y[bb];
    zp[b] = Y[0];
    for (int cc = 1; cc <= p; ++cc)
      zp[std::size_t(cc) * std::size_t(nb) + std::size_t(b)] =
          zp[std::size_t(cc - 1) * std::size_t(nb) + std::size_t(b)] * rz;
  }
  std::size_t k = 0;
  P2MVec acc[4];
  for (int a = 0; a <= p; ++a)
    for (int bb = 0; bb <= p - a; ++bb, ++k) {
      const P2MVec* row = xy + k * std::size_t(nb);
      const int C = p - a - bb + 1;  // powers of z: 0 .. p - a - b
      for (int c0 = 0; c0 < C; c0 += 4) {
        const int K = std::min(4, C - c0);
        switch (K) {
          case 4: p2m_terms<4>(row, zp, nb, c0, acc); break;
          case 3: p2m_terms<3>(row, zp, nb, c0, acc); break;
          case 2: p2m_terms<2>(row, zp, nb, c0, acc); break;
          default: p2m_terms<1>(row, zp, nb, c0, acc); break;
        }
        for (int j = 0; j < K; ++j) {
          double sum = 0;
          for (int l = 0; l < W; ++l) sum += acc[j][l];
          const int i = index_of(a, bb, c0 + j);
          M[i] += sum * m.inv_factorial[std::size_t(i)];
        }
      }
    }
}

namespace {

/// Rows 1..N-1 of the scaled powers r^k / k! of 8 lanes; the caller sets row 0. Built by the
/// multi-index steps: P[i * 8 + l] = P[from(i) * 8 + l] * r[axis(i)][l] / k_axis(i).
inline void scaled_powers8(const MultiIndex& m, const double (&r)[3][8], int N, double* P) {
  constexpr int kL = 8;
  const std::uint8_t* axis = m.step_axis.data();
  const std::int16_t* from = m.step_from.data();
  const double* inv = m.step_inv.data();
  for (int i = 1; i < N; ++i) {
    const double f = inv[i];
    const double* __restrict src = P + std::size_t(from[i]) * kL;
    double* __restrict dst = P + std::size_t(i) * kL;
    const double* __restrict ra = r[axis[i]];
#pragma omp simd
    for (int l = 0; l < kL; ++l) dst[l] = src[l] * ra[l] * f;
  }
}

}  // namespace

void m2m8(const MultiIndex& m, const double cp[3], int n, const double (*cc)[3], const double* Mc,
          double* M) {
  constexpr int kL = 8;
  const int N = m.count;
  static thread_local std::vector<double> sbuf, abuf;
  sbuf.resize(std::size_t(N) * kL);
  abuf.assign(std::size_t(N) * kL, 0.0);
  double* S = sbuf.data();
  double* A = abuf.data();
  alignas(64) double r[3][kL];
  for (int l = 0; l < kL; ++l)
    for (int a = 0; a < 3; ++a) r[a][l] = l < n ? cp[a] - cc[l][a] : 0.0;
  for (int l = 0; l < kL; ++l) S[l] = 1.0;
  scaled_powers8(m, r, N, S);
  for (int a = 0; a < N; ++a) {
    const double* __restrict ma = Mc + std::size_t(a) * kL;
    for (int e = m.pair_begin[a]; e < m.pair_begin[a + 1]; ++e) {
      double* __restrict acc = A + std::size_t(m.pair_sum[e]) * kL;
      const double* __restrict sb = S + std::size_t(m.pair_b[e]) * kL;
#pragma omp simd
      for (int l = 0; l < kL; ++l) acc[l] += ma[l] * sb[l];
    }
  }
  for (int i = 0; i < N; ++i) {
    double acc = 0;
    const double* ai = A + std::size_t(i) * kL;
#pragma omp simd reduction(+ : acc)
    for (int l = 0; l < kL; ++l) acc += ai[l];
    M[i] += acc;
  }
}

void m2m(const MultiIndex& m, const double cp[3], const double cc[3], const double* Mc, double* M) {
  double S[terms(kMaxOrder)];
  scaled_powers(m, cp[0] - cc[0], cp[1] - cc[1], cp[2] - cc[2], S);
  for (int a = 0; a < m.count; ++a) {
    const double ma = Mc[a];
    for (int e = m.pair_begin[a]; e < m.pair_begin[a + 1]; ++e)
      M[m.pair_sum[e]] += ma * S[m.pair_b[e]];
  }
}

namespace {
/// sum_{b < n} x[b] y[idx[b]] with 8 partial sums; vectorised over contiguous x, gathered y.
inline double dot_gather(const double* __restrict x, const double* __restrict y,
                         const std::int16_t* __restrict idx, int n) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int b = 0;
  for (; b + 8 <= n; b += 8)
    for (int l = 0; l < 8; ++l) lane[l] += x[b + l] * y[idx[b + l]];
  double acc = 0;
  for (; b < n; ++b) acc += x[b] * y[idx[b]];
  for (int l = 0; l < 8; ++l) acc += lane[l];
  return acc;
}
}  // namespace

// The pairs of a are b = 0, 1, ... (pair_b[e] == e - pair_begin[a]): the first factor is read
// in sequence, the second gathered through pair_sum.
void m2l(const MultiIndex& m, const double z[3], const double c[3], double eps2, const double* M,
         double* L, double* D) {
  derivatives(m, z[0] - c[0], z[1] - c[1], z[2] - c[2], eps2, D);
  for (int a = 0; a < m.count; ++a) {
    const int e0 = m.pair_begin[a];
    L[a] += dot_gather(M, D, m.pair_sum.data() + e0, m.pair_begin[a + 1] - e0);
  }
}

void m2l8(const MultiIndex& m, const double z[3], const double (*c)[3], int n, double eps2,
          const double* M, double* L, double* D) {
  constexpr int kL = 8;
  const int N = m.count;
  alignas(64) double r[3][kL], inv2[kL];
  for (int l = 0; l < kL; ++l) {
    const int s = l < n ? l : 0;
    for (int a = 0; a < 3; ++a) r[a][l] = z[a] - c[s][a];
  }
#pragma omp simd
  for (int l = 0; l < kL; ++l) {
    inv2[l] = 1.0 / (r[0][l] * r[0][l] + r[1][l] * r[1][l] + r[2][l] * r[2][l] + eps2);
    D[l] = std::sqrt(inv2[l]);
  }
  for (int i = 1; i < N; ++i) derivative_row8(m, i, r, inv2, D);
  const std::int16_t* sum = m.pair_sum.data();
#if defined(__AVX512F__)
  // Outputs of one degree n have the same pairs b (|b| <= q - n): 4 of them at a time share
  // each load of M's row b.
  for (int n = 0; n <= m.order; ++n) {
    const int lo = n * (n + 1) * (n + 2) / 6, hi = (n + 1) * (n + 2) * (n + 3) / 6;
    const int R = m.pair_begin[lo + 1] - m.pair_begin[lo];
    int a = lo;
    for (; a + 4 <= hi; a += 4) {
      const std::int16_t* s0 = sum + m.pair_begin[a];
      const std::int16_t* s1 = sum + m.pair_begin[a + 1];
      const std::int16_t* s2 = sum + m.pair_begin[a + 2];
      const std::int16_t* s3 = sum + m.pair_begin[a + 3];
      __m512d c0 = _mm512_setzero_pd(), c1 = c0, c2 = c0, c3 = c0;
      for (int b = 0; b < R; ++b) {
        const __m512d mb = _mm512_load_pd(M + std::size_t(b) * kL);
        c0 = _mm512_fmadd_pd(mb, _mm512_load_pd(D + std::size_t(s0[b]) * kL), c0);
        c1 = _mm512_fmadd_pd(mb, _mm512_load_pd(D + std::size_t(s1[b]) * kL), c1);
        c2 = _mm512_fmadd_pd(mb, _mm512_load_pd(D + std::size_t(s2[b]) * kL), c2);
        c3 = _mm512_fmadd_pd(mb, _mm512_load_pd(D + std::size_t(s3[b]) * kL), c3);
      }
      double* la = L + std::size_t(a) * kL;
      _mm512_store_pd(la, _mm512_add_pd(_mm512_load_pd(la), c0));
      _mm512_store_pd(la + kL, _mm512_add_pd(_mm512_load_pd(la + kL), c1));
      _mm512_store_pd(la + 2 * kL, _mm512_add_pd(_mm512_load_pd(la + 2 * kL), c2));
      _mm512_store_pd(la + 3 * kL, _mm512_add_pd(_mm512_load_pd(la + 3 * kL), c3));
    }
    for (; a < hi; ++a) {  // the rest one by one, 4 partial sums (the FMA latency)
      const std::int16_t* s0 = sum + m.pair_begin[a];
      __m512d c0 = _mm512_setzero_pd(), c1 = c0, c2 = c0, c3 = c0;
      auto term = [&](int b) {
        return _mm512_mul_pd(_mm512_load_pd(M + std::size_t(b) * kL),
                             _mm512_load_pd(D + std::size_t(s0[b]) * kL));
      };
      int b = 0;
      for (; b + 4 <= R; b += 4) {
        c0 = _mm512_fmadd_pd(_mm512_load_pd(M + std::size_t(b) * kL),
                             _mm512_load_pd(D + std::size_t(s0[b]) * kL), c0);
        c1 = _mm512_fmadd_pd(_mm512_load_pd(M + std::size_t(b + 1) * kL),
                             _mm512_load_pd(D + std::size_t(s0[b + 1]) * kL), c1);
        c2 = _mm512_fmadd_pd(_mm512_load_pd(M + std::size_t(b + 2) * kL),
                             _mm512_load_pd(D + std::size_t(s0[b + 2]) * kL), c2);
        c3 = _mm512_fmadd_pd(_mm512_load_pd(M + std::size_t(b + 3) * kL),
                             _mm512_load_pd(D + std::size_t(s0[b + 3]) * kL), c3);
      }
      for (; b < R; ++b) c0 = _mm512_add_pd(c0, term(b));
      double* la = L + std::size_t(a) * kL;
      _mm512_store_pd(la, _mm512_add_pd(_mm512_load_pd(la), _mm512_add_pd(_mm512_add_pd(c0, c1),
                                                                         _mm512_add_pd(c2, c3))));
    }
  }
#else
  for (int a = 0; a < N; ++a) {
    const int e0 = m.pair_begin[a], e1 = m.pair_begin[a + 1];
    double acc[kL] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int e = e0; e < e1; ++e) {
      const double* mb = M + std::size_t(e - e0) * kL;
      const double* ds = D + std::size_t(sum[e]) * kL;
      for (int l = 0; l < kL; ++l) acc[l] += mb[l] * ds[l];
    }
    double* la = L + std::size_t(a) * kL;
    for (int l = 0; l < kL; ++l) la[l] += acc[l];
  }
#endif
}

void l2l(const MultiIndex& m, const double zp[3], const double zc[3], const double* L, double* Lc) {
  double S[terms(kMaxOrder)];
  scaled_powers(m, zc[0] - zp[0], zc[1] - zp[1], zc[2] - zp[2], S);
  for (int a = 0; a < m.count; ++a) {
    const int e0 = m.pair_begin[a];
    Lc[a] += dot_gather(S, L, m.pair_sum.data() + e0, m.pair_begin[a + 1] - e0);
  }
}

void l2p(const MultiIndex& m, const double z[3], const double* L, double x, double y, double zz,
         double acc[4], double* P) {
  scaled_powers(m, x - z[0], y - z[1], zz - z[2], P);
  double phi = 0, g[3] = {0, 0, 0};
  for (int i = 0; i < m.count; ++i) {
    phi += L[i] * P[i];
    if (m.degree[i] < m.order)
      for (int c = 0; c < 3; ++c) g[c] += L[m.plus1[c][i]] * P[i];
  }
  acc[0] -= g[0], acc[1] -= g[1], acc[2] -= g[2], acc[3] += phi;
}

void l2p8(const MultiIndex& m, const double z[3], const double* L, int n, const double* x,
          const double* y, const double* zz, double* acc, double* P) {
  constexpr int kL = 8;
  const int N = m.count;
  alignas(64) double r[3][kL], phi[kL] = {}, g0[kL] = {}, g1[kL] = {}, g2[kL] = {};
  for (int l = 0; l < kL; ++l) {
    const int s = l < n ? l : 0;
    r[0][l] = x[s] - z[0], r[1][l] = y[s] - z[1], r[2][l] = zz[s] - z[2];
    P[l] = 1.0;
  }
  scaled_powers8(m, r, N, P);
  for (int i = 0; i < N; ++i) {
    const double* __restrict pi = P + std::size_t(i) * kL;
    const double li = L[i];
    if (m.degree[i] < m.order) {
      const double l0 = L[m.plus1[0][i]], l1 = L[m.plus1[1][i]], l2 = L[m.plus1[2][i]];
#pragma omp simd
      for (int l = 0; l < kL; ++l) {
        phi[l] += li * pi[l], g0[l] += l0 * pi[l], g1[l] += l1 * pi[l], g2[l] += l2 * pi[l];
      }
    } else {
#pragma omp simd
      for (int l = 0; l < kL; ++l) phi[l] += li * pi[l];
    }
  }
  for (int l = 0; l < n; ++l) {
    double* a = acc + std::size_t(l) * 4;
    a[0] -= g0[l], a[1] -= g1[l], a[2] -= g2[l], a[3] += phi[l];
  }
}

void m2p(const MultiIndex& m, const MultiIndex& mp1, const double c[3], double eps2,
         const double* M, double x, double y, double z, double acc[4], double* D) {
  derivatives(mp1, x - c[0], y - c[1], z - c[2], eps2, D);
  double phi = 0, g[3] = {0, 0, 0};
  for (int i = 0; i < m.count; ++i) {
    phi += M[i] * D[i];
    for (int k = 0; k < 3; ++k) g[k] += M[i] * D[mp1.plus1[k][i]];
  }
  acc[0] -= g[0], acc[1] -= g[1], acc[2] -= g[2], acc[3] += phi;
}

SIMSCOPE_ISA_END
}  // namespace simscope::field::tree
