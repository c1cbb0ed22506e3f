// The Gram path: per lane G_p = A_p^T A_p + lambda I (gram.hpp), the group's SoA Cholesky and
// condition estimate, and x = G_p^-1 A_p^T b. Method auto adds one refinement step with the
// float64 residual. Lanes go to the SVD when the factorisation breaks down or the estimated
// cond(G_p) exceeds fallback_condition() for auto, or 0.1 / eps for normal.
#include "core/isa.hpp"
#include <algorithm>
#include <cmath>

#include "lsq/cpu/gram.hpp"
#include "lsq/cpu/lane_group.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

template <class T, int V>
class GramPath final : public Path<T, V> {
 public:
  explicit GramPath(const Problem<T>& pb)
      : gaos_(std::size_t(pb.N + 3) * pb.ldA),  // blocks of 4 rows
        x_(std::size_t(pb.N) * V),
        y_(std::size_t(pb.N) * V) {}

  Kind kind() const override { return kChol; }

  void solve(LaneGroup<T, V>& g) override {
    const Problem<T>& pb = g.pb;
    SoaCholesky<T, V>& f = g.chol;
    const int N = pb.N;
    const double lambda = pb.options.lambda;
    f.n = N;
    std::fill(f.lane_n, f.lane_n + V, N);
    // Gram matrices into the packed SoA layout; identity for the other lanes.
    for (int v = 0; v < V; ++v) {
      if (g.kind[v] == kChol) {
        gram(g, v);
        for (int i = 0; i < N; ++i) {
          const T* gi = &gaos_[std::size_t(i) * pb.ldA];
          T* l = f.row(i) + v;
          for (int j = 0; j <= i; ++j) l[std::size_t(j) * V] = gi[j];
          l[std::size_t(i) * V] += T(lambda);
        }
      } else {
        for (int i = 0; i < N; ++i) {
          T* l = f.row(i) + v;
          for (int j = 0; j <= i; ++j) l[std::size_t(j) * V] = T(i == j);
        }
      }
    }
    f.norm1_and_tolerance();
    f.factor();
    // x = G^-1 A^T b, solved in the estimator's first pass. For auto, one refinement step with the
    // float64 residual: x += G^-1 (A_p^T r - lambda x).
    g.at_times(g.b.data(), nullptr, 0, x_.data());
    g.estimator.estimate(f, kGramHagerIterations, x_.data());
    if (pb.options.method == Method::Auto) {
      g.residual_vector(x_.data(), g.r.data());
      g.at_times(g.r.data(), x_.data(), -lambda, y_.data());
      f.solve_in_place(y_.data());
      for (std::size_t k = 0; k < x_.size(); ++k) x_[k] += y_[k];
    }
    const double limit = pb.options.method == Method::Auto ? pb.threshold : pb.singular;
    for (int v = 0; v < V; ++v) {
      if (g.kind[v] != kChol) continue;
      const double cond = g.estimator.cond[v];
      g.ok[v] = !(f.fail[v] || cond > limit);
      g.condition[v] = std::sqrt(cond);
      for (int k = 0; k < N; ++k) g.x[std::size_t(k) * V + v] = x_[std::size_t(k) * V + v];
    }
  }

 private:
  /// Writes lane v's Gram matrix to gaos_: a sum over its observed rows, or A^T A minus its
  /// missing rows' terms when those are fewer.
  void gram(LaneGroup<T, V>& g, int v) {
    const Problem<T>& pb = g.pb;
    const int M = pb.M, cnt = g.cnt[v];
    const bool sub = M - cnt < cnt;
    const int* list = g.rows_of(v, !sub);
    const int nl = sub ? M - cnt : cnt;
    rowp_.resize(std::size_t(nl));
    for (int q = 0; q < nl; ++q)
      rowp_[std::size_t(q)] = pb.apad.data() + std::size_t(list[q]) * pb.ldA;
    if (sub)
      gram_rows<T, true>(rowp_.data(), nl, pb.N, pb.ldA, pb.gfull.data(), gaos_.data());
    else
      gram_rows<T, false>(rowp_.data(), nl, pb.N, pb.ldA, pb.gfull.data(), gaos_.data());
  }

  AVec<T> gaos_;                // (N + 3) x ldA: one lane's Gram matrix, row-major
  std::vector<const T*> rowp_;  // the rows of A that gram() sums
  AVec<double> x_, y_;          // N x V: the solutions and the refinement's correction
};

}  // namespace

SIMSCOPE_LSQ_CPU_PATH(make_gram_path, GramPath)

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
