// SharedBlock (shared_block.hpp): register-tiled products of a small float64 matrix with a
// band's right-hand sides, R rows by C vectors of pixels per tile.
#include "lsq/cpu/shared_block.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/register_lanes.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

constexpr int kW = kRegisterDoubles;  // pixels per vector
using VD = typename VecOf<double, kW>::type;
/// Vectors of pixels per tile: R x C accumulators, C loads and R broadcasts per step, within
/// the level's registers (32 at AVX-512, 16 below).
constexpr int kC = kW == 8 ? 4 : 2;
constexpr int kR = 4;
/// Row stride of the panel and xb_: 8 doubles more than a block's pixels, so a tile's rows
/// (2 KiB apart otherwise) do not all fall in the same few L1 sets.
constexpr std::size_t kPanelStride = kSharedBlockPixels + 8;

/// acc[r][c] = sum over i < inner of L[r ldl + i] S[i lds + c kW .. + kW), in increasing i, for
/// r < R and c < C; then epi(r, c, acc[r][c]) (by value: the accumulators stay in registers).
template <int R, int C, class Epi>
inline void tile(const double* L, std::size_t ldl, const double* S, std::size_t lds, int inner,
                 Epi&& epi) {
  VD acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = VD{};
  for (int i = 0; i < inner; ++i) {
    VD s[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) s[c] = vload<VD>(S + std::size_t(i) * lds + std::size_t(c) * kW);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const double l = L[std::size_t(r) * ldl + std::size_t(i)];
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) acc[r][c] += l * s[c];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) epi(r, c, acc[r][c]);
}

/// Floats per vector: twice kW, so a float vector covers two double vectors of pixels.
constexpr int kF = 2 * kW;
using VF = typename VecOf<float, kF>::type;
/// Rows summed in float32 at most before their sum is added to the float64 accumulators; the
/// rows are cut into equal chunks (M = 50: 25 and 25).
constexpr int kChunk = 32;

/// The low (hi = 0) or high (hi = 1) half of a float vector converted to a double vector: one
/// vcvtps2pd where the level has it (GCC's generic conversion goes through 128-bit pieces).
template <int hi, class F>
inline VD half_of(const F& f) {
  constexpr int W = int(sizeof(F) / sizeof(float)) / 2;
#if defined(__AVX512F__)
  if constexpr (W == 8) {
    // The half copied out and converted under a full zeroing mask: GCC 12's casts, extracts and
    // unmasked conversions pass an undefined vector and warn (-Wmaybe-uninitialized); the
    // compiler makes the copy a register move or one vextract.
    __m256 h;
    std::memcpy(&h, reinterpret_cast<const char*>(&f) + hi * sizeof h, sizeof h);
    const __m512d d = _mm512_maskz_cvtps_pd(0xFF, h);
    VD v;
    std::memcpy(&v, &d, sizeof v);
    return v;
  }
#endif
#if defined(__AVX__)
  if constexpr (W == 4) {
    __m256 t;
    std::memcpy(&t, &f, sizeof t);
    const __m256d d = _mm256_cvtps_pd(hi ? _mm256_extractf128_ps(t, 1) : _mm256_castps256_ps128(t));
    VD v;
    std::memcpy(&v, &d, sizeof v);
    return v;
  }
#endif
  VD v;
  for (int l = 0; l < W; ++l) v[l] = double(f[hi * W + l]);
  return v;
}

/// tile<R, C> in float32 products: L and S are float, each chunk of rows i (kChunk at most) is
/// summed in float32 (increasing i) and added to float64 accumulators; epi(r, c, acc[r][c]) gets the
/// double vectors c < C. S holds (C + 1) / 2 float vectors of pixels per row.
template <int R, int C, class Epi>
inline void tile32(const float* L, std::size_t ldl, const float* S, std::size_t lds, int inner,
                   Epi&& epi) {
  constexpr int CF = (C + 1) / 2;
  VD acc[R][2 * CF];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < 2 * CF; ++c) acc[r][c] = VD{};
  const int chunks = (inner + kChunk - 1) / kChunk;
  const int len = chunks > 0 ? (inner + chunks - 1) / chunks : 0;
  for (int i0 = 0; i0 < inner; i0 += len) {
    const int i1 = std::min(inner, i0 + len);
    VF f[R][CF];
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < CF; ++c) f[r][c] = VF{};
    for (int i = i0; i < i1; ++i) {
      VF s[CF];
#pragma GCC unroll 4
      for (int c = 0; c < CF; ++c)
        s[c] = vload<VF>(S + std::size_t(i) * lds + std::size_t(c) * kF);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const float l = L[std::size_t(r) * ldl + std::size_t(i)];
#pragma GCC unroll 4
        for (int c = 0; c < CF; ++c) f[r][c] += l * s[c];
      }
    }
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < CF; ++c) {
        acc[r][2 * c] += half_of<0>(f[r][c]);
        acc[r][2 * c + 1] += half_of<1>(f[r][c]);
      }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) epi(r, c, acc[r][c]);
}

/// tile<R, C> over rows [0, rows) of L in blocks of kR, the last block shorter; f gets each
/// block's first row and is called as f.template operator()<R>(r0).
template <class F>
inline void over_rows(int rows, F&& f) {
  int r0 = 0;
  for (; r0 + kR <= rows; r0 += kR) f.template operator()<kR>(r0);
  switch (rows - r0) {
    case 3: f.template operator()<3>(r0); break;
    case 2: f.template operator()<2>(r0); break;
    case 1: f.template operator()<1>(r0); break;
    default: break;
  }
}

/// Stores v at p (aligned to v) with a streaming store, which does not read p's line into the
/// cache.
template <class V>
inline void stream_store(double* p, const V& v) {
  if constexpr (sizeof(V) == 64) {
#if defined(__AVX512F__)
    __m512d t;
    std::memcpy(&t, &v, sizeof t);
    return _mm512_stream_pd(p, t);
#endif
  } else if constexpr (sizeof(V) == 32) {
#if defined(__AVX__)
    __m256d t;
    std::memcpy(&t, &v, sizeof t);
    return _mm256_stream_pd(p, t);
#endif
  } else if constexpr (sizeof(V) == 16) {
    __m128d t;
    std::memcpy(&t, &v, sizeof t);
    return _mm_stream_pd(p, t);
  }
  vstore(p, v);
}

/// Stores v rounded to float32 at p (aligned to half of v) with a streaming store where the
/// level has one for it, else with plain stores.
template <class V>
inline void stream_store(float* p, const V& v) {
  if constexpr (sizeof(V) == 64) {
#if defined(__AVX512F__)
    __m512d t;
    std::memcpy(&t, &v, sizeof t);
    return _mm256_stream_ps(p, _mm512_maskz_cvtpd_ps(0xFF, t));  // maskz: see half_of
#endif
  } else if constexpr (sizeof(V) == 32) {
#if defined(__AVX__)
    __m256d t;
    std::memcpy(&t, &v, sizeof t);
    return _mm_stream_ps(p, _mm256_cvtpd_ps(t));
#endif
  }
  for (std::size_t l = 0; l < sizeof(V) / sizeof(double); ++l) p[l] = float(v[l]);
}

/// Stores v's first `lanes` (<= kW) values at p.
inline void store_lanes(double* p, const VD& v, std::size_t lanes) {
  if (lanes >= std::size_t(kW)) return vstore(p, v);
  for (std::size_t l = 0; l < lanes; ++l) p[l] = v[l];
}

/// The power of two 2^e that scales v >= 0 into [0.5, 1) (0 for v = 0), e within
/// [-1000, 1000] so that 2^e and 2^-e are normal doubles.
inline int exponent_of(double v) {
  if (!(v > 0) || !std::isfinite(v)) return 0;
  // floor(log2 v) from the exponent's bits (-1023 for subnormals, then clamped).
  const int e = int((std::bit_cast<std::uint64_t>(v) >> 52) & 0x7ff) - 1023;
  return std::clamp(e + 1, -1000, 1000);
}

/// 2^e for e within [-1022, 1023], from its bits (std::ldexp is a library call per pixel).
inline double pow2(int e) { return std::bit_cast<double>(std::uint64_t(1023 + e) << 52); }

}  // namespace

template <class T>
SharedBlock::SharedBlock(const Problem<T>& pb)
    : cube_(pb.cube),
      N_(pb.N),
      ld8_(pb.ld8),
      P_(pb.P),
      pbeg_(pb.pbeg),
      panel_(std::size_t(pb.M) * kPanelStride),
      xb_(std::size_t(pb.N) * kPanelStride) {
  gap_free_.m = pb.M;
  gap_free_.op = pb.op8.data();
  gap_free_.a = pb.a8.data();
  gap_free_.rop = pb.shared.residual_op.data();
  gap_free_.rop_rows = pb.shared.residual_rows;
  if (std::is_same_v<T, float> && pb.options.float32_solution) {
    // The operator as float32, scaled by a power of two to a largest |entry| in [0.5, 1).
    double big = 0;
    for (const double v : pb.op8) big = std::max(big, std::fabs(v));
    const int e = exponent_of(big);
    op_unscale_ = std::ldexp(1.0, e);
    op32_.resize(pb.op8.size());
    for (std::size_t i = 0; i < op32_.size(); ++i) op32_[i] = float(std::ldexp(pb.op8[i], -e));
    panel32_.assign(std::size_t(pb.M) * kPanelStride, 0.0f);
    unscale_.assign(kPanelStride, 1.0);
  }
}

void SharedBlock::prefetch(std::size_t c0, std::size_t n) {
  const std::size_t es = cube_.dtype == io::DType::Float32 ? 4 : 8;
  const auto first = reinterpret_cast<std::uintptr_t>(cube_.data() + c0 * es);
  const std::uintptr_t line0 = first / 64 * 64;
  pf_row_ = reinterpret_cast<const char*>(line0);
  pf_lines_ = (first + n * es - line0 + 63) / 64;
  pf_rows_ = cube_.m;
  pf_stride_ = P_ * es;
  pf_next_ = 0;
  pf_total_ = pf_lines_ * pf_rows_;
}

void SharedBlock::prefetch_lines(std::size_t count) {
  for (; count > 0 && pf_rows_ > 0; --count) {
    __builtin_prefetch(pf_row_ + pf_next_ * 64);
    if (++pf_next_ == pf_lines_) pf_next_ = 0, pf_row_ += pf_stride_, --pf_rows_;
  }
}

void SharedBlock::solve(const SharedOperator& sop, const std::size_t* px, std::size_t n,
                        double* x, std::size_t ldx, std::size_t x0, double* rss,
                        std::uint64_t* streamed, float* x32) {
  solve(sop, false, px, n, x, ldx, x0, rss, streamed, x32);
}

void SharedBlock::solve(const SharedOperator& sop, bool products32, const std::size_t* px,
                        std::size_t n, double* x, std::size_t ldx, std::size_t x0, double* rss,
                        std::uint64_t* streamed, float* x32) {
  if (n == 0) {  // no tiles to spread a prefetch over: none
    pf_rows_ = pf_total_ = 0;
    return;
  }
  const int M = sop.m, N = N_;
  const std::size_t ldp = kPanelStride;
  const std::size_t nv = (n + kW - 1) / kW;  // vectors of pixels, the last zero padded
  const bool run = px[n - 1] - px[0] == n - 1;
  // The right-hand sides, m x n, converted to float64; for products32 each pixel's largest
  // |b_i| too.
  double big[kSharedBlockPixels];
  if (products32) std::fill(big, big + n, 0.0);
  for (int i = 0; i < M; ++i) {
    double* d = panel_.data() + std::size_t(i) * ldp;
    const std::size_t off = std::size_t(sop.rows ? sop.rows[i] : i) * P_ + pbeg_;
    auto pack = [&](const auto* src) {
      if (run) {
        src += off + px[0];
        if (products32)
          for (std::size_t j = 0; j < n; ++j)
            d[j] = double(src[j]), big[j] = std::max(big[j], std::fabs(d[j]));
        else
          for (std::size_t j = 0; j < n; ++j) d[j] = double(src[j]);
      } else {
        src += off;
        for (std::size_t j = 0; j < n; ++j) d[j] = double(src[px[j]]);
        if (products32)
          for (std::size_t j = 0; j < n; ++j) big[j] = std::max(big[j], std::fabs(d[j]));
      }
    };
    if (cube_.dtype == io::DType::Float32)
      pack(cube_.f32());
    else
      pack(cube_.f64());
    std::fill(d + n, d + nv * kW, 0.0);
  }
  // products32: each pixel's right-hand side scaled by a power of two to a largest |b_i| in
  // [0.5, 1) (unscale_ undoes it with op_unscale_), rounded to float32; zero beyond n up to a
  // whole float vector.
  const std::size_t nf = (nv * kW + kF - 1) / kF * kF;
  if (products32) {
    double scale[kSharedBlockPixels];
    for (std::size_t j = 0; j < n; ++j) {
      const int e = exponent_of(big[j]);
      scale[j] = pow2(-e);
      unscale_[j] = op_unscale_ * pow2(e);
    }
    for (int i = 0; i < M; ++i) {
      const double* d = panel_.data() + std::size_t(i) * ldp;
      float* f = panel32_.data() + std::size_t(i) * ldp;
      for (std::size_t j = 0; j < n; ++j) f[j] = float(d[j] * scale[j]);
      std::fill(f + n, f + nf, 0.0f);
    }
  }
  // A run's solutions go straight to x; others to xb_, scattered after.
  double* xs = !run ? xb_.data() : x ? x + (px[0] - x0) : nullptr;  // null: x32 only
  const std::size_t ldxs = run ? ldx : ldp;
  // Streamed: each lane's value inf once rounded to float32 adds -1 to a lane of `overflow`
  // (padding lanes hold 0).
  using VL = decltype(VD{} < VD{});
  VL overflow = {};
  const VD f32_max = VD{} + 0x1.ffffffp+127;
  float* xs32 = x32 ? x32 + (px[0] - x0) : nullptr;
  auto put = [&](std::size_t o, const VD& a, std::size_t lanes) {  // o: offset from xs
    if (!streamed) return store_lanes(xs + o, a, lanes);
    overflow += (a < 0 ? -a : a) >= f32_max;
    if (xs32) {
      float* d = xs32 + o;
      if (lanes == std::size_t(kW) && reinterpret_cast<std::uintptr_t>(d) % (sizeof(VD) / 2) == 0)
        return stream_store(d, a);
      for (std::size_t l = 0; l < lanes; ++l) d[l] = float(a[l]);
      return;
    }
    double* d = xs + o;
    if (lanes == std::size_t(kW) && reinterpret_cast<std::uintptr_t>(d) % sizeof(VD) == 0)
      stream_store(d, a);
    else
      store_lanes(d, a, lanes);
  };
  for (std::size_t j = 0; j < n; ++j) rss[j] = 0;
  // The prefetched lines spread over the tiles of x = op b.
  const std::size_t tiles = (nv + kC - 1) / kC * std::size_t((N + kR - 1) / kR);
  const std::size_t pf_step = (pf_total_ + tiles - 1) / tiles;
  // Column blocks of kC vectors, then single vectors.
  auto columns = [&]<int C>(std::size_t v0) {
    const std::size_t j0 = v0 * kW;
    const std::size_t lanes_last = std::min<std::size_t>(kW, n - (j0 + std::size_t(C - 1) * kW));
    auto lanes = [&](int c) { return c == C - 1 ? lanes_last : std::size_t(kW); };
    // x = op b: op's rows are zero padded to ld8, a multiple of kR.
    for (int k0 = 0; k0 < N; k0 += kR) {
      if (pf_step > 0) prefetch_lines(pf_step);
      if (products32)
        tile32<kR, C>(op32_.data() + std::size_t(k0) * M, std::size_t(M), panel32_.data() + j0,
                      ldp, M, [&](int r, int c, VD a) {
                        const std::size_t j = j0 + std::size_t(c) * kW;
                        if (k0 + r < N)
                          put(std::size_t(k0 + r) * ldxs + j, a * vload<VD>(unscale_.data() + j),
                              lanes(c));
                      });
      else
        tile<kR, C>(sop.op + std::size_t(k0) * M, std::size_t(M), panel_.data() + j0, ldp, M,
                    [&](int r, int c, VD a) {
                      if (k0 + r < N)
                        put(std::size_t(k0 + r) * ldxs + j0 + std::size_t(c) * kW, a, lanes(c));
                    });
    }
    VD acc[C] = {};
    if (sop.rop_rows >= 0) {  // rss = |R b|^2
      over_rows(sop.rop_rows, [&]<int R>(int r0) {
        tile<R, C>(sop.rop + std::size_t(r0) * M, std::size_t(M), panel_.data() + j0, ldp, M,
                   [&](int, int c, VD a) { acc[c] += a * a; });
      });
    } else {  // rss = |b - A x|^2
      over_rows(M, [&]<int R>(int r0) {
        tile<R, C>(sop.a + std::size_t(r0) * ld8_, std::size_t(ld8_), xs + j0, ldxs, N,
                   [&](int r, int c, VD a) {
                     const VD d =
                         vload<VD>(panel_.data() + std::size_t(r0 + r) * ldp + j0 +
                                   std::size_t(c) * kW) - a;
                     acc[c] += d * d;
                   });
      });
    }
    for (int c = 0; c < C; ++c) store_lanes(rss + j0 + std::size_t(c) * kW, acc[c], lanes(c));
  };
  std::size_t v = 0;
  for (; v + kC <= nv; v += kC) columns.template operator()<kC>(v);
  for (; v < nv; ++v) columns.template operator()<1>(v);
  prefetch_lines(pf_total_);
  pf_rows_ = pf_total_ = 0;
  if (streamed)
    for (int l = 0; l < kW; ++l) *streamed += std::uint64_t(-overflow[l]);
  if (!run)
    for (int k = 0; k < N; ++k)
      for (std::size_t j = 0; j < n; ++j)
        x[std::size_t(k) * ldx + px[j] - x0] = xb_[std::size_t(k) * ldp + j];
}

template SharedBlock::SharedBlock(const Problem<float>&);
template SharedBlock::SharedBlock(const Problem<double>&);

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
