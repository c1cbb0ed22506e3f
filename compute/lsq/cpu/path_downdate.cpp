// The downdate path (lsq_downdate.hpp): y = B (w o b) for the group, then per lane K u = z
// with K = I - C_SS and x = y + B_:S u.
// Float64 lanes with at most N missing rows use the group's SoA Cholesky and condition estimate.
// Each K is padded with I to the group's largest s; K's eigenvalues lie in (0, 1], so neither
// ||K||_1 nor ||K^-1||_1 changes. One refinement step is taken where the estimated cond2(G_p)
// exceeds kRefineCondition. Other lanes are solved one by one (downdate_pixel).
#include "core/isa.hpp"
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "lsq/cpu/lane_group.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

template <class T, int V>
class DowndatePath final : public Path<T, V> {
 public:
  using VD = typename LaneGroup<T, V>::VD;

  explicit DowndatePath(const Problem<T>& pb)
      : y_(std::size_t(pb.N) * V),
        ys_(std::size_t(pb.N)),
        xs_(std::size_t(pb.ld8), 0.0),
        yl_(std::size_t(pb.ld8), 0.0),
        rho_(std::size_t(pb.N) * V),
        y2_(std::size_t(pb.N) * V),
        gs_(std::size_t(pb.N)) {}

  Kind kind() const override { return kDowndate; }

  void solve(LaneGroup<T, V>& g) override {
    const Problem<T>& pb = g.pb;
    const int M = pb.M, N = pb.N;
    g.op_times_b(pb.bop8.data(), [&](int k, const VD& c) { vstore(&y_[std::size_t(k) * V], c); });
    const double lambda = pb.options.lambda;
    const double limit = fallback_condition(Precision::Fp64);
    // float64 groups: lanes with at most N missing rows go to the SoA code, the others one by one.
    int smax = 0;
    bool any_soa = false;
    for (int v = 0; v < V; ++v) {
      soa_[v] = std::is_same_v<T, double> && g.kind[v] == kDowndate && M - g.cnt[v] <= N;
      if (soa_[v]) smax = std::max(smax, M - g.cnt[v]), any_soa = true;
    }
    if (any_soa) solve_soa(g, smax);
    for (int v = 0; v < V; ++v) {
      if (g.kind[v] != kDowndate || soa_[v]) continue;
      miss_.clear();
      for (int i = 0; i < M; ++i)
        if (g.w[std::size_t(i) * V + v] == 0) miss_.push_back(i);
      for (int k = 0; k < N; ++k) ys_[std::size_t(k)] = y_[std::size_t(k) * V + v];
      const SmallOutcome so =
          downdate_pixel(pb.ops, pb.design, lambda, ys_.data(), miss_, &g.b[std::size_t(v)],
                         &g.w[std::size_t(v)], std::size_t(V), limit, xs_.data(), scratch_);
      g.set_outcome(v, so, xs_.data());
    }
  }

 private:
  /// Solves the SoA lanes (soa_) given y_. `smax` is their largest count of missing rows.
  void solve_soa(LaneGroup<T, V>& g, int smax) {
    const Problem<T>& pb = g.pb;
    SoaCholesky<T, V>& f = g.chol;
    const int M = pb.M, N = pb.N;
    const double lambda = pb.options.lambda;
    const double* C = pb.ops.c.data();
    const double* A = pb.design.a.data();
    const int n = std::max(smax, 1);
    f.n = n;
    // Each lane's padded K starts as I, in one contiguous fill. z = A_S y per lane from s dot
    // products of length N (rows_dot_lane), cheaper than the group's SoA product A y.
    std::fill(rho_.begin(), rho_.begin() + std::ptrdiff_t(std::size_t(n) * V), 0.0);
    int sz[V];
    const int* rp[V];
    double pad[V];
    for (int v = 0; v < V; ++v) {
      f.lane_n[v] = n;
      sz[v] = 0, pad[v] = 1, rp[v] = nullptr;
      if (!soa_[v]) continue;
      const int* mr = g.rows_of(v, false);
      rows_[v].assign(mr, mr + (M - g.cnt[v]));
      const int sv = int(rows_[v].size());
      rp[v] = rows_[v].data(), sz[v] = sv;
      f.lane_n[v] = std::max(sv, 1);
      for (int k = 0; k < N; ++k) yl_[std::size_t(k)] = y_[std::size_t(k) * V + v];
      g.rows_dot_lane(rp[v], sv, yl_.data(), &rho_[std::size_t(v)]);
    }
    g.factor_small(n, sz, rp, C, -1.0, 1.0, pad, rho_.data());  // and rho_ <- K^-1 z
    const double limit = fallback_condition(Precision::Fp64);
    bool refine = false;
    for (int v = 0; v < V; ++v) {
      if (g.kind[v] != kDowndate) continue;
      const double cond_gp = pb.ops.cond_g * g.estimator.est[v];  // lsq_downdate.hpp's bound
      SmallOutcome so;
      so.ok = !f.fail[v] && cond_gp <= limit;
      so.cond = std::sqrt(cond_gp);
      refine_[v] = so.ok && cond_gp > kRefineCondition;
      refine |= refine_[v];
      for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = y_[std::size_t(k) * V + v];
      if (so.ok) add_bs(g, v, rho_.data(), xs_.data());
      g.set_outcome(v, so, xs_.data());
    }
    if (refine) {
      // g = A_p^T (b - A_p x) - lambda x, y2 = G^-1 g, z2 = A_S y2, x += y2 + B_:S K^-1 z2.
      for (int v = 0; v < V; ++v) {
        const bool on = soa_[v] && refine_[v];
        for (int q = 0; q < n; ++q) rho_[std::size_t(q) * V + v] = 0;
        if (!on) continue;
        for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = g.x[std::size_t(k) * V + v];
        std::fill(gs_.begin(), gs_.end(), 0.0);
        for (int i = 0; i < M; ++i) {
          if (g.w[std::size_t(i) * V + v] == 0) continue;
          const double* ai = A + std::size_t(i) * N;
          const double ri = g.b[std::size_t(i) * V + v] - detail::dot(ai, xs_.data(), N);
          for (int k = 0; k < N; ++k) gs_[std::size_t(k)] += ri * ai[k];
        }
        for (int k = 0; k < N; ++k) gs_[std::size_t(k)] -= lambda * xs_[std::size_t(k)];
        for (int k = 0; k < N; ++k)
          y2_[std::size_t(k) * V + v] =
              detail::dot(&pb.ops.ginv[std::size_t(k) * N], gs_.data(), N);
        for (int k = 0; k < N; ++k) ys_[std::size_t(k)] = y2_[std::size_t(k) * V + v];
        for (int q = 0; q < int(rows_[v].size()); ++q)
          rho_[std::size_t(q) * V + v] =
              detail::dot(A + std::size_t(rows_[v][std::size_t(q)]) * N, ys_.data(), N);
      }
      f.solve_in_place(rho_.data());
      for (int v = 0; v < V; ++v) {
        if (!(soa_[v] && refine_[v])) continue;
        for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = y2_[std::size_t(k) * V + v];
        add_bs(g, v, rho_.data(), xs_.data());
        for (int k = 0; k < N; ++k) g.x[std::size_t(k) * V + v] += xs_[std::size_t(k)];
      }
    }
  }

  /// x += B_:S u for lane v. S is the lane's missing rows; u is lane v of an SoA vector.
  void add_bs(const LaneGroup<T, V>& g, int v, const double* u, double* x) const {
    g.add_rows(v, rows_[v].data(), int(rows_[v].size()), g.pb.bt8.data(), u, x);
  }

  AVec<double> y_;            // N x V: y = B (w o b)
  AVec<double> ys_;           // N: one lane's y (downdate_pixel) or correction
  AVec<double> xs_;           // ld8: one lane's solution (zero padded like bt8's rows)
  AVec<double> yl_;           // ld8: one lane's y, zero beyond N
  AVec<double> rho_, y2_;     // N x V: z and K^-1 z; the refinement's G^-1 g
  AVec<double> gs_;           // N: the refinement's gradient g of one lane
  std::vector<int> miss_;     // one lane's missing rows (downdate_pixel)
  std::vector<int> rows_[V];  // the SoA lanes' missing rows
  std::uint8_t soa_[V] = {}, refine_[V] = {};
  SmallScratch scratch_;
};

}  // namespace

SIMSCOPE_LSQ_CPU_PATH(make_downdate_path, DowndatePath)

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
