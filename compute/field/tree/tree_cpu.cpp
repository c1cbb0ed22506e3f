// The tree method on the CPU (OpenMP): a fast multipole method with a dual traversal of the
// source tree against a tree of the targets (field.hpp, Method::Tree; tests/bench/NOTES.md
// "field tree" for the choice and its measurements).
//
// Evaluation: the targets (the whole set, so that a target's value does not depend on the work
// range it is evaluated in) get their own octree. Its cells are cut into tasks (subtrees); each
// task walks (its root, the source root) down: a pair of cells (A targets, B sources) with
// r_A + r_B < theta |z_A - c_B| adds B's multipole to A's local expansion (M2L); two leaves that
// fail it are summed directly (P2P: fp32 AVX-512 relative to B's centre for tolerances >= 1e-6,
// else and near a source the direct evaluator's fp64 SIMD loops, coincidences skipped and
// counted); otherwise the larger cell is split. Then the local expansions go down
// the task's subtree (L2L) to the targets (L2P). The source tree and its multipoles are kept
// between evaluations (source_tree.hpp).
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

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr std::size_t kTile = 1024;

/// Adds the sums of sources [b, e) of `s` at target (tx, ty, tz) to acc (direct convention).
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

/// The near field in fp32 is used where the tolerance allows it (terms rounded to ~1e-7) ...
constexpr double kFp32NearTolerance = 1e-6;
/// ... except at a target closer than kNearFraction x (its distance to the source cell's
/// centre + the cell's radius) to a source of the cell (coincidences included): there the fp32
/// rounding of the coordinates relative to that centre (6e-8 of that distance) would be more
/// than 6e-8 / kNearFraction ~ 1e-6 of the nearest term, and the target is summed in fp64.
constexpr double kNearFraction = 1.0 / 16;

/// Sources [b, e) of `s` relative to the centre c, in fp32 (scratch of the fp32 near field).
struct NearSources {
  std::vector<float> x, y, z, q;
  void load(const SourceTree& s, std::uint32_t b, std::uint32_t e, const double c[3]) {
    const std::size_t n = e - b;
    x.resize(n), y.resize(n), z.resize(n), q.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      x[j] = float(double(s.x[b + j]) - c[0]), y[j] = float(double(s.y[b + j]) - c[1]);
      z[j] = float(double(s.z[b + j]) - c[2]), q[j] = s.q[b + j];
    }
  }
};

/// Adds the fp32 sums of `ns` (relative to c, radius rb) at target (tx, ty, tz) to acc; false
/// (acc untouched) where a source is too near for fp32 (kNearFraction) or a value is not finite.
bool p2p_fp32(const NearSources& ns, const double c[3], double rb, double tx, double ty, double tz,
              double eps2, double acc[4]) {
  const double rx = tx - c[0], ry = ty - c[1], rz = tz - c[2];
  const double rho = std::sqrt(rx * rx + ry * ry + rz * rz) + rb;
  const float thr = float(kNearFraction * kNearFraction * rho * rho);
  const float fx = float(rx), fy = float(ry), fz = float(rz), e2 = float(eps2);
  const float* __restrict x = ns.x.data(), * __restrict y = ns.y.data(), * __restrict z = ns.z.data(), * __restrict q = ns.q.data();
  const int n = int(ns.x.size());
  float ax = 0, ay = 0, az = 0, ap = 0, mn = INFINITY;
  int j = 0;
#if defined(__AVX512F__)
  {
    // 16 lanes, the tail masked (std::sqrt does not vectorise without -fno-math-errno).
    __m512 va = _mm512_setzero_ps(), vb = va, vc = va, vp = va, vm = _mm512_set1_ps(INFINITY);
    const __m512 X = _mm512_set1_ps(fx), Y = _mm512_set1_ps(fy), Z = _mm512_set1_ps(fz),
                 E2 = _mm512_set1_ps(e2), one = _mm512_set1_ps(1.0f);
    for (; j < n; j += 16) {
      const __mmask16 k = n - j >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - j)) - 1);
      const __m512 dx = _mm512_sub_ps(X, _mm512_maskz_loadu_ps(k, x + j));
      const __m512 dy = _mm512_sub_ps(Y, _mm512_maskz_loadu_ps(k, y + j));
      const __m512 dz = _mm512_sub_ps(Z, _mm512_maskz_loadu_ps(k, z + j));
      const __m512 r2 =
          _mm512_fmadd_ps(dx, dx, _mm512_fmadd_ps(dy, dy, _mm512_fmadd_ps(dz, dz, E2)));
      const __m512 inv = _mm512_div_ps(one, _mm512_maskz_sqrt_ps(__mmask16(0xffff), r2));
      const __m512 qi = _mm512_maskz_mul_ps(k, _mm512_maskz_loadu_ps(k, q + j), inv);
      const __m512 w = _mm512_mul_ps(qi, _mm512_mul_ps(inv, inv));
      va = _mm512_fmadd_ps(w, dx, va), vb = _mm512_fmadd_ps(w, dy, vb);
      vc = _mm512_fmadd_ps(w, dz, vc), vp = _mm512_add_ps(vp, qi);
      vm = _mm512_mask_min_ps(vm, k, vm, r2);
    }
    // (Stored and summed: GCC 12's _mm512_reduce_* warn of uninitialised values under LTO.)
    alignas(64) float l[5][16];
    _mm512_store_ps(l[0], va), _mm512_store_ps(l[1], vb), _mm512_store_ps(l[2], vc);
    _mm512_store_ps(l[3], vp), _mm512_store_ps(l[4], vm);
    for (int u = 0; u < 16; ++u)
      ax += l[0][u], ay += l[1][u], az += l[2][u], ap += l[3][u], mn = std::min(mn, l[4][u]);
  }
#endif
  for (; j < n; ++j) {
    const float dx = fx - x[j], dy = fy - y[j], dz = fz - z[j];
    const float r2 = dx * dx + dy * dy + dz * dz + e2;
    const float inv = 1.0f / std::sqrt(r2);
    const float qi = q[j] * inv, w = qi * inv * inv;
    ax += w * dx, ay += w * dy, az += w * dz, ap += qi;
    mn = std::min(mn, r2);
  }
  if (!(mn >= thr) || !std::isfinite(ax + ay + az + ap)) return false;
  acc[0] += ax, acc[1] += ay, acc[2] += az, acc[3] += ap;
  return true;
}

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
                   std::uint64_t& skipped, Progress* progress) {
  const auto t0 = Clock::now();
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
  const double m2l_cost = m2l_pair_cost(m);
  // precision=fp64: the near field in fp64 at every tolerance (cancelling charges lose the fp32
  // sums' relative accuracy: dipoles at tolerance 1e-6 measured 2.4e-5 with it).
  const bool near_fp32 = o.tolerance >= kFp32NearTolerance && o.precision == Precision::Fp32;
  const TargetTree target_tree = build_target_tree(t, r);
  const Octree& tt = target_tree.tree;
  const auto& tc = tt.cells;
  const auto& sc = s.oct.cells;
  auto in_range = [&](std::int32_t a) { return target_tree.in_range(a); };

  // Tasks: target cells, expanded breadth-first from the root until there are enough of them
  // (independent of the range, so a target's arithmetic is the same in every range).
  const int threads = omp_get_max_threads();
  std::vector<std::int32_t> tasks = {0};
  for (bool grew = true; grew && tasks.size() < std::size_t(32 * threads);) {
    grew = false;
    std::vector<std::int32_t> next;
    for (std::int32_t a : tasks) {
      if (tc[a].leaf()) {
        next.push_back(a);
      } else {
        for (int k = 0; k < tc[a].nchild; ++k) next.push_back(tc[a].child + k);
        grew = true;
      }
    }
    tasks.swap(next);
  }
  std::vector<std::int32_t> live;
  for (std::int32_t a : tasks)
    if (in_range(a)) live.push_back(a);

  std::vector<double> local;
  std::vector<std::uint8_t> has_local(tc.size(), 0);
  try {
    local.assign(tc.size() * N, 0.0);
  } catch (const std::bad_alloc&) {
    throw Error("field tree: out of memory for the local expansions (" + std::to_string(tc.size()) +
                " target cells)");
  }
  std::vector<double> sorted_acc(t.size() * 4, 0.0);  // per sorted target
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> done{0};
  std::uint64_t m2l_count = 0, skip = 0;
  double p2p = 0;

#pragma omp parallel for schedule(dynamic, 1) reduction(+ : m2l_count, skip, p2p)
  for (std::size_t task = 0; task < live.size(); ++task) {
    if (stop.load(std::memory_order_relaxed)) continue;
    std::vector<double> D(std::size_t(terms(kMaxOrder))), Ms(N);
    NearSources near;
    std::vector<Pair> stack = {{live[task], 0}};
    while (!stack.empty()) {
      const Pair pr = stack.back();
      stack.pop_back();
      if (!in_range(pr.a)) continue;
      const Cell& A = tc[pr.a];
      const Cell& B = sc[pr.b];
      const Action act = classify(A, B, theta, m2l_cost);
      if (act == Action::M2L) {
        m2l(m, A.centre, B.centre, eps2, s.moment(std::size_t(pr.b), Ms.data()), &local[pr.a * N],
            D.data());
        has_local[pr.a] = 1;
        ++m2l_count;
      } else if (act == Action::P2P) {
        // fp32 where the tolerance allows and the cell is not a few sources (a single source
        // stays exact to rounding), fp64 otherwise and for targets too near a source.
        const bool fp32 = near_fp32 && B.count() > kFewSources;
        if (fp32) near.load(s, B.begin, B.end, B.centre);
        for (std::uint32_t i = A.begin; i < A.end; ++i) {
          const std::uint32_t ti = tt.order[i];
          if (ti < r.begin || ti >= r.end) continue;
          double* a = &sorted_acc[i * 4];
          if (!fp32 || !p2p_fp32(near, B.centre, B.radius, t.x[ti], t.y[ti], t.z[ti], eps2, a))
            p2p_target(s, B.begin, B.end, t.x[ti], t.y[ti], t.z[ti], eps2, a, skip);
          p2p += double(B.count());
        }
      } else if (act == Action::SplitTarget) {
        for (int k = 0; k < A.nchild; ++k) stack.push_back({A.child + k, pr.b});
      } else {
        for (int k = 0; k < B.nchild; ++k) stack.push_back({pr.a, B.child + k});
      }
    }
    // Down the task's subtree: L2L to the children, L2P at the leaves.
    std::vector<std::int32_t> down = {live[task]};
    while (!down.empty()) {
      const std::int32_t a = down.back();
      down.pop_back();
      if (!in_range(a)) continue;
      const Cell& A = tc[a];
      if (A.leaf()) {
        if (!has_local[a]) continue;
        for (std::uint32_t i = A.begin; i < A.end; ++i) {
          const std::uint32_t ti = tt.order[i];
          if (ti < r.begin || ti >= r.end) continue;
          l2p(m, A.centre, &local[a * N], t.x[ti], t.y[ti], t.z[ti], &sorted_acc[i * 4], D.data());
        }
        continue;
      }
      for (int k = 0; k < A.nchild; ++k) {
        const std::int32_t c = A.child + k;
        if (has_local[a]) {
          l2l(m, A.centre, tc[c].centre, &local[a * N], &local[c * N]);
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
  if (stop.load()) throw Cancelled();
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

}  // namespace simscope::field::tree
