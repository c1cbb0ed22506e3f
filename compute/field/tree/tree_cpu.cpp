// The tree method on the CPU with OpenMP: a fast multipole method with a dual traversal of the
// source tree against a tree of the targets (field.hpp, Method::Tree). Choice and measurements:
// tests/bench/NOTES.md "field tree".
//
// Evaluation: the whole target set gets its own octree, so a target's value does not depend
// on the work range. Its cells are cut into subtree tasks. Each task walks down from (its root,
// the source root) and lists its cell pairs, A targets and B sources:
// - r_A + r_B < theta |z_A - c_B|: B's multipole goes into A's local expansion (M2L);
// - two leaves that fail it are summed directly (P2P);
// - otherwise the larger cell is split.
// Then each target cell's M2Ls run 8 source cells at a time, vectorised across them. Each
// target leaf sums the sources of its own and its ancestors' P2P lists in one pass per target,
// reading the sorted sources in place. That near field is fp32 with 16 lanes for tolerances
// >= 1e-6, each target a sum of two floats (Split); fp64 otherwise, for cells of few sources,
// and for a target with a source too near it for fp32. Coincidences are skipped and counted. Then the local expansions go down the task's subtree
// (L2L) to the targets (L2P). The source tree and its multipoles are kept between evaluations
// (source_tree.hpp).
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <new>
#include <random>

#include "core/error.hpp"
#include "field/field_cpu_tiles.hpp"
#include "field/field_internal.hpp"
#include "field/tree/expansions.hpp"
#include "field/tree/source_tree.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

SIMSCOPE_ISA_BEGIN

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr std::size_t kTile = 1024;
/// Number of target subtrees evaluated as OpenMP tasks. Fixed, so the arithmetic does not
/// depend on the thread count.
constexpr std::size_t kTasks = 64;

/// Adds the sums of sources [b, e) of `s` at target (tx, ty, tz) to acc, direct convention.
void p2p_target(const SourceTree& s, std::uint32_t b, std::uint32_t e, double tx, double ty,
                double tz, double eps2, double acc[4], std::uint64_t& skipped) {
  for (std::uint32_t j = b; j < e; j += std::uint32_t(kTile)) {
    const int n = int(std::min<std::size_t>(kTile, e - j));
    const cpu::Tile tile{s.x.data() + j, s.y.data() + j, s.z.data() + j, s.q.data() + j, n};
    double sums[4];
    cpu::tile_fp64(tile, tx, ty, tz, eps2, sums);
    if (std::isfinite(sums[0] + sums[1] + sums[2] + sums[3])) {
      for (int c = 0; c < 4; ++c) acc[c] += sums[c];
    } else {
      cpu::tile_checked(tile, tx, ty, tz, eps2, acc, skipped);
    }
  }
}

struct Pair {
  std::int32_t a, b;
};
/// An entry of a target cell's M2L or P2P list, linked through `next`, newest first: source
/// cell b and, for M2L only, order q (M2LOrder).
struct ListItem {
  std::int32_t b, q, next;
};

/// The fp32 near field is used where the tolerance allows it; terms are rounded to ~1e-7.
constexpr double kFp32NearTolerance = 1e-6;

/// Ranges [first, second) of the tree's sorted sources, read in place by p2p_ranges() or
/// p2p_target(). A range that continues the last one extends it, so the sibling cells that a
/// traversal lists in order make one range.
struct SourceRanges {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> r;
  void clear() { r.clear(); }
  bool empty() const { return r.empty(); }
  void add(std::uint32_t b, std::uint32_t e) {
    if (!r.empty() && r.back().second == b)
      r.back().second = e;
    else
      r.emplace_back(b, e);
  }
};

/// A target coordinate as the sum of two floats: hi = fl(v), lo = fl(v - hi). The fp32 near
/// field takes (hi - y) + lo for v - y, which errs by ~2^-23 |v - y| + 2^-48 |v| however far
/// from 0 the points are.
struct Split {
  float hi, lo;
  explicit Split(double v) : hi(float(v)), lo(float(v - double(float(v)))) {}
};

/// Where the fp32 near field hands a target to fp64: a source nearer than kNearLimit
/// max(|tx|, |ty|, |tz|), where the second term of Split's error, 2^-48 |v|, would exceed 2^-20
/// (~1e-6) of the distance; a coincidence too, whose term is not finite (eps = 0).
constexpr double kNearLimit = 0x1p-28;
/// Sources per fp32 run of p2p_ranges().
constexpr int kRun = 128;

/// Adds the fp32 sums of the sources in `rg` at target (tx, ty, tz) to acc, direct convention.
/// fp32 terms in 16 lanes (8 at x86-64-v3, one at v2) with 1/sqrt to ~1e-7, summed in fp32 over
/// runs of kRun sources (lanes of a range's tail included), then in fp64 lanes. Returns false, acc untouched,
/// where a source is nearer than kNearLimit (Split) or the sum is not finite: the caller then
/// sums that target in fp64.
// GCC 12 reports a false "maybe-uninitialized" inside _mm512_rsqrt14_ps.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
bool p2p_ranges(const SourceTree& s, const SourceRanges& rg, double tx, double ty, double tz,
                double eps2, double acc[4]) {
  const Split sx(tx), sy(ty), sz(tz);
  const double big = std::max({std::abs(tx), std::abs(ty), std::abs(tz)}) * kNearLimit;
  const float thr = float(big * big);
  const float e2 = float(eps2);
  const float* __restrict x = s.x.data();
  const float* __restrict y = s.y.data();
  const float* __restrict z = s.z.data();
  const float* __restrict q = s.q.data();
  double sum[4] = {0, 0, 0, 0};
  float nearest = INFINITY;  // the least fp32 d^2 seen
#if defined(__AVX512F__)
  const __m512 XH = _mm512_set1_ps(sx.hi), XL = _mm512_set1_ps(sx.lo);
  const __m512 YH = _mm512_set1_ps(sy.hi), YL = _mm512_set1_ps(sy.lo);
  const __m512 ZH = _mm512_set1_ps(sz.hi), ZL = _mm512_set1_ps(sz.lo);
  const __m512 E2 = _mm512_set1_ps(e2), three = _mm512_set1_ps(3.0f);
  const __m512 far = _mm512_set1_ps(1e15f);  // a range's tail lanes: far away, zero charge
  __m512 dmin = _mm512_set1_ps(INFINITY);
  __m512d da[4] = {_mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd(),
                   _mm512_setzero_pd()};
  __m512d db[4] = {da[0], da[0], da[0], da[0]};
  __m512 va = _mm512_setzero_ps(), vb = va, vc = va, vp = va;
  int run = 0;  // sources summed into va .. vp since the last flush
  auto flush = [&] {  // the run's fp32 sums into fp64 lanes
    const __m512 v[4] = {va, vb, vc, vp};
    for (int c = 0; c < 4; ++c) {
      da[c] = _mm512_add_pd(da[c], _mm512_cvtps_pd(_mm512_castps512_ps256(v[c])));
      db[c] = _mm512_add_pd(
          db[c], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v[c]), 1))));
    }
    va = vb = vc = vp = _mm512_setzero_ps();
    run = 0;
  };
  for (const auto& [b, e] : rg.r)
    for (std::uint32_t j = b; j < e; j += 16) {
      const std::uint32_t left = e - j;
      const __mmask16 k = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
      const __m512 dx = _mm512_add_ps(_mm512_sub_ps(XH, _mm512_mask_loadu_ps(far, k, x + j)), XL);
      const __m512 dy = _mm512_add_ps(_mm512_sub_ps(YH, _mm512_mask_loadu_ps(far, k, y + j)), YL);
      const __m512 dz = _mm512_add_ps(_mm512_sub_ps(ZH, _mm512_mask_loadu_ps(far, k, z + j)), ZL);
      const __m512 d2 = _mm512_fmadd_ps(dx, dx, _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dz, dz)));
      dmin = _mm512_min_ps(dmin, d2);
      const __m512 r2 = _mm512_add_ps(d2, E2);
      // 1/sqrt: the 14-bit estimate and one Newton step, without its factor 1/2: u = 2 / r,
      // so qi = 2 q / r and w = 8 q / r^3; the sums are scaled back below (powers of 2).
      const __m512 y0 = _mm512_rsqrt14_ps(r2);
      const __m512 u = _mm512_mul_ps(y0, _mm512_fnmadd_ps(_mm512_mul_ps(r2, y0), y0, three));
      const __m512 qi = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, q + j), u);
      const __m512 w = _mm512_mul_ps(qi, _mm512_mul_ps(u, u));
      va = _mm512_fmadd_ps(w, dx, va), vb = _mm512_fmadd_ps(w, dy, vb);
      vc = _mm512_fmadd_ps(w, dz, vc), vp = _mm512_add_ps(vp, qi);
      if ((run += 16) >= kRun) flush();
    }
  flush();
  for (int c = 0; c < 4; ++c) {
    alignas(64) double lane[8];
    _mm512_store_pd(lane, _mm512_add_pd(da[c], db[c]));
    for (int l = 0; l < 8; ++l) sum[c] += lane[l];
  }
  for (int c = 0; c < 3; ++c) sum[c] *= 0.125;  // w above is 8 q / r^3
  sum[3] *= 0.5;                                // qi is 2 q / r
  nearest = _mm512_reduce_min_ps(dmin);
#elif defined(__AVX2__) && defined(__FMA__)
  // 8 lanes; 1/sqrt from the 12-bit estimate and two Newton steps (AVX2 has no 14-bit one).
  const __m256 XH = _mm256_set1_ps(sx.hi), XL = _mm256_set1_ps(sx.lo);
  const __m256 YH = _mm256_set1_ps(sy.hi), YL = _mm256_set1_ps(sy.lo);
  const __m256 ZH = _mm256_set1_ps(sz.hi), ZL = _mm256_set1_ps(sz.lo);
  const __m256 E2 = _mm256_set1_ps(e2), half = _mm256_set1_ps(0.5f), three = _mm256_set1_ps(3.0f);
  const __m256 far = _mm256_set1_ps(1e15f);
  alignas(32) static constexpr std::int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                          0,  0,  0,  0,  0,  0,  0,  0};
  __m256 dmin = _mm256_set1_ps(INFINITY);
  __m256d da[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(),
                   _mm256_setzero_pd()};
  __m256d db[4] = {da[0], da[0], da[0], da[0]};
  __m256 va = _mm256_setzero_ps(), vb = va, vc = va, vp = va;
  int run = 0;
  auto flush = [&] {
    const __m256 v[4] = {va, vb, vc, vp};
    for (int c = 0; c < 4; ++c) {
      da[c] = _mm256_add_pd(da[c], _mm256_cvtps_pd(_mm256_castps256_ps128(v[c])));
      db[c] = _mm256_add_pd(db[c], _mm256_cvtps_pd(_mm256_extractf128_ps(v[c], 1)));
    }
    va = vb = vc = vp = _mm256_setzero_ps();
    run = 0;
  };
  for (const auto& [b, e] : rg.r)
    for (std::uint32_t j = b; j < e; j += 8) {
      const std::uint32_t left = e - j;
      __m256 px, py, pz, pq;
      if (left >= 8) {
        px = _mm256_loadu_ps(x + j), py = _mm256_loadu_ps(y + j), pz = _mm256_loadu_ps(z + j);
        pq = _mm256_loadu_ps(q + j);
      } else {  // the range's tail: the other lanes far away, zero charge
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - left));
        const __m256 kf = _mm256_castsi256_ps(k);
        px = _mm256_blendv_ps(far, _mm256_maskload_ps(x + j, k), kf);
        py = _mm256_blendv_ps(far, _mm256_maskload_ps(y + j, k), kf);
        pz = _mm256_blendv_ps(far, _mm256_maskload_ps(z + j, k), kf);
        pq = _mm256_maskload_ps(q + j, k);
      }
      const __m256 dx = _mm256_add_ps(_mm256_sub_ps(XH, px), XL);
      const __m256 dy = _mm256_add_ps(_mm256_sub_ps(YH, py), YL);
      const __m256 dz = _mm256_add_ps(_mm256_sub_ps(ZH, pz), ZL);
      const __m256 d2 = _mm256_fmadd_ps(dx, dx, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dz, dz)));
      dmin = _mm256_min_ps(dmin, d2);
      const __m256 r2 = _mm256_add_ps(d2, E2);
      __m256 inv = _mm256_rsqrt_ps(r2);
      for (int it = 0; it < 2; ++it)
        inv = _mm256_mul_ps(_mm256_mul_ps(half, inv),
                            _mm256_fnmadd_ps(_mm256_mul_ps(r2, inv), inv, three));
      const __m256 qi = _mm256_mul_ps(pq, inv);
      const __m256 w = _mm256_mul_ps(qi, _mm256_mul_ps(inv, inv));
      va = _mm256_fmadd_ps(w, dx, va), vb = _mm256_fmadd_ps(w, dy, vb);
      vc = _mm256_fmadd_ps(w, dz, vc), vp = _mm256_add_ps(vp, qi);
      if ((run += 8) >= kRun) flush();
    }
  flush();
  for (int c = 0; c < 4; ++c) {
    alignas(32) double lane[4];
    _mm256_store_pd(lane, _mm256_add_pd(da[c], db[c]));
    for (int l = 0; l < 4; ++l) sum[c] += lane[l];
  }
  alignas(32) float low[8];
  _mm256_store_ps(low, dmin);
  for (int l = 0; l < 8; ++l) nearest = std::min(nearest, low[l]);
#else
  float a = 0, bb = 0, c = 0, p = 0;
  int run = 0;
  for (const auto& [b, e] : rg.r)
    for (std::uint32_t j = b; j < e; ++j) {
      const float dx = (sx.hi - x[j]) + sx.lo, dy = (sy.hi - y[j]) + sy.lo,
                  dz = (sz.hi - z[j]) + sz.lo;
      const float d2 = dx * dx + dy * dy + dz * dz;
      nearest = std::min(nearest, d2);
      const float inv = 1.0f / std::sqrt(d2 + e2);
      const float qi = q[j] * inv, w = qi * inv * inv;
      a += w * dx, bb += w * dy, c += w * dz, p += qi;
      if (++run == kRun) {
        sum[0] += a, sum[1] += bb, sum[2] += c, sum[3] += p;
        a = bb = c = p = 0, run = 0;
      }
    }
  sum[0] += a, sum[1] += bb, sum[2] += c, sum[3] += p;
#endif
  if (!(nearest >= thr) || !std::isfinite(sum[0] + sum[1] + sum[2] + sum[3])) return false;
  for (int c = 0; c < 4; ++c) acc[c] += sum[c];
  return true;
}
#pragma GCC diagnostic pop

// GCC 12 reports false "maybe-uninitialized" warnings inside the AVX-512 intrinsics below.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/// A row of zeros for the fp32 lanes of load_soa() beyond a group's source cells.
alignas(64) constexpr float kZeroRow[terms(kMaxOrder)] = {};

/// Copies values [offset, offset + count) of the rows of `lanes` source cells (fp32 rows r32 or
/// fp64 rows r64, N values each) into m2l8's SoA layout: value offset + k of lane l at
/// out[8 k + l]; lanes >= `lanes` are zero. Of fp32 rows, all 8 are read: those beyond `lanes`
/// must be kZeroRow. `out` may be written up to the next multiple of 8 rows past count.
void load_soa(const SourceTree& s, int lanes, const float* const* r32, const double* const* r64,
              std::size_t offset, std::size_t count, [[maybe_unused]] std::size_t N, double* out) {
  if (!s.single()) {
    if (lanes < 8) std::fill(out, out + count * 8, 0.0);
    for (int l = 0; l < lanes; ++l)
      for (std::size_t k = 0; k < count; ++k) out[k * 8 + std::size_t(l)] = r64[l][offset + k];
    return;
  }
  std::size_t k = 0;
#if defined(__AVX512F__)
  {
    // 8 x 8 blocks: 8 rows of 8 floats to doubles, transposed in registers; the last may read
    // values of the rows beyond count.
    for (; k < count && offset + k + 8 <= N; k += 8) {
      __m512d v[8], t[8];
      for (int l = 0; l < 8; ++l) v[l] = _mm512_cvtps_pd(_mm256_loadu_ps(r32[l] + offset + k));
      for (int l = 0; l < 8; l += 2) {
        t[l] = _mm512_unpacklo_pd(v[l], v[l + 1]);
        t[l + 1] = _mm512_unpackhi_pd(v[l], v[l + 1]);
      }
      for (int l = 0; l < 8; l += 4)
        for (int h = 0; h < 2; ++h) {
          v[l + h] = _mm512_shuffle_f64x2(t[l + h], t[l + 2 + h], 0x88);
          v[l + 2 + h] = _mm512_shuffle_f64x2(t[l + h], t[l + 2 + h], 0xdd);
        }
      for (int h = 0; h < 4; ++h) {
        t[h] = _mm512_shuffle_f64x2(v[h], v[h + 4], 0x88);
        t[h + 4] = _mm512_shuffle_f64x2(v[h], v[h + 4], 0xdd);
      }
      // t[j] now holds term k + j of the 8 lanes.
      for (int j = 0; j < 8; ++j) _mm512_store_pd(out + (k + std::size_t(j)) * 8, t[j]);
    }
  }
#endif
  for (int l = 0; l < 8; ++l)
    for (std::size_t kk = k; kk < count; ++kk) out[kk * 8 + std::size_t(l)] = r32[l][offset + kk];
}

/// The multipoles of order mq for m2l8_harmonic (`harmonic`) or m2l8 into M (N 8-lane rows)
/// from the rows (harmonic row form of order p, N values) of `lanes` source cells, taken as
/// load_soa() takes them: for eps = 0 their first (q+1)^2 values; else the layout of mq
/// (layout_rows8) through `rows`, N + 16 8-lane rows of scratch.
void load_multipoles(const SourceTree& s, int lanes, const float* const* r32,
                     const double* const* r64, const MultiIndex& mq, std::size_t N, bool harmonic,
                     double* rows, double* M) {
  const std::size_t h = mq.harm.size();
  if (harmonic) {
    load_soa(s, lanes, r32, r64, 0, h, N, M);
    return;
  }
  // A row's rest starts at (p+1)^2; its part of order q is the first rest.size() values.
  const std::size_t p1 = std::size_t(s.order + 1);
  double* R = rows + 8 * ((h + 7) / 8 * 8);  // past what the first load may write
  load_soa(s, lanes, r32, r64, 0, h, N, rows);
  load_soa(s, lanes, r32, r64, p1 * p1, mq.rest.size(), N, R);
  layout_rows8(mq, rows, R, M);
}
#pragma GCC diagnostic pop

/// Reusable buffers of one evaluation thread.
struct Scratch {
  std::vector<ListItem> m2l, p2p;
  std::vector<std::int32_t> m2l_head, p2p_head;  // per target cell, -1: empty
  std::vector<std::int32_t> byq[kMaxOrder + 1];
  BigVector<double> Msoa, Lsoa, D, rows;  // 64-byte aligned (m2l8)
  std::vector<double> H;            // one cell's M2L sums
  SourceRanges fast, exact;  // one target leaf's near field: fp32 (p2p_ranges), fp64
  std::vector<Pair> stack;
  std::vector<std::int32_t> touched;  // cells whose heads to reset after the task
};

}  // namespace

void direct_fp64(const SourceTree& s, const double* tx, const double* ty, const double* tz,
                 std::size_t n, double eps2, double* acc) {
  const std::size_t P = s.size;
  const std::size_t chunk = 1 << 18;
  const std::size_t chunks = std::max<std::size_t>(1, (P + chunk - 1) / chunk);
  std::vector<double> part(n * chunks * 4, 0.0);
  std::uint64_t skipped = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : skipped)
  for (std::size_t item = 0; item < n * chunks; ++item) {
    const std::size_t i = item / chunks, c = item % chunks;
    const std::uint32_t b = std::uint32_t(std::min(P, c * chunk));
    const std::uint32_t e = std::uint32_t(std::min(P, (c + 1) * chunk));
    p2p_target(s, b, e, tx[i], ty[i], tz[i], eps2, &part[item * 4], skipped);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < 4; ++k) {
      double a = 0;
      for (std::size_t c = 0; c < chunks; ++c) a += part[(i * chunks + c) * 4 + k];
      acc[i * 4 + k] = a;
    }
}

void tree_evaluate(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                   const TreeRule& rule, std::vector<double>& acc, TreeStats& stats,
                   std::uint64_t& skipped, Progress* progress, TreeWorkspace* workspace) {
  const auto t0 = Clock::now();
  TreeWorkspace own;
  TreeWorkspace& ws = workspace ? *workspace : own;
  const std::size_t T = r.end - r.begin;
  acc.assign(T * 4, 0.0);
  skipped = 0;
  if (T == 0 || s.size == 0) {
    stats.eval_seconds = since(t0);
    return;
  }
  const MultiIndex& m = multi_index(rule.order);
  const std::size_t N = std::size_t(m.count);
  const double eps2 = o.eps * o.eps, theta = rule.theta;
  const double m2l_cost = m2l_pair_cost(m, eps2);
  // eps = 0: the kernel is harmonic and the M2L takes its cheaper form (m2l8_harmonic).
  const bool harmonic = eps2 == 0;
  // precision=fp64: the near field is fp64 at every tolerance, because cancelling charges lose
  // the fp32 sums' relative accuracy (tests/bench/NOTES.md "field tree").
  const bool near_fp32 = o.tolerance >= kFp32NearTolerance && o.precision == Precision::Fp32;
  const TargetTree target_tree = build_target_tree(t, r);
  const Octree& tt = target_tree.tree;
  const auto& tc = tt.cells;
  const auto& sc = s.oct.cells;
  auto in_range = [&](std::int32_t a) { return target_tree.in_range(a); };

  // Tasks: target cells, expanded breadth-first from the root until there are kTasks of them,
  // independent of the range and the thread count. The cells above them are the top.
  std::vector<std::int32_t> tasks = {0}, top;
  for (bool grew = true; grew && tasks.size() < kTasks;) {
    grew = false;
    std::vector<std::int32_t> next;
    for (std::int32_t a : tasks) {
      if (tc[a].leaf()) {
        next.push_back(a);
      } else {
        for (int k = 0; k < tc[a].nchild; ++k) next.push_back(tc[a].child + k);
        top.push_back(a);
        grew = true;
      }
    }
    tasks.swap(next);
  }
  std::vector<std::int32_t> live;
  for (std::int32_t a : tasks)
    if (in_range(a)) live.push_back(a);

  std::uint64_t m2l_count = 0, skip = 0;
  double p2p = 0;
  BigVector<double>& local = ws.local;
  std::vector<std::uint8_t>& has_local = ws.has_local;
  try {
    local.resize(tc.size() * N);
    has_local.assign(tc.size(), 0);
    ws.sorted_acc.assign(t.size() * 4, 0.0);  // per sorted target
  } catch (const std::bad_alloc&) {
    throw Error("field tree: out of memory for the local expansions (" + std::to_string(tc.size()) +
                " target cells)");
  }
  BigVector<double>& sorted_acc = ws.sorted_acc;
  for (int q = 0; q <= rule.order; ++q) multi_index(q);  // built before the threads use them
  const M2LOrder m2l_order(theta, rule.order);

  // The top of the traversal, serial over few cells: pairs whose target cell is above the
  // tasks. So decisions match one traversal from the roots whatever the tasks. M2Ls into top
  // cells are done here, then shifted down to the task roots (L2L). P2P pairs of top cells go
  // to the lists of the task roots below them. Pairs that reach a task root start that task's
  // traversal.
  std::vector<std::int32_t> task_of(tc.size(), -1);
  for (std::size_t k = 0; k < live.size(); ++k) task_of[live[k]] = std::int32_t(k);
  std::vector<std::vector<std::int32_t>> task_start(live.size()), task_near(live.size());
  {
    BigVector<double> Ms(N * 8), Ls(N * 8), Ds(N * 8), Hs(N), rows((N + 16) * 8);
    const float* rows32[8];
    const double* rows64[8];
    for (int l = 1; l < 8; ++l) rows32[l] = kZeroRow;
    std::vector<std::vector<std::int32_t>> top_near(tc.size());
    std::vector<Pair> stack = {{0, 0}};
    while (!stack.empty() && !live.empty()) {
      const Pair pr = stack.back();
      stack.pop_back();
      if (!in_range(pr.a)) continue;
      if (task_of[pr.a] >= 0) {
        task_start[std::size_t(task_of[pr.a])].push_back(pr.b);
        continue;
      }
      const Cell& A = tc[pr.a];
      const Cell& B = sc[pr.b];
      const Action act = classify(A, B, theta, m2l_cost, s.few);
      if (act == Action::M2L) {
        const MultiIndex& mq = multi_index(m2l_order(A, B));
        std::fill(Ls.begin(), Ls.end(), 0.0);
        s.ensure_row(std::size_t(pr.b));
        const std::size_t row = s.slot[std::size_t(pr.b)];
        if (s.single())
          rows32[0] = s.moments32.data() + row * N;
        else
          rows64[0] = s.moments.data() + row * N;
        load_multipoles(s, 1, rows32, rows64, mq, N, harmonic, rows.data(), Ms.data());
        const double c[1][3] = {{B.centre[0], B.centre[1], B.centre[2]}};
        if (harmonic)
          m2l8_harmonic(mq, A.centre, c, 1, Ms.data(), Ls.data(), Ds.data());
        else
          m2l8(mq, A.centre, c, 1, eps2, Ms.data(), Ls.data(), Ds.data());
        for (int k = 0; k < mq.count; ++k) Hs[std::size_t(k)] = Ls[std::size_t(k) * 8];
        if (harmonic) unfold_local(mq, Hs.data());
        double* L = &local[std::size_t(pr.a) * N];
        if (!has_local[pr.a]) std::fill(L, L + N, 0.0);
        for (int k = 0; k < mq.count; ++k) L[k] += Hs[std::size_t(k)];
        has_local[pr.a] = 1;
        ++m2l_count;
      } else if (act == Action::P2P) {
        top_near[std::size_t(pr.a)].push_back(pr.b);
      } else if (act == Action::SplitTarget) {
        for (int k = 0; k < A.nchild; ++k) stack.push_back({A.child + k, pr.b});
      } else {
        for (int k = 0; k < B.nchild; ++k) stack.push_back({pr.a, B.child + k});
      }
    }
  // Down the top, parents before children: `top` is breadth-first.
    for (std::int32_t a : top) {
      const Cell& A = tc[a];
      for (int k = 0; k < A.nchild; ++k) {
        const std::int32_t c = A.child + k;
        if (!in_range(c)) continue;
        if (has_local[a]) {
          double* Lc = &local[std::size_t(c) * N];
          if (!has_local[c]) std::fill(Lc, Lc + N, 0.0);
          l2l(m, A.centre, tc[c].centre, &local[std::size_t(a) * N], Lc);
          has_local[c] = 1;
        }
        auto& to = task_of[c] >= 0 ? task_near[std::size_t(task_of[c])] : top_near[std::size_t(c)];
        to.insert(to.end(), top_near[std::size_t(a)].begin(), top_near[std::size_t(a)].end());
      }
    }
  }
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> done{0};

#pragma omp parallel reduction(+ : m2l_count, skip, p2p)
  {
    Scratch w;
    w.Msoa.resize(N * 8), w.Lsoa.resize(N * 8), w.D.resize(N * 8), w.H.resize(N);
    w.rows.resize((N + 16) * 8);
    w.m2l_head.assign(tc.size(), -1), w.p2p_head.assign(tc.size(), -1);
#pragma omp for schedule(dynamic, 1)
    for (std::size_t task = 0; task < live.size(); ++task) {
      if (stop.load(std::memory_order_relaxed)) continue;
      // The dual traversal: lists of M2L and P2P pairs.
      w.m2l.clear(), w.p2p.clear(), w.touched.clear();
      std::vector<Pair>& stack = w.stack;
      stack.clear();
      for (auto it = task_start[task].rbegin(); it != task_start[task].rend(); ++it)
        stack.push_back({live[task], *it});
      while (!stack.empty()) {
        const Pair pr = stack.back();
        stack.pop_back();
        if (!in_range(pr.a)) continue;
        const Cell& A = tc[pr.a];
        const Cell& B = sc[pr.b];
        const Action act = classify(A, B, theta, m2l_cost, s.few);
        if (act == Action::M2L) {
          w.m2l.push_back({pr.b, m2l_order(A, B), w.m2l_head[pr.a]});
          w.m2l_head[pr.a] = std::int32_t(w.m2l.size() - 1);
          w.touched.push_back(pr.a);
        } else if (act == Action::P2P) {
          w.p2p.push_back({pr.b, 0, w.p2p_head[pr.a]});
          w.p2p_head[pr.a] = std::int32_t(w.p2p.size() - 1);
          w.touched.push_back(pr.a);
        } else if (act == Action::SplitTarget) {
          for (int k = 0; k < A.nchild; ++k) stack.push_back({A.child + k, pr.b});
        } else {
          for (int k = 0; k < B.nchild; ++k) stack.push_back({pr.a, B.child + k});
        }
      }
      // M2L: each target cell's source cells 8 at a time, grouped by order.
      for (std::int32_t a : w.touched) {
        if (w.m2l_head[a] < 0) continue;
        for (auto& v : w.byq) v.clear();
        for (std::int32_t k = w.m2l_head[a]; k >= 0; k = w.m2l[std::size_t(k)].next)
          w.byq[w.m2l[std::size_t(k)].q].push_back(w.m2l[std::size_t(k)].b);
        w.m2l_head[a] = -1;  // done (a cell may be listed in `touched` more than once)
        std::fill(w.Lsoa.begin(), w.Lsoa.end(), 0.0);
        std::size_t listed = 0;
        for (int q = 0; q <= rule.order; ++q)
         for (std::size_t g = 0; g < w.byq[q].size();) {
          const int lanes = int(std::min<std::size_t>(8, w.byq[q].size() - g));
          const MultiIndex& mq = multi_index(q);
          double centres[8][3];
          const float* rows32[8];
          const double* rows64[8];
          for (int l = 0; l < lanes; ++l) {
            const std::int32_t b = w.byq[q][g + std::size_t(l)];
            for (int k = 0; k < 3; ++k) centres[l][k] = sc[b].centre[k];
            s.ensure_row(std::size_t(b));  // a leaf's row, made on first use
            const std::size_t row = s.slot[std::size_t(b)];
            if (s.single())
              rows32[l] = s.moments32.data() + row * N;
            else
              rows64[l] = s.moments.data() + row * N;
          }
          for (int l = lanes; l < 8; ++l) rows32[l] = kZeroRow;
          // The next group's rows on their way to the cache while this one's M2L runs.
          if (harmonic) {
            const std::size_t next = std::min(w.byq[q].size(), g + 16);
            const std::size_t bytes = mq.harm.size() * (s.single() ? 4 : 8);
            for (std::size_t j = g + 8; j < next; ++j) {
              const std::int32_t b = w.byq[q][j];
              s.ensure_row(std::size_t(b));
              const std::size_t row = s.slot[std::size_t(b)];
              const char* r =
                  s.single() ? reinterpret_cast<const char*>(s.moments32.data() + row * N)
                             : reinterpret_cast<const char*>(s.moments.data() + row * N);
              for (std::size_t o = 0; o < bytes; o += 64) _mm_prefetch(r + o, _MM_HINT_T0);
            }
          }
          load_multipoles(s, lanes, rows32, rows64, mq, N, harmonic, w.rows.data(),
                          w.Msoa.data());
          if (harmonic)
            m2l8_harmonic(mq, tc[a].centre, centres, lanes, w.Msoa.data(), w.Lsoa.data(),
                          w.D.data());
          else
            m2l8(mq, tc[a].centre, centres, lanes, eps2, w.Msoa.data(), w.Lsoa.data(),
                 w.D.data());
          g += std::size_t(lanes);
          listed += std::size_t(lanes);
         }
        double* L = &local[std::size_t(a) * N];
        if (!has_local[a]) std::fill(L, L + N, 0.0);
        for (std::size_t k = 0; k < N; ++k) {
          double v = 0;
          for (int l = 0; l < 8; ++l) v += w.Lsoa[k * 8 + std::size_t(l)];
          w.H[k] = v;
        }
        if (harmonic) unfold_local(m, w.H.data());
        for (std::size_t k = 0; k < N; ++k) L[k] += w.H[k];
        has_local[a] = 1;
        m2l_count += listed;
      }
      // P2P: each target leaf against the source cells listed for it and for its ancestors.
      // Depth-first over the task's subtree. `chain` holds the source cells listed for the path
      // from the task's root to the cell; a frame's chain_size is its parent's part.
      std::vector<std::int32_t> chain = task_near[task];
      struct Frame {
        std::int32_t a;
        std::size_t chain_size;
      };
      std::vector<Frame> dfs = {{live[task], chain.size()}};
      while (!dfs.empty() && !(w.p2p.empty() && task_near[task].empty())) {
        const Frame f = dfs.back();
        dfs.pop_back();
        if (!in_range(f.a)) continue;
        chain.resize(f.chain_size);
        for (std::int32_t k = w.p2p_head[f.a]; k >= 0; k = w.p2p[std::size_t(k)].next)
          chain.push_back(w.p2p[std::size_t(k)].b);
        const Cell& A = tc[f.a];
        if (!A.leaf()) {
          for (int k = A.nchild; k-- > 0;) dfs.push_back({A.child + k, chain.size()});
          continue;
        }
        if (chain.empty()) continue;
        // fp32 where the tolerance allows and the cell has more than a few sources; fp64
        // otherwise, so a single source stays exact to rounding.
        w.fast.clear(), w.exact.clear();
        double count = 0;
        for (std::int32_t b : chain) {
          const Cell& B = sc[b];
          count += double(B.count());
          (near_fp32 && B.count() > kFewSources ? w.fast : w.exact).add(B.begin, B.end);
        }
        for (std::uint32_t i = A.begin; i < A.end; ++i) {
          const std::uint32_t ti = tt.order[i];
          if (ti < r.begin || ti >= r.end) continue;
          double* acc_i = &sorted_acc[std::size_t(i) * 4];
          const double x = t.x[ti], y = t.y[ti], z = t.z[ti];
          if (!w.fast.empty() && !p2p_ranges(s, w.fast, x, y, z, eps2, acc_i))
            for (const auto& [b, e] : w.fast.r) p2p_target(s, b, e, x, y, z, eps2, acc_i, skip);
          for (const auto& [b, e] : w.exact.r) p2p_target(s, b, e, x, y, z, eps2, acc_i, skip);
          p2p += count;
        }
      }
      for (std::int32_t a : w.touched) w.p2p_head[a] = -1;
      // Down the task's subtree: L2L to the children, L2P at the leaves.
      std::vector<std::int32_t> down = {live[task]};
      while (!down.empty()) {
        const std::int32_t a = down.back();
        down.pop_back();
        if (!in_range(a)) continue;
        const Cell& A = tc[a];
        if (A.leaf()) {
          if (!has_local[a]) continue;
          // 8 targets of the range at a time, their sums gathered and scattered.
          double px[8], py[8], pz[8], pa[32];
          std::uint32_t at[8];
          int k = 0;
          auto flush = [&] {
            for (int l = 0; l < k; ++l)
              for (int c = 0; c < 4; ++c) pa[4 * l + c] = sorted_acc[std::size_t(at[l]) * 4 + c];
            l2p8(m, A.centre, &local[std::size_t(a) * N], k, px, py, pz, pa, w.D.data());
            for (int l = 0; l < k; ++l)
              for (int c = 0; c < 4; ++c) sorted_acc[std::size_t(at[l]) * 4 + c] = pa[4 * l + c];
            k = 0;
          };
          for (std::uint32_t i = A.begin; i < A.end; ++i) {
            const std::uint32_t ti = tt.order[i];
            if (ti < r.begin || ti >= r.end) continue;
            px[k] = t.x[ti], py[k] = t.y[ti], pz[k] = t.z[ti], at[k] = i;
            if (++k == 8) flush();
          }
          if (k > 0) flush();
          continue;
        }
        for (int k = 0; k < A.nchild; ++k) {
          const std::int32_t c = A.child + k;
          if (has_local[a]) {
            double* Lc = &local[std::size_t(c) * N];
            if (!has_local[c]) std::fill(Lc, Lc + N, 0.0);
            l2l(m, A.centre, tc[c].centre, &local[std::size_t(a) * N], Lc);
            has_local[c] = 1;
          }
          down.push_back(c);
        }
      }
      const std::size_t dn = done.fetch_add(1) + 1;
      if (progress) {
        progress->set(0.95 * double(dn) / double(live.size()));
        if (progress->cancel.load(std::memory_order_relaxed)) stop.store(true);
      }
    }
  }
  if (stop.load()) throw Cancelled();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::uint32_t ti = tt.order[i];
    if (ti < r.begin || ti >= r.end) continue;
    for (int c = 0; c < 4; ++c) acc[(ti - r.begin) * 4 + c] = sorted_acc[i * 4 + c];
  }
  skipped = skip;
  stats.m2l = m2l_count;
  stats.p2p_pairs = p2p;
  stats.eval_seconds = since(t0);
}

SIMSCOPE_ISA_END
}  // namespace simscope::field::tree
