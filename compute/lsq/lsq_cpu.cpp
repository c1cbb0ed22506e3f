// The CPU lsq solver (lsq.hpp, Solver): one OpenMP region over tasks of 256 consecutive pixels,
// each task's pixels sorted by observed count (sort_by_count) and solved in groups of V of them
// "structure of arrays": V pixels share every SIMD instruction of the Cholesky factorisation,
// the triangular solves, the condition estimate and the matrix-vector products (V = 8), so the
// O(N^3) work needs no horizontal reductions and no per-pixel branches; the sort gives a group's
// lanes one path and similar small sizes. Per pixel only the Gram matrix is formed on its own
// (the sum of the rank-1 terms of its observed rows, or A^T A minus those of its missing rows,
// in register-blocked segments of 16 entries), then transposed into the group's packed
// lower-triangular layout. Pixels that leave the Cholesky path (breakdown, poor condition,
// underdetermined with lambda = 0, or methods qr/svd) are solved one by one with Eigen
// (lsq_dense.cpp). Methods auto and downdate: the downdate and minimum-norm lanes
// (lsq_downdate.hpp) share the group's SoA product y = B (w o b) (z = A_S y is s dot products
// per lane), then their small s x s or k x k matrices go through the same SoA factorisation;
// the condition estimator's two start vectors and the path's own right-hand side are solved in
// one pass over the factor; an fp32 solve hands those pixels to a float64 group solver (both
// paths are float64 whatever the precision).
// On AVX-512 (+ BMI2) full groups load each row of the cube with one 8-lane gather and one NaN
// compare (the lanes' row lists then come from bit masks, built only for the paths that use
// them), and K / R_OO are gathered from C / R with one gather per entry; elsewhere the same
// values lane by lane. The SoA products run 8 rows per pass, and the SoA buffers are 64-byte
// aligned (vector loads that split cache lines cost the factorisation ~30 %). Each task's
// solutions are staged in a small buffer and written to the result's (N, H, W) rows as
// contiguous runs (streaming stores on AVX-512), not 50 stores 2 MB apart per pixel.
//
// Memory: the cube (read in place), the outputs, and per thread O(M V + N^2 V + 256 N) scratch.
#include <omp.h>
#if defined(__AVX512F__) && defined(__BMI2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <optional>

#include "core/error.hpp"
#include "lsq/lsq_downdate.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRowPad = 16;                // rows of A in T are padded to a multiple of this
constexpr std::size_t kBlockPixels = 256;  // pixels per task, sorted by count (sort_by_count)
// Pixels per group: one SIMD lane per pixel. fp64: 8 lanes (measured 2026-12-01 on this
// session's AVX-512 Xeon, one thread, 200 x 200 px: downdate 0.146 vs 0.158 CPU-s with 4 lanes,
// min-norm 0.265 vs 0.272; on Zen 4, whose 512-bit units are double-pumped, 4 had beaten 8 by
// ~10 %). fp32: 8 lanes beat 16 by ~35 % (float64 vectors would need 128-byte vector types).
constexpr int kLanesFp64 = 8, kLanesFp32 = 8;
// Rows per pass of the SoA matrix-vector products (A x, A^T r, B b): 8 accumulators in
// registers hide the FMA latency (4 were latency-bound), each loaded vector serves 8 FMAs.
constexpr int kProdRows = 8;

/// Allocator of 64-byte aligned blocks (one cache line, one AVX-512 vector): the SoA buffers'
/// vector loads never split a line whatever malloc returns (a 16-byte aligned factor buffer
/// made the min-norm Cholesky ~30 % slower).
template <class E>
struct Aligned64 {
  using value_type = E;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  E* allocate(std::size_t n) {
    return static_cast<E*>(::operator new(n * sizeof(E), std::align_val_t(64)));
  }
  void deallocate(E* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const Aligned64<U>&) const {
    return true;
  }
};
template <class E>
using AVec = std::vector<E, Aligned64<E>>;

inline std::size_t rowbase(int i) { return std::size_t(i) * std::size_t(i + 1) / 2; }

/// GCC vector types: V lanes of E, kept in registers (several of them when wider than the
/// hardware's vectors). Loads and stores go through memcpy (any alignment).
template <class E, int V>
struct VecOf {
  typedef E type __attribute__((vector_size(V * sizeof(E))));
};
template <class Vt, class E>
inline Vt vload(const E* p) {
  Vt v;
  std::memcpy(&v, p, sizeof(Vt));
  return v;
}
template <class Vt, class E>
inline void vstore(E* p, const Vt& v) {
  std::memcpy(p, &v, sizeof(Vt));
}
/// Lanes of a vector of T converted to a vector of U (a no-op when T == U).
template <class Vu, class Vt>
inline Vu vconvert(const Vt& v) {
  if constexpr (std::is_same_v<Vu, Vt>)
    return v;
  else
    return __builtin_convertvector(v, Vu);
}

enum Kind : std::uint8_t { kPad, kEmpty, kShared, kChol, kDense, kDowndate, kMinNorm };

/// The path of a pixel with `cnt` of M rows observed (the CPU back end's rule; the CUDA classify
/// kernel mirrors it): the downdate and minimum-norm paths work in float64 whatever the
/// precision, so run() hands those pixels of an fp32 solve to a float64 group solver.
inline Kind kind_of(int cnt, int M, int N, Method method, double lambda, const DowndateOps& ops) {
  if (cnt == 0) return kEmpty;
  if (cnt == M) return kShared;
  if (method == Method::Qr || method == Method::Svd) return kDense;
  if (method == Method::Downdate) return ops.downdate ? kDowndate : kDense;
  if (method == Method::Auto && cnt < N && ops.minnorm) return kMinNorm;
  if (cnt < N && lambda == 0) return kDense;
  if (method == Method::Auto && ops.downdate &&
      downdate_cost(M, N, M - cnt) <= gram_cost(M, N, M - cnt))
    return kDowndate;
  return kChol;
}

/// Read-only data of one solve shared by the threads.
template <class T>
struct Problem {
  const Cube& cube;
  const Design& design;
  const Options& options;
  const SharedSvd& shared;
  const DowndateOps& ops;
  int M = 0, N = 0, ldA = 0;
  std::size_t P = 0;     // the cube's pixels (its stride between observations)
  std::size_t pbeg = 0;  // the cube pixel of the result's pixel 0 (a row range's first)
  AVec<T> apad;          // M x ldA: A in T, zero padded to ldA columns
  AVec<T> gfull;         // N x ldA: A^T A (lower triangle) in T, summed in float64
  int ld8 = 0;
  AVec<double> a8;       // M x ld8: A in float64, zero padded to a multiple of 8 columns
  AVec<double> op8;      // ld8 x M: the shared SVD's operator, zero padded to ld8 rows
  AVec<double> bop8;     // ld8 x M: B = G^-1 A^T of the downdate, zero padded to ld8 rows
  AVec<double> bt8;      // M x ld8: B^T, zero padded to ld8 columns (x += B_:S u, add_rows)
  double threshold = 0;  // estimated cond(G) above which Auto falls back to the SVD
  double singular = 0;   // ... and Normal: numerically singular, 0.1 / eps

  Problem(const Cube& c, const Design& d, const Options& o, const SharedSvd& s,
          const DowndateOps& dd, std::size_t pb)
      : cube(c), design(d), options(o), shared(s), ops(dd) {
    M = int(d.m), N = int(d.n);
    ldA = (N + kRowPad - 1) / kRowPad * kRowPad;
    P = c.pixels();
    pbeg = pb;
    apad.assign(std::size_t(M) * ldA, T(0));
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < N; ++k) apad[std::size_t(i) * ldA + k] = T(d.a[std::size_t(i) * N + k]);
    gfull.assign(std::size_t(N + 3) * ldA, T(0));  // blocks of 4 rows
    for (int a = 0; a < N; ++a)
      for (int b = 0; b <= a; ++b) {
        double s = 0;
        for (int i = 0; i < M; ++i) s += d.a[std::size_t(i) * N + a] * d.a[std::size_t(i) * N + b];
        gfull[std::size_t(a) * ldA + b] = T(s);
      }
    ld8 = (N + kProdRows - 1) / kProdRows * kProdRows;
    a8.assign(std::size_t(M) * ld8, 0.0);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < N; ++k) a8[std::size_t(i) * ld8 + k] = d.a[std::size_t(i) * N + k];
    op8.assign(std::size_t(ld8) * M, 0.0);
    std::copy(s.op.begin(), s.op.end(), op8.begin());
    if (dd.downdate) {
      bop8.assign(std::size_t(ld8) * M, 0.0);
      bt8.assign(std::size_t(M) * ld8, 0.0);
      for (int i = 0; i < M; ++i)
        for (int k = 0; k < N; ++k) {
          bop8[std::size_t(k) * M + i] = dd.bt[std::size_t(i) * N + k];
          bt8[std::size_t(i) * ld8 + k] = dd.bt[std::size_t(i) * N + k];
        }
    }
    threshold = fallback_condition(std::is_same_v<T, float> ? Precision::Fp32 : Precision::Fp64);
    singular = 0.1 / double(std::numeric_limits<T>::epsilon());
  }
};

/// One task's solutions, N x kBlockPixels (component k of the task's pixel j at k kStride + j):
/// the groups store them here (pixels in count order land in an L2-resident buffer), and flush()
/// copies each component's row to the result as one contiguous run of np values.
struct SolutionStage {
  // Row stride: 8 doubles more than the task's pixels, so that one pixel's N stores do not all
  // fall in the same two L1 sets (a stride of 2 KB: 4K aliasing).
  static constexpr std::size_t kStride = kBlockPixels + 8;
  std::size_t p0 = 0;  // the task's first result pixel
  AVec<double> x;

  explicit SolutionStage(int n) : x(std::size_t(n) * kStride) {}
  /// With AVX-512 the runs are written with streaming stores (the result's lines are not read
  /// into the cache first: half the memory traffic of the solution, 100 MB at 500 x 500 x 50).
  void flush(Result& out, std::size_t np) const {
    const std::size_t P = out.pixels();
    for (std::size_t k = 0; k < out.n; ++k) {
      const double* src = x.data() + k * kStride;
      double* dst = out.solution.data() + k * P + p0;
      std::size_t j = 0;
#if defined(__AVX512F__) && defined(__BMI2__)
      for (; j < np && reinterpret_cast<std::uintptr_t>(dst + j) % 64 != 0; ++j) dst[j] = src[j];
      for (; j + 8 <= np; j += 8) _mm512_stream_pd(dst + j, _mm512_loadu_pd(src + j));
#endif
      for (; j < np; ++j) dst[j] = src[j];
    }
#if defined(__AVX512F__) && defined(__BMI2__)
    _mm_sfence();  // the streaming stores are visible before the task counts as done
#endif
  }
};

/// Solves groups of V pixels; one instance per thread (its scratch).
template <class T, int V>
class GroupSolver {
 public:
  GroupSolver(const Problem<T>& pb, Result& out) : pb_(pb), out_(out) {
    const int M = pb.M, N = pb.N;
    b_.resize(std::size_t(M) * V);
    w_.resize(std::size_t(M) * V);
    r_.resize(std::size_t(M) * V);
    gaos_.resize(std::size_t(N + 3) * pb.ldA);  // blocks of 4 rows
    l_.resize(rowbase(N) * V);
    invd_.resize(std::size_t(N) * V);
    hx_.resize(std::size_t(N) * V);
    hz_.resize(std::size_t(N) * V);
    halt_.resize(std::size_t(N) * V);
    colsum_.resize(std::size_t(N) * V);
    x_.resize(std::size_t(N) * V);
    y_.resize(std::size_t(N) * V);
    xs_.assign(std::size_t(pb.ld8), 0.0);  // ld8: add_rows' padded rows
    xt_.resize(std::size_t(N) * V);
    ys_.resize(std::size_t(N));
    rho_.resize(std::size_t(N) * V);
    obs_rows_.resize(std::size_t(M) * V);
    yl_.assign(std::size_t(pb.ld8), 0.0);
    miss_rows_.resize(std::size_t(M) * V);
    mwords_ = std::size_t(M + 63) / 64;
    lane_mask_.resize(mwords_ * V);
    mbytes_.resize(std::size_t(M + 7) / 8 * 8);
    y2_.resize(std::size_t(N) * V);
    gs_.resize(std::size_t(N));
    n_ = N;
  }

  /// Solutions go to `stage` (the task's pixels, SolutionStage) instead of the result.
  void set_stage(SolutionStage* stage) { stage_ = stage; }

  std::uint64_t fallbacks() const { return fallbacks_; }
  std::uint64_t dense_pixels() const { return dense_; }
  std::uint64_t downdate_pixels() const { return downdated_; }
  std::uint64_t minnorm_pixels() const { return minnormed_; }

  /// The result's pixels px[0..lanes) (cube pixels pbeg + px[v]), lanes <= V; any pixels: each
  /// lane's outputs do not depend on the others (run() groups pixels of similar counts).
  void solve(const std::size_t* px, int lanes) {
    load(px, lanes);
    const Method method = pb_.options.method;
    const double lambda = pb_.options.lambda;
    bool any_chol = false, any_shared = false, any_down = false, any_min = false;
    (void)lambda;
    const int M = pb_.M, N = pb_.N;
    for (int v = 0; v < V; ++v) {
      const Kind k = v >= lanes ? kPad : kind_of(cnt_[v], M, N, method, lambda, pb_.ops);
      kind_[v] = k;
      small_fail_[v] = 0;
      any_chol |= k == kChol;
      any_shared |= k == kShared;
      any_down |= k == kDowndate;
      any_min |= k == kMinNorm;
    }
    if (any_chol) cholesky_path();
    if (any_shared) shared_path();
    if (any_down) downdate_path();
    if (any_min) minnorm_path();
    residuals();
    for (int k = 0; k < N; ++k)  // x_ transposed once for the lanes' stores (finish)
      for (int v = 0; v < V; ++v) xt_[std::size_t(v) * N + k] = x_[std::size_t(k) * V + v];
    for (int v = 0; v < lanes; ++v) finish(px[v], v);
  }

 private:
  /// The group's data b (gaps 0), mask w and counts, and each lane's observed-row bit mask
  /// (lane_mask_: one bit per row; the row lists obs_rows_ / miss_rows_ are built from it on
  /// demand by rows_of). On AVX-512 with BMI2, full groups of 8 lanes load each row of the cube
  /// with one gather and test NaN with one compare (load_simd); otherwise lane by lane.
  void load(const std::size_t* px, int lanes) {
    const int M = pb_.M;
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
    const bool f32 = pb_.cube.dtype == io::DType::Float32;
    int no[V] = {};
    for (int i = 0; i < M; ++i) {
      const std::size_t off = std::size_t(i) * pb_.P + pb_.pbeg;
      double* b = &b_[std::size_t(i) * V];
      double* w = &w_[std::size_t(i) * V];
      for (int v = 0; v < V; ++v) {
        const double val = v >= lanes ? std::numeric_limits<double>::quiet_NaN()
                           : f32      ? double(pb_.cube.f32()[off + px[v]])
                                      : pb_.cube.f64()[off + px[v]];
        const bool ok = val == val;  // not NaN
        b[v] = ok ? val : 0.0;
        w[v] = ok ? 1.0 : 0.0;
        lane_mask_[std::size_t(v) * mwords_ + std::size_t(i / 64)] |= std::uint64_t(ok) << (i % 64);
        no[v] += ok;
      }
    }
    for (int v = 0; v < V; ++v) cnt_[v] = no[v];
  }

#if defined(__AVX512F__) && defined(__BMI2__)
  /// load() for 8 lanes: per row one 8-wide gather (float or double), the NaN test as a mask
  /// register, b and w stored with it; the row's mask byte goes into mbytes_, and each block of
  /// 8 rows' bytes is split into the lanes' bit masks with one pext per lane.
  void load_simd(const std::size_t* px, std::size_t lo) {
    const int M = pb_.M;
    alignas(32) std::int32_t idx[8];
    for (int v = 0; v < 8; ++v) idx[v] = std::int32_t(px[v] - lo);
    const __m256i vi = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
    const bool f32 = pb_.cube.dtype == io::DType::Float32;
    const __m512d one = _mm512_set1_pd(1.0);
    std::uint8_t* mb = mbytes_.data();
    for (int i = 0; i < M; ++i) {
      const std::size_t off = std::size_t(i) * pb_.P + pb_.pbeg + lo;
      const __m512d val =
          f32 ? _mm512_maskz_cvtps_pd(0xff, _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), 0xff, vi,
                                                                      pb_.cube.f32() + off, 4))
              : _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xff, vi, pb_.cube.f64() + off, 8);
      const __mmask8 ok = _mm512_cmp_pd_mask(val, val, _CMP_ORD_Q);
      _mm512_storeu_pd(&b_[std::size_t(i) * V], _mm512_maskz_mov_pd(ok, val));
      _mm512_storeu_pd(&w_[std::size_t(i) * V], _mm512_maskz_mov_pd(ok, one));
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
    for (int v = 0; v < V; ++v) cnt_[v] = no[v];
  }
#endif

  /// Lane v's observed (observed = true: obs_rows_) or missing rows (miss_rows_) in increasing
  /// order, M ints per lane, built from lane_mask_ on the first call of the group.
  const int* rows_of(int v, bool observed) {
    const int M = pb_.M;
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

  /// Gram matrix of lane v (lower triangle, row-major with leading dimension ldA) into gaos_:
  /// the sum of a_r a_r^T over the observed rows r, or A^T A minus the terms of the missing
  /// rows when those are fewer. Each 16-entry segment of a row of G is accumulated in registers
  /// over all listed rows (rows of A are contiguous and padded, so segments may run past the
  /// diagonal into the unused upper part).
  void gram(int v) {
    const int M = pb_.M, ld = pb_.ldA;
    const bool sub = M - cnt_[v] < cnt_[v];
    const int* list = rows_of(v, !sub);
    (void)M;
    // Blocks of 4 rows of G times segments of one 64-byte vector (8 doubles or 16 floats) of
    // columns: 4 accumulators in registers, each loaded segment of a row of A serves 4 FMAs.
    const int nl = sub ? M - cnt_[v] : cnt_[v];
    rowp_.resize(std::size_t(nl));
    for (int q = 0; q < nl; ++q)
      rowp_[std::size_t(q)] = pb_.apad.data() + std::size_t(list[q]) * ld;
    if (sub)
      gram_blocks<true>(nl);
    else
      gram_blocks<false>(nl);
  }

  template <bool Sub>
  void gram_blocks(int nl) {
    constexpr int W = 64 / int(sizeof(T));
    using Seg = typename VecOf<T, W>::type;
    const int N = pb_.N, ld = pb_.ldA;
    const T* const* rp = rowp_.data();
    for (int i0 = 0; i0 < N; i0 += 4) {
      const int last = std::min(i0 + 3, N - 1);  // segments reach past the diagonal of the
      for (int j0 = 0; j0 <= last; j0 += W) {    // block's upper rows: harmless (upper part)
        Seg c0, c1, c2, c3;
        if (Sub) {
          const T* g = &pb_.gfull[std::size_t(i0) * ld + j0];
          c0 = vload<Seg>(g);
          c1 = vload<Seg>(g + ld);
          c2 = vload<Seg>(g + 2 * ld);
          c3 = vload<Seg>(g + 3 * ld);
        } else {
          c0 = c1 = c2 = c3 = Seg{};
        }
        for (int q = 0; q < nl; ++q) {
          const T* a = rp[q];
          const Seg seg = vload<Seg>(a + j0);
          if (Sub) {
            c0 -= a[i0] * seg;
            c1 -= a[i0 + 1] * seg;
            c2 -= a[i0 + 2] * seg;
            c3 -= a[i0 + 3] * seg;
          } else {
            c0 += a[i0] * seg;
            c1 += a[i0 + 1] * seg;
            c2 += a[i0 + 2] * seg;
            c3 += a[i0 + 3] * seg;
          }
        }
        T* g = &gaos_[std::size_t(i0) * ld + j0];
        vstore(g, c0);
        vstore(g + ld, c1);
        vstore(g + 2 * ld, c2);
        vstore(g + 3 * ld, c3);
      }
    }
  }

  void cholesky_path() {
    n_ = pb_.N;
    std::fill(ln_, ln_ + V, pb_.N);
    const int N = pb_.N;
    const double lambda = pb_.options.lambda;
    // Gram matrices into the packed SoA layout; identity for the other lanes.
    for (int v = 0; v < V; ++v) {
      if (kind_[v] == kChol) {
        gram(v);
        for (int i = 0; i < N; ++i) {
          const T* g = &gaos_[std::size_t(i) * pb_.ldA];
          T* l = &l_[rowbase(i) * V + v];
          for (int j = 0; j <= i; ++j) l[std::size_t(j) * V] = g[j];
          l[std::size_t(i) * V] += T(lambda);
        }
      } else {
        for (int i = 0; i < N; ++i) {
          T* l = &l_[rowbase(i) * V + v];
          for (int j = 0; j <= i; ++j) l[std::size_t(j) * V] = T(i == j);
        }
      }
    }
    norm1_and_tolerance();
    factor();
    // x = G^-1 A^T b (solved in the estimator's first pass), then (auto) one refinement step
    // with the float64 residual.
    rhs_from_data(x_.data());
    estimate_condition(x_.data());
    if (pb_.options.method == Method::Auto) {
      residual_vector();
      correction_rhs();
      solve_in_place(y_.data());
      for (std::size_t k = 0; k < x_.size(); ++k) x_[k] += y_[k];
    }
  }

  using VT = typename VecOf<T, V>::type;
  using VD = typename VecOf<double, V>::type;

  /// ||G||_1 per lane (G symmetric: the largest column sum of |g_ij| over both triangles) and the
  /// breakdown tolerance N eps max(diag G).
  void norm1_and_tolerance() {
    const int N = n_;  // pb_.N, or the padded size of the min-norm lanes
    std::fill(colsum_.begin(), colsum_.end(), T(0));
    VT maxdiag{};
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
      maxdiag = d > maxdiag ? d : maxdiag;
    }
    VT m{};
    for (int j = 0; j < N; ++j) {
      const VT c = vload<VT>(&colsum_[std::size_t(j) * V]);
      m = c > m ? c : m;
    }
    const T eps = std::numeric_limits<T>::epsilon();
    for (int v = 0; v < V; ++v) {
      // Lane v's own size ln_[v] <= N (the padded small paths): its diagonal only, so that the
      // tolerance does not depend on the padding (nor on the group's other lanes).
      T md = 0;
      for (int i = 0; i < ln_[v]; ++i) md = std::max(md, l_[(rowbase(i) + std::size_t(i)) * V + v]);
      norm1_[v] = double(m[v]);
      tol_[v] = T(ln_[v]) * eps * md;
      fail_[v] = 0;
    }
    (void)maxdiag;
  }

  /// Sets lane v's pivot d: sqrt(d), or 1 with fail_[v] set when d <= tol (a breakdown).
  void pivot(T* lii, T* inv, const VT& d) {
    alignas(64) T s[V], r[V];
    for (int v = 0; v < V; ++v) {
      T dv = d[v];
      if (!(dv > tol_[v])) {
        fail_[v] = 1;
        dv = T(1);
      }
      s[v] = std::sqrt(dv);
      r[v] = T(1) / s[v];
    }
    std::memcpy(lii, s, sizeof s);
    std::memcpy(inv, r, sizeof r);
  }

  /// In-place Cholesky G = L L^T of the V packed matrices (Cholesky-Banachiewicz order, two rows
  /// by two columns per inner loop so that each loaded vector serves two FMAs; Golub & Van Loan
  /// Algorithm 4.2.1 with the dot products of 4.2.5). Row i of L starts at rowbase(i) * V.
  void factor() {
    const int N = n_;
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

  /// y <- (L L^T)^-1 y for the V lanes: forward then backward substitution, two rows at a time
  /// (each loaded vector of y or L serves two FMAs). U is T or double (products in U).
  template <class U>
  void solve_in_place(U* y) const {
    U* const ys[1] = {y};
    solve_many<U, 1>(ys);
  }

  /// solve_in_place for R right-hand sides y[0..R) at once: each loaded vector of L serves 2 R
  /// FMAs and the 2 R dot products of the forward sweep are independent chains (for R = 1 each
  /// row's dot product is split into even and odd k, so that there are four). Each right-hand
  /// side gets the operations of a solve of its own.
  template <class U, int R>
  void solve_many(U* const (&y)[R]) const {
    using VU = typename VecOf<U, V>::type;
    const int N = n_;
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

  /// est_[v] ~ ||G^-1||_1 by Hager's method with Higham's refinements (LAPACK xLACN2, at most
  /// hager_iterations_ iterations: 5 on the Gram path, kSmallHagerIterations on the small ones,
  /// then the alternating-sign test vector), all lanes in step; cond_ = ||G||_1 est. rhs, if
  /// not null: an SoA vector solved in place (G^-1 rhs) in the estimator's first pass.
  /// Lane v's vectors live in its first ln_[v] components (zero beyond: the padding of the small
  /// paths is a separate diagonal block, so they stay zero), which makes each lane's estimate
  /// independent of the padding and of the other lanes.
  void estimate_condition(double* rhs = nullptr) {
    const int N = n_;
    T* x = hx_.data();
    T* z = hz_.data();
    double est[V];
    int j[V];
    bool active[V];
    alignas(64) T sgn[kMaxUnknowns][V];  // the sign vector, +1 / -1
    // Per-lane constants in T (so that the lane loops compare and select in one vector width).
    alignas(64) T len[V], inv[V], den[V];
    for (int v = 0; v < V; ++v) {
      len[v] = T(ln_[v]);
      inv[v] = T(1) / T(ln_[v]);
      den[v] = ln_[v] > 1 ? T(ln_[v] - 1) : T(1);
    }
    // The per-lane loops below run over k outside and the lanes inside (contiguous, vectorised),
    // each lane's sums and comparisons in the order k = 0, 1, ... of the scalar algorithm.
    auto norm1 = [&](const T* a, double* out) {
      double s[V] = {};
      for (int k = 0; k < N; ++k)
        for (int v = 0; v < V; ++v) s[v] += std::fabs(double(a[std::size_t(k) * V + v]));
      std::copy(s, s + V, out);
    };
    auto argmax = [&](const T* a, int* best) {  // first k < ln_[v] of the largest |a_k|
      alignas(64) T m[V], b[V];
      for (int v = 0; v < V; ++v) m[v] = T(-1), b[v] = T(0);
      for (int k = 0; k < N; ++k) {
        const T tk = T(k);
        for (int v = 0; v < V; ++v) {
          const T q = std::fabs(a[std::size_t(k) * V + v]);
          const bool c = tk < len[v] && q > m[v];
          m[v] = c ? q : m[v];
          b[v] = c ? tk : b[v];
        }
      }
      for (int v = 0; v < V; ++v) best[v] = int(b[v]);
    };
    auto sign_vector = [&]() {  // z = +-1 by sgn over each lane's own size, 0 beyond
      for (int k = 0; k < N; ++k) {
        const T tk = T(k);
        for (int v = 0; v < V; ++v) z[std::size_t(k) * V + v] = tk < len[v] ? sgn[k][v] : T(0);
      }
    };
    // Higham's alternating-sign vector does not depend on the iterations: solved in the first
    // pass with e / n (and with the caller's right-hand side, which neither depends on). Both
    // filled with the lanes innermost from per-lane constants (one vector division per k).
    T* xa = halt_.data();
    for (int k = 0; k < N; ++k) {
      const T tk = T(k), sg = (k % 2) ? T(-1) : T(1);
      T* xk = x + std::size_t(k) * V;
      T* ak = xa + std::size_t(k) * V;
      for (int v = 0; v < V; ++v) {
        const bool in = tk < len[v];
        xk[v] = in ? inv[v] : T(0);
        ak[v] = in && len[v] > T(1) ? sg * (T(1) + tk / den[v]) : T(0);
      }
    }
    T* const two[2] = {x, xa};
    if constexpr (std::is_same_v<T, double>) {
      double* const three[3] = {x, xa, rhs};
      if (rhs)
        solve_many<double, 3>(three);
      else
        solve_many<double, 2>(two);
    } else {  // rhs is float64, the factor's vectors T: a separate solve
      solve_many<T, 2>(two);
      if (rhs) solve_in_place(rhs);
    }
    norm1(x, est);
    for (int v = 0; v < V; ++v) active[v] = ln_[v] > 1;
    if (N > 1) {
      for (int k = 0; k < N; ++k)
        for (int v = 0; v < V; ++v) sgn[k][v] = x[std::size_t(k) * V + v] >= 0 ? T(1) : T(-1);
      sign_vector();
      solve_in_place(z);
      argmax(z, j);
      for (int iter = 2; iter <= hager_iterations_; ++iter) {
        std::fill(x, x + std::size_t(N) * V, T(0));
        for (int v = 0; v < V; ++v) x[std::size_t(j[v]) * V + v] = T(1);
        solve_in_place(x);
        double e[V];
        norm1(x, e);
        alignas(64) T repeated[V];  // 1 while every sign of x equals sgn's
        for (int v = 0; v < V; ++v) repeated[v] = T(1);
        for (int k = 0; k < N; ++k)
          for (int v = 0; v < V; ++v)
            repeated[v] = (x[std::size_t(k) * V + v] >= 0) == (sgn[k][v] > 0) ? repeated[v] : T(0);
        alignas(64) T go[V];
        bool any = false;
        for (int v = 0; v < V; ++v) {
          go[v] = T(0);
          if (!active[v]) continue;
          if (repeated[v] != T(0) || e[v] <= est[v]) {
            est[v] = std::max(est[v], e[v]);
            active[v] = false;
            continue;
          }
          est[v] = e[v];
          go[v] = T(1);
          any = true;
        }
        for (int k = 0; k < N; ++k)
          for (int v = 0; v < V; ++v)
            sgn[k][v] = go[v] != T(0) ? (x[std::size_t(k) * V + v] >= 0 ? T(1) : T(-1)) : sgn[k][v];
        // The last iteration's next index would go unused: no solve for it.
        if (!any || iter == hager_iterations_) break;
        sign_vector();
        solve_in_place(z);
        int jn[V];
        argmax(z, jn);
        for (int v = 0; v < V; ++v) {
          if (!active[v]) continue;
          const int last = j[v];
          j[v] = jn[v];
          if (!(std::fabs(z[std::size_t(last) * V + v]) != std::fabs(z[std::size_t(j[v]) * V + v])))
            active[v] = false;
        }
      }
      double e[V];
      norm1(xa, e);
      for (int v = 0; v < V; ++v)
        if (ln_[v] > 1) est[v] = std::max(est[v], 2.0 * e[v] / (3.0 * ln_[v]));
    }
    for (int v = 0; v < V; ++v) {
      est_[v] = est[v];
      cond_[v] = norm1_[v] * est[v];
    }
  }

  /// out[k] = init[k] + sum_i A_ik src[i] for the V lanes (A^T src), kProdRows k at a time so
  /// that each loaded src vector serves kProdRows FMAs (A's rows are zero padded to ld8). init
  /// may be null (zero).
  void at_times(const double* src, const double* init, double scale, double* out) const {
    const int M = pb_.M, N = pb_.N, ld = pb_.ld8;
    const double* A = pb_.a8.data();
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

  void rhs_from_data(double* out) const { at_times(b_.data(), nullptr, 0, out); }

  /// t[r] (+ or -)= A_{i+r} . x for r < R and the V lanes (x SoA over N): each loaded x_k
  /// vector serves R FMAs (R accumulators in registers), each t[r] summed in the order k = 0..N-1.
  template <int R, bool Sub>
  void rows_dot(int i, const double* x, VD* t) const {
    const int N = pb_.N, ld = pb_.ld8;
    const double* a = pb_.a8.data() + std::size_t(i) * ld;
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

  /// Calls block(i, count) over the M rows in blocks of kProdRows, then 4, then 1 (count = the
  /// block's rows): the row blocking of the SoA products A x.
  template <class Block>
  void over_rows(Block block) const {
    const int M = pb_.M;
    int i = 0;
    for (; i + kProdRows - 1 < M; i += kProdRows) block.template operator()<kProdRows>(i);
    for (; i + 3 < M; i += 4) block.template operator()<4>(i);
    for (; i < M; ++i) block.template operator()<1>(i);
  }

  /// r_[i] = w_i (b_i - A_i . x) in float64, kProdRows rows at a time (each x_k vector serves
  /// kProdRows FMAs).
  void residual_vector() {
    over_rows([&]<int R>(int i) {
      VD t[R];
      for (int r = 0; r < R; ++r) t[r] = vload<VD>(&b_[std::size_t(i + r) * V]);
      rows_dot<R, true>(i, x_.data(), t);
      for (int r = 0; r < R; ++r) {
        const std::size_t o = std::size_t(i + r) * V;
        vstore(&r_[o], vload<VD>(&w_[o]) * t[r]);
      }
    });
  }

  /// y_ = A_p^T r - lambda x (the gradient of the regularised objective, halved).
  void correction_rhs() { at_times(r_.data(), x_.data(), -pb_.options.lambda, y_.data()); }

  /// Lanes without gaps: x = op b with the shared SVD's operator (four rows of op at a time).
  void shared_path() {
    op_times_b(pb_.op8.data(), [&](int k, const VD& c) {
      for (int v = 0; v < V; ++v)
        if (kind_[v] == kShared) x_[std::size_t(k) * V + v] = c[v];
    });
  }

  /// out(k, c) for each row k of the N x M operator `op` (zero padded to ld8 rows), c = (op b)[k]
  /// over the group's lanes (SoA), kProdRows rows of op at a time: the product of the shared and
  /// the downdate paths.
  template <class Out>
  void op_times_b(const double* op, Out out) const {
    const int N = pb_.N;
    int k0 = 0;
    for (; k0 + kProdRows <= N; k0 += kProdRows) op_rows<kProdRows>(op, k0, out);
    op_tail<kProdRows - 1>(op, k0, N - k0, out);  // the last rows: no FMAs on the zero padding
  }

  /// op_rows<left>(op, k0, out) for 0 < left <= R (nothing for left = 0).
  template <int R, class Out>
  void op_tail(const double* op, int k0, int left, Out& out) const {
    if constexpr (R > 0) {
      if (left == R) return op_rows<R>(op, k0, out);
      op_tail<R - 1>(op, k0, left, out);
    }
  }

  /// op_times_b's rows k0 .. k0 + R - 1: R accumulators in registers, and for R < kProdRows a
  /// second set for the odd i (so that a short block is not bound by the FMA latency).
  template <int R, class Out>
  void op_rows(const double* op, int k0, Out& out) const {
    const int M = pb_.M;
    VD c[R] = {}, d[R] = {};
    const double* o = op + std::size_t(k0) * M;
    int i = 0;
    if constexpr (R < kProdRows)
      for (; i + 1 < M; i += 2) {
        const VD s = vload<VD>(&b_[std::size_t(i) * V]),
                 s1 = vload<VD>(&b_[std::size_t(i + 1) * V]);
#pragma GCC unroll 8
        for (int q = 0; q < R; ++q) {
          c[q] += o[std::size_t(q) * M + i] * s;
          d[q] += o[std::size_t(q) * M + i + 1] * s1;
        }
      }
    for (; i < M; ++i) {
      const VD s = vload<VD>(&b_[std::size_t(i) * V]);
#pragma GCC unroll 8
      for (int q = 0; q < R; ++q) c[q] += o[std::size_t(q) * M + i] * s;
    }
    for (int q = 0; q < R; ++q) out(k0 + q, R < kProdRows ? c[q] + d[q] : c[q]);
  }

  /// Downdate lanes: y = B (w o b) for the group (SoA, four rows of B at a time), then each
  /// lane's small solve (lsq_downdate.hpp); small_fail_ marks the lanes for the SVD.
  void downdate_path() {
    const int M = pb_.M, N = pb_.N;
    op_times_b(pb_.bop8.data(), [&](int k, const VD& c) { vstore(&y_[std::size_t(k) * V], c); });
    const double lambda = pb_.options.lambda;
    const double limit = fallback_condition(Precision::Fp64);
    // float64 groups: lanes with at most N missing rows in the SoA code, the others one by one.
    int smax = 0;
    bool any_soa = false;
    for (int v = 0; v < V; ++v) {
      soa_[v] = std::is_same_v<T, double> && kind_[v] == kDowndate && M - cnt_[v] <= N;
      if (soa_[v]) smax = std::max(smax, M - cnt_[v]), any_soa = true;
    }
    if (any_soa) downdate_soa(smax);
    for (int v = 0; v < V; ++v) {
      if (kind_[v] != kDowndate || soa_[v]) continue;
      miss_.clear();
      for (int i = 0; i < M; ++i)
        if (w_[std::size_t(i) * V + v] == 0) miss_.push_back(i);
      for (int k = 0; k < N; ++k) ys_[std::size_t(k)] = y_[std::size_t(k) * V + v];
      const SmallOutcome so =
          downdate_pixel(pb_.ops, pb_.design, lambda, ys_.data(), miss_, &b_[std::size_t(v)],
                         &w_[std::size_t(v)], std::size_t(V), limit, xs_.data(), scratch_);
      lane_outcome(v, so);
    }
  }

  /// Downdate lanes of a float64 group with at most N missing rows each, y_ = B (w o b) given:
  /// the lanes' K = I - C_SS, padded to the group's largest s with I (K's eigenvalues are in
  /// (0, 1], so neither ||K||_1 nor ||K^-1||_1 changes), through the group's SoA Cholesky,
  /// condition estimate and solves; then x = y + B_:S u per lane, and one refinement step for
  /// the lanes with estimated cond2(G_p) > kRefineCondition (lsq_downdate.hpp's algorithm).
  void downdate_soa(int smax) {
    const int M = pb_.M, N = pb_.N;
    const double lambda = pb_.options.lambda;
    const double* C = pb_.ops.c.data();
    const double* A = pb_.design.a.data();
    const int n = std::max(smax, 1);
    double cond_keep[V], norm_keep[V];
    std::uint8_t fail_keep[V];
    std::copy(cond_, cond_ + V, cond_keep);
    std::copy(norm1_, norm1_ + V, norm_keep);
    std::copy(fail_, fail_ + V, fail_keep);
    n_ = n;
    // The padded K of every lane starts as I (one contiguous fill, not strided per lane); z = A_S y
    // per lane from s dot products of length N (rows_dot_lane: ~s N / 8 vector FMAs a lane, where
    // the group's SoA product A y took M N for all 8 lanes, about 2.5 times as many at s ~ M / 5).
    std::fill(rho_.begin(), rho_.begin() + std::ptrdiff_t(std::size_t(n) * V), 0.0);
    int sz[V];
    const int* rp[V];
    double pad[V];
    for (int v = 0; v < V; ++v) {
      ln_[v] = n;
      sz[v] = 0, pad[v] = 1, rp[v] = nullptr;
      if (!soa_[v]) continue;
      const int* mr = rows_of(v, false);
      rows_[v].assign(mr, mr + (M - cnt_[v]));
      const int sv = int(rows_[v].size());
      rp[v] = rows_[v].data(), sz[v] = sv;
      ln_[v] = std::max(sv, 1);
      for (int k = 0; k < N; ++k) yl_[std::size_t(k)] = y_[std::size_t(k) * V + v];
      rows_dot_lane(rp[v], sv, yl_.data(), &rho_[std::size_t(v)]);
    }
    gather_soa(n, sz, rp, C, -1.0, 1.0, pad);
    (void)A;
    norm1_and_tolerance();
    factor();
    hager_iterations_ = kSmallHagerIterations;
    estimate_condition(rho_.data());  // and rho_ <- K^-1 z
    hager_iterations_ = 5;
    const double limit = fallback_condition(Precision::Fp64);
    bool refine = false;
    for (int v = 0; v < V; ++v) {
      if (kind_[v] != kDowndate) continue;
      const double cond_gp = pb_.ops.cond_g * est_[v];  // lsq_downdate.hpp's bound
      SmallOutcome so;
      so.ok = !fail_[v] && cond_gp <= limit;
      so.cond = std::sqrt(cond_gp);
      refine_[v] = so.ok && cond_gp > kRefineCondition;
      refine |= refine_[v];
      for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = y_[std::size_t(k) * V + v];
      if (so.ok) add_bs(v, rho_.data(), xs_.data());
      lane_outcome(v, so);
    }
    if (refine) {
      // g = A_p^T (b - A_p x) - lambda x, y2 = G^-1 g, z2 = A_S y2, x += y2 + B_:S K^-1 z2.
      for (int v = 0; v < V; ++v) {
        const bool on = soa_[v] && refine_[v];
        for (int q = 0; q < n; ++q) rho_[std::size_t(q) * V + v] = 0;
        if (!on) continue;
        for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = x_[std::size_t(k) * V + v];
        std::fill(gs_.begin(), gs_.end(), 0.0);
        for (int i = 0; i < M; ++i) {
          if (w_[std::size_t(i) * V + v] == 0) continue;
          const double* ai = A + std::size_t(i) * N;
          const double ri = b_[std::size_t(i) * V + v] - detail::dot(ai, xs_.data(), N);
          for (int k = 0; k < N; ++k) gs_[std::size_t(k)] += ri * ai[k];
        }
        for (int k = 0; k < N; ++k) gs_[std::size_t(k)] -= lambda * xs_[std::size_t(k)];
        for (int k = 0; k < N; ++k)
          y2_[std::size_t(k) * V + v] =
              detail::dot(&pb_.ops.ginv[std::size_t(k) * N], gs_.data(), N);
        for (int k = 0; k < N; ++k) ys_[std::size_t(k)] = y2_[std::size_t(k) * V + v];
        for (int q = 0; q < int(rows_[v].size()); ++q)
          rho_[std::size_t(q) * V + v] =
              detail::dot(A + std::size_t(rows_[v][std::size_t(q)]) * N, ys_.data(), N);
      }
      solve_in_place(rho_.data());
      for (int v = 0; v < V; ++v) {
        if (!(soa_[v] && refine_[v])) continue;
        for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = y2_[std::size_t(k) * V + v];
        add_bs(v, rho_.data(), xs_.data());
        for (int k = 0; k < N; ++k) x_[std::size_t(k) * V + v] += xs_[std::size_t(k)];
      }
    }
    std::copy(cond_keep, cond_keep + V, cond_);
    std::copy(norm_keep, norm_keep + V, norm1_);
    std::copy(fail_keep, fail_keep + V, fail_);
    n_ = N;
  }

  /// z[q V] = A_{rows[q]} . y for q < n, float64 (y: ld8 values, zero beyond N, like a8's rows):
  /// four rows at a time, 8 columns per vector, one horizontal sum per row.
  void rows_dot_lane(const int* rows, int n, const double* y, double* z) const {
    using D8 = typename VecOf<double, 8>::type;
    const int ld = pb_.ld8;
    const double* A = pb_.a8.data();
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

  /// The sum of a vector's 8 doubles (halves added pairwise: 3 adds).
  template <class D8>
  static double hsum(const D8& v) {
    const auto h4 =
        __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
    const auto h2 = __builtin_shufflevector(h4, h4, 0, 1) + __builtin_shufflevector(h4, h4, 2, 3);
    return h2[0] + h2[1];
  }

  /// The group's packed SoA matrix of size n: lane v's entry (q, p), p <= q < sz[v], is
  /// sign * S[rows_v[q]][rows_v[p]] (+ diag on the diagonal); its padding is pad[v] I. Row by
  /// row with the lanes innermost, so the stores are contiguous (the gathers from S, an M x M
  /// matrix in cache, are not).
  void gather_soa(int n, const int* sz, const int* const* rows, const double* S, double sign,
                  double diag, const double* pad) {
    const int M = pb_.M;
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, double> && V == 8) {
      // One 8-lane gather per entry: lane v's index rows_v[q] M + rows_v[p] (M <= 1024, so it
      // fits 32 bits), masked to the lanes with q < sz[v]; the same products and sums as below.
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
        const __m256i ro = _mm256_mullo_epi32(
            _mm256_load_si256(reinterpret_cast<const __m256i*>(ridx + q * 8)), mm);
        double* lq = &l_[rowbase(q) * V];
        for (int p = 0; p < q; ++p) {
          const __m256i ix = _mm256_add_epi32(
              ro, _mm256_load_si256(reinterpret_cast<const __m256i*>(ridx + p * 8)));
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

  /// x += B_:S u for lane v (S = rows_[v], u = lane v of the SoA vector u).
  void add_bs(int v, const double* u, double* x) const { add_rows(v, pb_.bt8.data(), u, x); }

  /// x += sum_q u_q S_{rows_v[q]} for lane v: S an M x ld8 row-major matrix (B^T or A, zero
  /// padded: bt8 / a8), u lane v of an SoA vector, x ld8 long; four rows per pass over x (a
  /// quarter of the loads and stores of x), 8 columns per vector.
  void add_rows(int v, const double* S, const double* u, double* x) const {
    using D8 = typename VecOf<double, 8>::type;
    const int ld = pb_.ld8, n = int(rows_[v].size());
    const int* r = rows_[v].data();
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

  /// Minimum-norm lanes (m_p < N), float64 groups: the lanes' row Grams R_OO (+ lambda I),
  /// padded to the group's largest k with maxdiag(R_OO) I (which changes neither norm of the
  /// block-diagonal matrix nor of its inverse), go through the group's SoA Cholesky, condition
  /// estimate and solves (the Gram path's code at size n_ = k_max); then x = A_O^T v per lane
  /// and, where cond > kRefineCondition, one refinement step (lsq_downdate.hpp's algorithm).
  void minnorm_soa() {
    const int M = pb_.M, N = pb_.N;
    const double lambda = pb_.options.lambda;
    const double* R = pb_.ops.r.data();
    int kmax = 1;
    for (int v = 0; v < V; ++v)
      if (kind_[v] == kMinNorm) kmax = std::max(kmax, cnt_[v]);
    // The Gram path's per-lane outputs, kept for its lanes.
    double cond_keep[V], norm_keep[V];
    std::uint8_t fail_keep[V];
    std::copy(cond_, cond_ + V, cond_keep);
    std::copy(norm1_, norm1_ + V, norm_keep);
    std::copy(fail_, fail_ + V, fail_keep);
    n_ = kmax;
    int sz[V];
    const int* rp[V];
    double pad[V];
    for (int v = 0; v < V; ++v) {
      int k = 0;
      double maxdiag = 1;
      ln_[v] = kmax;
      rp[v] = nullptr;
      if (kind_[v] == kMinNorm) {
        const int* orow = rows_of(v, true);
        rows_[v].assign(orow, orow + cnt_[v]);
        k = int(rows_[v].size());
        rp[v] = rows_[v].data();
        ln_[v] = k;
        maxdiag = 0;
        for (int q = 0; q < k; ++q) {
          const int iq = rp[v][q];
          maxdiag = std::max(maxdiag, double(T(R[std::size_t(iq) * M + iq]) + T(lambda)));
          y_[std::size_t(q) * V + v] = b_[std::size_t(iq) * V + v];
        }
        if (!(maxdiag > 0)) maxdiag = 1;
      }
      sz[v] = k, pad[v] = maxdiag;
      for (int q = k; q < kmax; ++q) y_[std::size_t(q) * V + v] = 0;
    }
    gather_soa(kmax, sz, rp, R, 1.0, lambda, pad);
    norm1_and_tolerance();
    factor();
    hager_iterations_ = kSmallHagerIterations;
    estimate_condition(y_.data());  // and y_ <- R_OO^-1 y_
    hager_iterations_ = 5;
    const double limit = fallback_condition(Precision::Fp64);
    bool refine = false;
    for (int v = 0; v < V; ++v) {
      if (kind_[v] != kMinNorm) continue;
      SmallOutcome so;
      so.ok = !fail_[v] && cond_[v] <= limit;
      so.cond = lambda > 0 ? std::sqrt(norm1_[v] / lambda) : std::sqrt(cond_[v]);
      refine_[v] = so.ok && cond_[v] > kRefineCondition;
      refine |= refine_[v];
      std::fill(xs_.begin(), xs_.end(), 0.0);
      if (so.ok) add_rows(v, pb_.a8.data(), y_.data(), xs_.data());
      lane_outcome(v, so);
    }
    if (refine) {  // rho = b_O - A_O x - lambda v, v += R^-1 rho, x += A_O^T (R^-1 rho)
      for (int v = 0; v < V; ++v) {
        const bool on = kind_[v] == kMinNorm && refine_[v];
        for (int q = 0; q < kmax; ++q) {
          double r = 0;
          if (on && q < cnt_[v]) {
            const int iq = rows_[v][std::size_t(q)];
            const double* a = pb_.design.a.data() + std::size_t(iq) * N;
            r = b_[std::size_t(iq) * V + v] - lambda * y_[std::size_t(q) * V + v];
            for (int c = 0; c < N; ++c) r -= a[c] * x_[std::size_t(c) * V + v];
          }
          rho_[std::size_t(q) * V + v] = r;
        }
      }
      solve_in_place(rho_.data());
      for (int v = 0; v < V; ++v) {
        if (!(kind_[v] == kMinNorm && refine_[v])) continue;
        for (int q = 0; q < cnt_[v]; ++q) {
          const double d = rho_[std::size_t(q) * V + v];
          const double* a = pb_.design.a.data() + std::size_t(rows_[v][std::size_t(q)]) * N;
          for (int c = 0; c < N; ++c) x_[std::size_t(c) * V + v] += d * a[c];
        }
      }
    }
    std::copy(cond_keep, cond_keep + V, cond_);
    std::copy(norm_keep, norm_keep + V, norm1_);
    std::copy(fail_keep, fail_keep + V, fail_);
    n_ = N;
  }

  /// Minimum-norm lanes (m_p < N): each lane's row-Gram solve (lsq_downdate.hpp).
  void minnorm_path() {
    if constexpr (std::is_same_v<T, double>) {
      minnorm_soa();
      return;
    }
    const int M = pb_.M, N = pb_.N;
    const double limit = fallback_condition(Precision::Fp64);
    for (int v = 0; v < V; ++v) {
      if (kind_[v] != kMinNorm) continue;
      obs_.clear();
      bo_.clear();
      for (int i = 0; i < M; ++i)
        if (w_[std::size_t(i) * V + v] != 0) {
          obs_.push_back(i);
          bo_.push_back(b_[std::size_t(i) * V + v]);
        }
      const SmallOutcome so = minnorm_pixel(pb_.ops, pb_.design, pb_.options.lambda, obs_,
                                            bo_.data(), limit, xs_.data(), scratch_);
      lane_outcome(v, so);
      (void)N;
    }
  }

  /// Stores a small solve's solution (xs_) in lane v of x_, or marks the lane for the SVD.
  void lane_outcome(int v, const SmallOutcome& so) {
    const int N = pb_.N;
    if (!so.ok) {
      small_fail_[v] = 1;
      for (int k = 0; k < N; ++k) x_[std::size_t(k) * V + v] = 0;
      return;
    }
    small_cond_[v] = so.cond;
    for (int k = 0; k < N; ++k) x_[std::size_t(k) * V + v] = xs_[std::size_t(k)];
  }

  /// rss_[v]: sum over observed rows of (A_i . x - b_i)^2, float64.
  void residuals() {
    residual_vector();
    VD acc[4] = {};  // four chains (rows i mod 4), summed pairwise
    int i = 0;
    for (; i + 3 < pb_.M; i += 4)
      for (int c = 0; c < 4; ++c) {
        const VD r = vload<VD>(&r_[std::size_t(i + c) * V]);
        acc[c] += r * r;
      }
    for (; i < pb_.M; ++i) {
      const VD r = vload<VD>(&r_[std::size_t(i) * V]);
      acc[0] += r * r;
    }
    const VD t = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (int v = 0; v < V; ++v) rss_[v] = t[v];
  }

  void finish(std::size_t p, int v) {
    const int N = pb_.N;
    PixelOutcome o;
    switch (kind_[v]) {
      case kPad:
        return;
      case kEmpty: {  // status 3: NaN outputs, count 0 (shape_result leaves the arrays unset)
        const double nan = std::numeric_limits<double>::quiet_NaN();
        for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = nan;
        o.status = kAllMissing;
        o.condition = std::numeric_limits<float>::quiet_NaN();
        store(p, xs_.data(), o, nan, 0);
        return;
      }
      case kShared:
        o = pb_.shared.outcome;
        break;
      case kChol:
        if (fail_[v] ||
            cond_[v] > (pb_.options.method == Method::Auto ? pb_.threshold : pb_.singular)) {
          dense(p, v, true);
          return;
        }
        o.status = cnt_[v] < N ? kUnderdetermined : kOk;
        o.condition = float(std::sqrt(cond_[v]));
        break;
      case kDense:
        dense(p, v, pb_.options.method != Method::Qr && pb_.options.method != Method::Svd);
        return;
      case kDowndate:
      case kMinNorm:
        if (small_fail_[v]) {
          dense(p, v, true);
          return;
        }
        ++(kind_[v] == kDowndate ? downdated_ : minnormed_);
        o.status = cnt_[v] < N ? kUnderdetermined : kOk;
        o.condition = float(small_cond_[v]);
        break;
    }
    store(p, &xt_[std::size_t(v) * N], o, std::sqrt(rss_[v] / double(cnt_[v])), cnt_[v]);
  }

  /// Pixel p's outputs: the maps into the result, the solution x (N values) into the task's
  /// stage (SolutionStage::flush copies it to the result) or, without a stage, the result.
  void store(std::size_t p, const double* x, const PixelOutcome& o, double residual, int count) {
    if (!stage_) return store_pixel(out_, p, x, o, residual, count);
    store_maps(out_, p, o, residual, count);
    double* s = stage_->x.data() + (p - stage_->p0);
    for (int k = 0; k < pb_.N; ++k) s[std::size_t(k) * SolutionStage::kStride] = x[k];
  }

  /// One pixel through Eigen: the float64 SVD fallback, or the qr / svd methods.
  void dense(std::size_t p, int v, bool fallback) {
    px_.rows.clear();
    px_.b.clear();
    for (int i = 0; i < pb_.M; ++i)
      if (w_[std::size_t(i) * V + v] != 0) {
        px_.rows.push_back(i);
        px_.b.push_back(b_[std::size_t(i) * V + v]);
      }
    const double lambda = pb_.options.lambda;
    constexpr bool f32 = std::is_same_v<T, float>;
    PixelOutcome o;
    ++dense_;
    if (fallback) {
      o = svd_pixel<double>(pb_.design, px_, lambda, xs_.data());
      ++fallbacks_;
    } else if (pb_.options.method == Method::Qr) {
      o = f32 ? qr_pixel<float>(pb_.design, px_, lambda, xs_.data())
              : qr_pixel<double>(pb_.design, px_, lambda, xs_.data());
    } else {
      o = f32 ? svd_pixel<float>(pb_.design, px_, lambda, xs_.data())
              : svd_pixel<double>(pb_.design, px_, lambda, xs_.data());
    }
    store(p, xs_.data(), o, residual_rms(pb_.design, px_, xs_.data()), int(px_.rows.size()));
  }

  const Problem<T>& pb_;
  Result& out_;
  AVec<double> b_, w_, r_;
  AVec<T> gaos_, l_, invd_, hx_, hz_, halt_, colsum_;
  AVec<double> x_, y_, xs_, ys_, bo_;
  AVec<double> xt_;  // V x N: x_ transposed (each lane's solution contiguous, for finish)
  std::vector<int> obs_, miss_;
  std::vector<int> obs_rows_, miss_rows_;  // V x M: each lane's observed / missing rows (rows_of)
  std::vector<std::uint64_t> lane_mask_;   // V x mwords_: each lane's observed rows, one bit each
  std::vector<std::uint8_t> mbytes_;       // M rounded up to 8: the group's NaN masks per row
  std::size_t mwords_ = 0;
  std::uint8_t built_[2 * V] = {};  // rows_of: lane v's missing (2v) / observed (2v+1) list built
  SmallScratch scratch_;
  std::uint8_t small_fail_[V] = {}, refine_[V] = {};
  std::vector<int> rows_[V];
  AVec<double> rho_, y2_, gs_, yl_;  // yl_: one lane's y, ld8 values (zero beyond N)
  int n_ = 0;
  int hager_iterations_ = 5;
  int ln_[V] = {};            // each lane's own size within n_ (estimate_condition)
  std::uint8_t soa_[V] = {};  // downdate lanes solved in the group's SoA code
  double small_cond_[V] = {};
  std::uint64_t downdated_ = 0, minnormed_ = 0;
  std::vector<const T*> rowp_;
  PixelData px_;
  int cnt_[V] = {};
  Kind kind_[V] = {};
  T tol_[V] = {};
  std::uint8_t fail_[V] = {};
  double norm1_[V] = {}, cond_[V] = {}, rss_[V] = {}, est_[V] = {};
  std::uint64_t fallbacks_ = 0, dense_ = 0;
  SolutionStage* stage_ = nullptr;
};

/// The result's pixels [p0, p0 + np) ordered by their observed count (a stable counting sort,
/// one pass over the block's rows of the cube): groups of consecutive entries then have similar
/// small sizes s or k, so little padding in the group's SoA factorisation (and one path).
template <class T>
void sort_by_count(const Problem<T>& pb, std::size_t p0, std::size_t np, std::vector<int>& counts,
                   std::vector<std::size_t>& order) {
  const int M = pb.M;
  counts.assign(np, 0);
  const bool f32 = pb.cube.dtype == io::DType::Float32;
  for (int i = 0; i < M; ++i) {
    const std::size_t off = std::size_t(i) * pb.P + pb.pbeg + p0;
    if (f32) {
      const float* src = pb.cube.f32() + off;
      for (std::size_t j = 0; j < np; ++j) counts[j] += src[j] == src[j];
    } else {
      const double* src = pb.cube.f64() + off;
      for (std::size_t j = 0; j < np; ++j) counts[j] += src[j] == src[j];
    }
  }
  std::vector<int> start(std::size_t(M) + 2, 0);
  for (std::size_t j = 0; j < np; ++j) ++start[std::size_t(counts[j]) + 1];
  for (int c = 0; c <= M; ++c) start[std::size_t(c) + 1] += start[std::size_t(c)];
  order.resize(np);
  for (std::size_t j = 0; j < np; ++j) order[std::size_t(start[std::size_t(counts[j])]++)] = p0 + j;
}

/// Solves the result's pixels (out.pixels() of them, from cube pixel out.row_begin * W): blocks
/// of kBlockPixels consecutive pixels per task, each sorted by count and solved V at a time.
template <class T, int V>
void run(const Cube& cube, const Design& design, const Options& options, const SharedSvd& shared,
         const DowndateOps& ops, Result& out, Progress* progress) {
  const Problem<T> pb(cube, design, options, shared, ops, out.row_begin * cube.width);
  // fp32: the downdate and minimum-norm pixels go to a float64 group solver (its SoA code).
  constexpr bool f32 = std::is_same_v<T, float>;
  std::optional<Problem<double>> pbd;
  if (f32) pbd.emplace(cube, design, options, shared, ops, out.row_begin * cube.width);
  auto small = [&](int c) {
    const Kind k = kind_of(c, pb.M, pb.N, options.method, options.lambda, ops);
    return f32 && (k == kDowndate || k == kMinNorm);
  };
  const std::size_t P = out.pixels();
  const std::size_t blocks = (P + kBlockPixels - 1) / kBlockPixels;
  std::atomic<std::uint64_t> fallbacks{0}, dense{0}, downdated{0}, minnormed{0};
  // One parallel region for the whole solve (one barrier: on a loaded machine, threads spinning
  // at a barrier per chunk cost a quarter of the CPU time); cancellation is polled per block
  // (the remaining blocks are skipped, Cancelled thrown after the region), the progress fraction
  // is set by the calling thread.
  std::atomic<std::size_t> done{0};
  std::atomic<bool> stop{false};
  progress_check(progress);
  {
#pragma omp parallel
    {
      GroupSolver<T, V> gs(pb, out);
      std::optional<GroupSolver<double, kLanesFp64>> gsd;
      if (f32) gsd.emplace(*pbd, out);
      SolutionStage stage(pb.N);
      gs.set_stage(&stage);
      if (gsd) gsd->set_stage(&stage);
      std::vector<std::size_t> order, order64;
      std::vector<int> counts;
#pragma omp for schedule(dynamic, 1)
      for (std::size_t k = 0; k < blocks; ++k) {
        if (stop.load(std::memory_order_relaxed)) continue;
        const std::size_t p0 = k * kBlockPixels, np = std::min(kBlockPixels, P - p0);
        sort_by_count(pb, p0, np, counts, order);
        stage.p0 = p0;
        if (f32) {  // split off the float64 pixels (order stays sorted by count in both lists)
          order64.clear();
          std::size_t n32 = 0;
          for (std::size_t j = 0; j < np; ++j) {
            const std::size_t px = order[j];
            if (small(counts[px - p0]))
              order64.push_back(px);
            else
              order[n32++] = px;
          }
          order.resize(n32);
          for (std::size_t g = 0; g < order64.size(); g += kLanesFp64)
            gsd->solve(order64.data() + g,
                       int(std::min<std::size_t>(kLanesFp64, order64.size() - g)));
        }
        for (std::size_t g = 0; g < order.size(); g += V)
          gs.solve(order.data() + g, int(std::min<std::size_t>(V, order.size() - g)));
        stage.flush(out, np);
        const std::size_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
        if (progress && progress->cancel.load(std::memory_order_relaxed)) stop = true;
        if (progress && omp_get_thread_num() == 0) progress_set(progress, double(d) / blocks);
      }
      fallbacks += gs.fallbacks();
      dense += gs.dense_pixels();
      downdated += gs.downdate_pixels();
      minnormed += gs.minnorm_pixels();
      if (gsd) {
        fallbacks += gsd->fallbacks();
        dense += gsd->dense_pixels();
        downdated += gsd->downdate_pixels();
        minnormed += gsd->minnorm_pixels();
      }
    }
  }
  progress_check(progress);
  progress_set(progress, 1.0);
  out.fallback_pixels = fallbacks.load();
  out.host_pixels = dense.load();
  out.downdate_pixels = downdated.load();
  out.minnorm_pixels = minnormed.load();
}

/// init_result without its fill of the arrays: every pixel's outputs are written by the group
/// solvers (finish: the empty pixels' NaN and status 3 too), so the solution's N P doubles are
/// written once, in parallel, instead of a serial NaN pass first (~0.02 s at 500 x 500 x 50).
void shape_result(Result& out, const Cube& cube, const Design& design, const IndexRange& rows) {
  const std::size_t P = (rows.end - rows.begin) * cube.width;
  Result meta;  // the metadata of init_result, on an empty result
  init_result(meta, Cube{}, design, IndexRange{0, 0});
  meta.height = rows.end - rows.begin;
  meta.width = cube.width;
  meta.row_begin = rows.begin;
  meta.solution.swap(out.solution);
  meta.residual.swap(out.residual);
  meta.count.swap(out.count);
  meta.status.swap(out.status);
  meta.condition.swap(out.condition);
  out = std::move(meta);
  out.solution.resize(design.n * P);
  out.residual.resize(P);
  out.count.resize(P);
  out.status.resize(P);
  out.condition.resize(P);
}

class CpuSolver final : public Solver {
 public:
  using Solver::solve;
  Backend backend() const override { return Backend::Cpu; }

  void solve(const Cube& cube, const Design& design, const IndexRange& range,
             const Options& options, Result& out, Progress* progress) override {
    validate(cube, design, options);
    const IndexRange rows = resolve(range, cube.height, "lsq: pixel rows");
    const auto t0 = Clock::now();
    shape_result(out, cube, design, rows);
    const SharedSvd shared = shared_svd(design, options.lambda);
    const bool dd = options.method == Method::Downdate || options.method == Method::Auto;
    const DowndateOps ops =
        make_downdate_ops(design, options.lambda, fallback_condition(Precision::Fp64), dd,
                          options.method == Method::Auto && design.m > 0);
    if (options.precision == Precision::Fp32)
      run<float, kLanesFp32>(cube, design, options, shared, ops, out, progress);
    else
      run<double, kLanesFp64>(cube, design, options, shared, ops, out, progress);
    out.shared_rank = shared.rank;
    out.shared_pixels = 0;
    for (std::size_t p = 0; p < out.count.size(); ++p)
      out.shared_pixels += std::size_t(out.count[p]) == cube.m;
    count_statuses(out);
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  }
};

}  // namespace

std::unique_ptr<Solver> make_cpu_solver() { return std::make_unique<CpuSolver>(); }

}  // namespace simscope::lsq::detail
