// The minimum-norm path (lsq_downdate.hpp), for pixels with k < N observed rows O:
// x = A_O^T (R_OO + lambda I)^-1 b_O with R = A A^T.
// Float64 groups solve their lanes together through the group's SoA Cholesky and condition
// estimate. Each R_OO + lambda I is padded to the group's largest k with
// maxdiag(R_OO + lambda I) I, which changes neither norm of the block-diagonal matrix nor of
// its inverse. One refinement step is taken where the estimated cond exceeds kRefineCondition.
// step is taken where the estimated cond exceeds kRefineCondition.
// Float32 groups solve their lanes one by one (minnorm_pixel).
#include "core/isa.hpp"
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "lsq/cpu/lane_group.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

template <class T, int V>
class MinNormPath final : public Path<T, V> {
 public:
  explicit MinNormPath(const Problem<T>& pb)
      : y_(std::size_t(pb.N) * V), xs_(std::size_t(pb.ld8), 0.0), rho_(std::size_t(pb.N) * V) {}

  Kind kind() const override { return kMinNorm; }

  void solve(LaneGroup<T, V>& g) override {
    if constexpr (std::is_same_v<T, double>) {
      solve_soa(g);
      return;
    }
    const Problem<T>& pb = g.pb;
    const int M = pb.M;
    const double limit = fallback_condition(Precision::Fp64);
    for (int v = 0; v < V; ++v) {
      if (g.kind[v] != kMinNorm) continue;
      obs_.clear();
      bo_.clear();
      for (int i = 0; i < M; ++i)
        if (g.w[std::size_t(i) * V + v] != 0) {
          obs_.push_back(i);
          bo_.push_back(g.b[std::size_t(i) * V + v]);
        }
      const SmallOutcome so = minnorm_pixel(pb.ops, pb.design, pb.options.lambda, obs_, bo_.data(),
                                            limit, xs_.data(), scratch_);
      g.set_outcome(v, so, xs_.data());
    }
  }

 private:
  void solve_soa(LaneGroup<T, V>& g) {
    const Problem<T>& pb = g.pb;
    SoaCholesky<T, V>& f = g.chol;
    const int M = pb.M, N = pb.N;
    const double lambda = pb.options.lambda;
    const double* R = pb.ops.r.data();
    int kmax = 1;
    for (int v = 0; v < V; ++v)
      if (g.kind[v] == kMinNorm) kmax = std::max(kmax, g.cnt[v]);
    f.n = kmax;
    int sz[V];
    const int* rp[V];
    double pad[V];
    for (int v = 0; v < V; ++v) {
      int k = 0;
      double maxdiag = 1;
      f.lane_n[v] = kmax;
      rp[v] = nullptr;
      if (g.kind[v] == kMinNorm) {
        const int* orow = g.rows_of(v, true);
        rows_[v].assign(orow, orow + g.cnt[v]);
        k = int(rows_[v].size());
        rp[v] = rows_[v].data();
        f.lane_n[v] = k;
        maxdiag = 0;
        for (int q = 0; q < k; ++q) {
          const int iq = rp[v][q];
          maxdiag = std::max(maxdiag, double(T(R[std::size_t(iq) * M + iq]) + T(lambda)));
          y_[std::size_t(q) * V + v] = g.b[std::size_t(iq) * V + v];
        }
        if (!(maxdiag > 0)) maxdiag = 1;
      }
      sz[v] = k, pad[v] = maxdiag;
      for (int q = k; q < kmax; ++q) y_[std::size_t(q) * V + v] = 0;
    }
    g.factor_small(kmax, sz, rp, R, 1.0, lambda, pad, y_.data());  // and y_ <- R_OO^-1 y_
    const double limit = fallback_condition(Precision::Fp64);
    bool refine = false;
    for (int v = 0; v < V; ++v) {
      if (g.kind[v] != kMinNorm) continue;
      SmallOutcome so;
      so.ok = !f.fail[v] && g.estimator.cond[v] <= limit;
      so.cond = lambda > 0 ? std::sqrt(f.norm1[v] / lambda) : std::sqrt(g.estimator.cond[v]);
      refine_[v] = so.ok && g.estimator.cond[v] > kRefineCondition;
      refine |= refine_[v];
      std::fill(xs_.begin(), xs_.end(), 0.0);
      if (so.ok) add_rows(g, v, pb.a8.data(), y_.data(), xs_.data());
      g.set_outcome(v, so, xs_.data());
    }
    if (refine) {  // rho = b_O - A_O x - lambda v, v += R^-1 rho, x += A_O^T (R^-1 rho)
      for (int v = 0; v < V; ++v) {
        const bool on = g.kind[v] == kMinNorm && refine_[v];
        for (int q = 0; q < kmax; ++q) {
          double r = 0;
          if (on && q < g.cnt[v]) {
            const int iq = rows_[v][std::size_t(q)];
            const double* a = pb.design.a.data() + std::size_t(iq) * N;
            r = g.b[std::size_t(iq) * V + v] - lambda * y_[std::size_t(q) * V + v];
            for (int c = 0; c < N; ++c) r -= a[c] * g.x[std::size_t(c) * V + v];
          }
          rho_[std::size_t(q) * V + v] = r;
        }
      }
      f.solve_in_place(rho_.data());
      for (int v = 0; v < V; ++v) {
        if (!(g.kind[v] == kMinNorm && refine_[v])) continue;
        for (int q = 0; q < g.cnt[v]; ++q) {
          const double d = rho_[std::size_t(q) * V + v];
          const double* a = pb.design.a.data() + std::size_t(rows_[v][std::size_t(q)]) * N;
          for (int c = 0; c < N; ++c) g.x[std::size_t(c) * V + v] += d * a[c];
        }
      }
    }
  }

  /// x += A_O^T u for lane v. O is the lane's observed rows; u is lane v of an SoA vector.
  void add_rows(const LaneGroup<T, V>& g, int v, const double* S, const double* u,
                double* x) const {
    g.add_rows(v, rows_[v].data(), int(rows_[v].size()), S, u, x);
  }

  AVec<double> y_;            // N x V: b_O, then R_OO^-1 b_O
  AVec<double> xs_;           // ld8: one lane's solution (zero padded like a8's rows)
  AVec<double> rho_;          // N x V: the refinement's residual
  std::vector<int> obs_;      // one lane's observed rows (minnorm_pixel)
  AVec<double> bo_;           // b at those rows
  std::vector<int> rows_[V];  // the SoA lanes' observed rows
  std::uint8_t refine_[V] = {};
  SmallScratch scratch_;
};

}  // namespace

SIMSCOPE_LSQ_CPU_PATH(make_minnorm_path, MinNormPath)

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
