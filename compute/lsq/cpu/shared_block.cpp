// SharedBlock (shared_block.hpp): register-tiled products of a small float64 matrix with a
// band's right-hand sides, R rows by C vectors of pixels per tile.
#include "lsq/cpu/shared_block.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

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
    return _mm256_stream_ps(p, _mm512_cvtpd_ps(t));
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
  if (n == 0) {  // no tiles to spread a prefetch over: none
    pf_rows_ = pf_total_ = 0;
    return;
  }
  const int M = sop.m, N = N_;
  const std::size_t ldp = kPanelStride;
  const std::size_t nv = (n + kW - 1) / kW;  // vectors of pixels, the last zero padded
  const bool run = px[n - 1] - px[0] == n - 1;
  // The right-hand sides, m x n, converted to float64.
  for (int i = 0; i < M; ++i) {
    double* d = panel_.data() + std::size_t(i) * ldp;
    const std::size_t off = std::size_t(sop.rows ? sop.rows[i] : i) * P_ + pbeg_;
    auto pack = [&](const auto* src) {
      if (run) {
        src += off + px[0];
        for (std::size_t j = 0; j < n; ++j) d[j] = double(src[j]);
      } else {
        src += off;
        for (std::size_t j = 0; j < n; ++j) d[j] = double(src[px[j]]);
      }
    };
    if (cube_.dtype == io::DType::Float32)
      pack(cube_.f32());
    else
      pack(cube_.f64());
    std::fill(d + n, d + nv * kW, 0.0);
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
