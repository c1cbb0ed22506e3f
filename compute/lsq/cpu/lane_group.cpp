// LaneGroup (lane_group.hpp): loading a group's pixels and its SoA products.
#if defined(__AVX512F__) && defined(__BMI2__)
#include "core/isa.hpp"
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <limits>

#include "lsq/cpu/lane_group.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

template <class T, int V>
LaneGroup<T, V>::LaneGroup(const Problem<T>& p) : pb(p), chol(p.N), estimator(p.N) {
  const int M = pb.M, N = pb.N;
  b.resize(std::size_t(M) * V);
  w.resize(std::size_t(M) * V);
  r.resize(std::size_t(M) * V);
  x.resize(std::size_t(N) * V);
  obs_rows_.resize(std::size_t(M) * V);
  miss_rows_.resize(std::size_t(M) * V);
  mwords_ = std::size_t(M + 63) / 64;
  lane_mask_.resize(mwords_ * V);
  mbytes_.resize(std::size_t(M + 7) / 8 * 8);
}

template <class T, int V>
void LaneGroup<T, V>::load(const std::size_t* px, int lanes) {
  const int M = pb.M;
  std::fill(lane_mask_.begin(), lane_mask_.end(), std::uint64_t(0));
  std::fill(built_, built_ + 2 * V, std::uint8_t(0));
#if defined(__AVX512F__) && defined(__BMI2__)
  if constexpr (V == 8)
    if (lanes == V) {
      const auto [lo, hi] = std::minmax_element(px, px + V);
      if (*hi - *lo <= std::size_t(std::numeric_limits<std::int32_t>::max()))
        return load_simd(px, *lo);
    }
#endif
  const bool f32 = pb.cube.dtype == io::DType::Float32;
  int no[V] = {};
  for (int i = 0; i < M; ++i) {
    const std::size_t off = std::size_t(i) * pb.P + pb.pbeg;
    double* bi = &b[std::size_t(i) * V];
    double* wi = &w[std::size_t(i) * V];
    for (int v = 0; v < V; ++v) {
      const double val = v >= lanes ? std::numeric_limits<double>::quiet_NaN()
                         : f32      ? double(pb.cube.f32()[off + px[v]])
                                    : pb.cube.f64()[off + px[v]];
      const bool ok = val == val;  // not NaN
      bi[v] = ok ? val : 0.0;
      wi[v] = ok ? 1.0 : 0.0;
      lane_mask_[std::size_t(v) * mwords_ + std::size_t(i / 64)] |= std::uint64_t(ok) << (i % 64);
      no[v] += ok;
    }
  }
  for (int v = 0; v < V; ++v) cnt[v] = no[v];
}

#if defined(__AVX512F__) && defined(__BMI2__)
template <class T, int V>
void LaneGroup<T, V>::load_simd(const std::size_t* px, std::size_t lo) {
  const int M = pb.M;
  alignas(32) std::int32_t idx[8];
  for (int v = 0; v < 8; ++v) idx[v] = std::int32_t(px[v] - lo);
  const __m256i vi = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
  const bool f32 = pb.cube.dtype == io::DType::Float32;
  const __m512d one = _mm512_set1_pd(1.0);
  std::uint8_t* mb = mbytes_.data();
  for (int i = 0; i < M; ++i) {
    const std::size_t off = std::size_t(i) * pb.P + pb.pbeg + lo;
    const __m512d val =
        f32 ? _mm512_maskz_cvtps_pd(0xff, _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), 0xff, vi,
                                                                    pb.cube.f32() + off, 4))
            : _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xff, vi, pb.cube.f64() + off, 8);
    const __mmask8 ok = _mm512_cmp_pd_mask(val, val, _CMP_ORD_Q);
    _mm512_storeu_pd(&b[std::size_t(i) * V], _mm512_maskz_mov_pd(ok, val));
    _mm512_storeu_pd(&w[std::size_t(i) * V], _mm512_maskz_mov_pd(ok, one));
    mb[i] = ok;
  }
  for (int i = M; i < (M + 7) / 8 * 8; ++i) mb[i] = 0;
  int no[8] = {};
  for (int i0 = 0; i0 < M; i0 += 8) {
    std::uint64_t x;
    std::memcpy(&x, mb + i0, 8);
    for (int v = 0; v < 8; ++v) {
      const std::uint64_t bits = _pext_u64(x, 0x0101010101010101ull << v);
      lane_mask_[std::size_t(v) * mwords_ + std::size_t(i0 / 64)] |= bits << (i0 % 64);
      no[v] += __builtin_popcountll(bits);
    }
  }
  for (int v = 0; v < V; ++v) cnt[v] = no[v];
}
#endif

template <class T, int V>
const int* LaneGroup<T, V>::rows_of(int v, bool observed) {
  const int M = pb.M;
  int* out = &(observed ? obs_rows_ : miss_rows_)[std::size_t(v) * M];
  std::uint8_t& done = built_[2 * v + int(observed)];
  if (done) return out;
  done = 1;
  int n = 0;
  const std::uint64_t* mask = &lane_mask_[std::size_t(v) * mwords_];
  for (std::size_t k = 0; k < mwords_; ++k) {
    const int base = int(k) * 64;
    const int valid = std::min(64, M - base);
    const std::uint64_t all = valid == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << valid) - 1;
    std::uint64_t m = observed ? mask[k] : ~mask[k] & all;
    while (m) {
      out[n++] = base + __builtin_ctzll(m);
      m &= m - 1;
    }
  }
  return out;
}

template <class T, int V>
void LaneGroup<T, V>::at_times(const double* src, const double* init, double scale,
                               double* out) const {
  const int M = pb.M, N = pb.N, ld = pb.ld8;
  const double* A = pb.a8.data();
  for (int k0 = 0; k0 < N; k0 += kProdRows) {
    VD c[kProdRows] = {};
    for (int i = 0; i < M; ++i) {
      const VD s = vload<VD>(src + std::size_t(i) * V);
      const double* a = A + std::size_t(i) * ld + k0;
#pragma GCC unroll 8
      for (int q = 0; q < kProdRows; ++q) c[q] += a[q] * s;
    }
    for (int q = 0; q < kProdRows && k0 + q < N; ++q) {
      const std::size_t o = std::size_t(k0 + q) * V;
      vstore(out + o, init ? vload<VD>(init + o) * scale + c[q] : c[q]);
    }
  }
}

template <class T, int V>
template <int R, bool Sub>
void LaneGroup<T, V>::rows_dot(int i, const double* x, VD* t) const {
  const int N = pb.N, ld = pb.ld8;
  const double* a = pb.a8.data() + std::size_t(i) * ld;
  for (int k = 0; k < N; ++k) {
    const VD xk = vload<VD>(x + std::size_t(k) * V);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      if (Sub)
        t[r] -= a[std::size_t(r) * ld + k] * xk;
      else
        t[r] += a[std::size_t(r) * ld + k] * xk;
    }
  }
}

template <class T, int V>
template <class Block>
void LaneGroup<T, V>::over_rows(Block block) const {
  const int M = pb.M;
  int i = 0;
  for (; i + kProdRows - 1 < M; i += kProdRows) block.template operator()<kProdRows>(i);
  for (; i + 3 < M; i += 4) block.template operator()<4>(i);
  for (; i < M; ++i) block.template operator()<1>(i);
}

template <class T, int V>
void LaneGroup<T, V>::residual_vector(const double* x, double* out) const {
  over_rows([&]<int R>(int i) {
    VD t[R];
    for (int r = 0; r < R; ++r) t[r] = vload<VD>(&b[std::size_t(i + r) * V]);
    rows_dot<R, true>(i, x, t);
    for (int r = 0; r < R; ++r) {
      const std::size_t o = std::size_t(i + r) * V;
      vstore(&out[o], vload<VD>(&w[o]) * t[r]);
    }
  });
}

template <class T, int V>
void LaneGroup<T, V>::residuals() {
  residual_vector(x.data(), r.data());
  VD acc[4] = {};  // four chains (rows i mod 4), summed pairwise
  int i = 0;
  for (; i + 3 < pb.M; i += 4)
    for (int c = 0; c < 4; ++c) {
      const VD ri = vload<VD>(&r[std::size_t(i + c) * V]);
      acc[c] += ri * ri;
    }
  for (; i < pb.M; ++i) {
    const VD ri = vload<VD>(&r[std::size_t(i) * V]);
    acc[0] += ri * ri;
  }
  const VD t = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (int v = 0; v < V; ++v) rss[v] = t[v];
}

template <class T, int V>
void LaneGroup<T, V>::rows_dot_lane(const int* rows, int n, const double* y, double* z) const {
  using D8 = typename VecOf<double, 8>::type;
  const int ld = pb.ld8;
  const double* A = pb.a8.data();
  int q = 0;
  for (; q + 3 < n; q += 4) {
    const double* a0 = A + std::size_t(rows[q]) * ld;
    const double* a1 = A + std::size_t(rows[q + 1]) * ld;
    const double* a2 = A + std::size_t(rows[q + 2]) * ld;
    const double* a3 = A + std::size_t(rows[q + 3]) * ld;
    D8 c0{}, c1{}, c2{}, c3{};
    for (int k = 0; k < ld; k += 8) {
      const D8 yk = vload<D8>(y + k);
      c0 += vload<D8>(a0 + k) * yk;
      c1 += vload<D8>(a1 + k) * yk;
      c2 += vload<D8>(a2 + k) * yk;
      c3 += vload<D8>(a3 + k) * yk;
    }
    z[std::size_t(q) * V] = hsum(c0);
    z[std::size_t(q + 1) * V] = hsum(c1);
    z[std::size_t(q + 2) * V] = hsum(c2);
    z[std::size_t(q + 3) * V] = hsum(c3);
  }
  for (; q < n; ++q) {
    const double* a = A + std::size_t(rows[q]) * ld;
    D8 c{};
    for (int k = 0; k < ld; k += 8) c += vload<D8>(a + k) * vload<D8>(y + k);
    z[std::size_t(q) * V] = hsum(c);
  }
}

template <class T, int V>
void LaneGroup<T, V>::add_rows(int v, const int* rows, int n, const double* S, const double* u,
                               double* x) const {
  using D8 = typename VecOf<double, 8>::type;
  const int ld = pb.ld8;
  const int* r = rows;
  int q = 0;
  for (; q + 3 < n; q += 4) {
    const double u0 = u[std::size_t(q) * V + v], u1 = u[std::size_t(q + 1) * V + v];
    const double u2 = u[std::size_t(q + 2) * V + v], u3 = u[std::size_t(q + 3) * V + v];
    const double* s0 = S + std::size_t(r[q]) * ld;
    const double* s1 = S + std::size_t(r[q + 1]) * ld;
    const double* s2 = S + std::size_t(r[q + 2]) * ld;
    const double* s3 = S + std::size_t(r[q + 3]) * ld;
    for (int k = 0; k < ld; k += 8)
      vstore(x + k, vload<D8>(x + k) + ((u0 * vload<D8>(s0 + k) + u1 * vload<D8>(s1 + k)) +
                                        (u2 * vload<D8>(s2 + k) + u3 * vload<D8>(s3 + k))));
  }
  for (; q < n; ++q) {
    const double uq = u[std::size_t(q) * V + v];
    const double* sq = S + std::size_t(r[q]) * ld;
    for (int k = 0; k < ld; k += 8) vstore(x + k, vload<D8>(x + k) + uq * vload<D8>(sq + k));
  }
}

template <class T, int V>
void LaneGroup<T, V>::factor_small(int n, const int* sz, const int* const* rows, const double* S,
                                   double sign, double diag, const double* pad, double* rhs) {
  chol.gather(n, sz, rows, S, pb.M, sign, diag, pad);
  chol.norm1_and_tolerance();
  chol.factor();
  estimator.estimate(chol, kSmallHagerIterations, rhs);
}

template <class T, int V>
void LaneGroup<T, V>::set_outcome(int v, const SmallOutcome& so, const double* xs) {
  const int N = pb.N;
  if (!so.ok) {
    ok[v] = 0;
    for (int k = 0; k < N; ++k) x[std::size_t(k) * V + v] = 0;
    return;
  }
  ok[v] = 1;
  condition[v] = so.cond;
  for (int k = 0; k < N; ++k) x[std::size_t(k) * V + v] = xs[std::size_t(k)];
}

template class LaneGroup<float, kLanesFp32>;
template class LaneGroup<double, kLanesFp64>;

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
