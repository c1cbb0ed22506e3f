// ConditionEstimator (condition.hpp): Hager/Higham 1-norm estimates of V inverses at once.
#include "core/isa.hpp"
#include "lsq/cpu/condition.hpp"

#include <algorithm>
#include <cmath>

#include "lsq/lsq.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

template <class T, int V>
ConditionEstimator<T, V>::ConditionEstimator(int nmax)
    : x_(std::size_t(nmax) * V), z_(std::size_t(nmax) * V), alt_(std::size_t(nmax) * V) {}

template <class T, int V>
void ConditionEstimator<T, V>::estimate(const SoaCholesky<T, V>& f, int iterations, double* rhs) {
  const int N = f.n;
  T* x = x_.data();
  T* z = z_.data();
  double est_v[V];  // the lanes' running estimates
  int j[V];
  bool active[V];
  alignas(64) T sgn[kMaxUnknowns][V];  // the sign vector, +1 / -1
  // Per-lane constants in T, so the lane loops compare and select in one vector width.
  alignas(64) T len[V], inv[V], den[V];
  for (int v = 0; v < V; ++v) {
    len[v] = T(f.lane_n[v]);
    inv[v] = T(1) / T(f.lane_n[v]);
    den[v] = f.lane_n[v] > 1 ? T(f.lane_n[v] - 1) : T(1);
  }
  // The loops below run over k outside and the contiguous lanes inside, so they vectorise.
  // Each lane's sums and comparisons keep the scalar algorithm's order k = 0, 1, ...
  auto norm1 = [&](const T* a, double* out) {
    double s[V] = {};
    for (int k = 0; k < N; ++k)
      for (int v = 0; v < V; ++v) s[v] += std::fabs(double(a[std::size_t(k) * V + v]));
    std::copy(s, s + V, out);
  };
  auto argmax = [&](const T* a, int* best) {  // first k < f.lane_n[v] of the largest |a_k|
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
  // Higham's alternating-sign vector does not depend on the iterations. It is solved in the first
  // pass with e / n and the caller's right-hand side. Both are filled lanes innermost from
  // per-lane constants, one vector division per k.
  T* xa = alt_.data();
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
      f.template solve_many<double, 3>(three);
    else
      f.template solve_many<double, 2>(two);
  } else {  // rhs is float64, the factor's vectors T: a separate solve
    f.template solve_many<T, 2>(two);
    if (rhs) f.solve_in_place(rhs);
  }
  norm1(x, est_v);
  for (int v = 0; v < V; ++v) active[v] = f.lane_n[v] > 1;
  if (N > 1) {
    for (int k = 0; k < N; ++k)
      for (int v = 0; v < V; ++v) sgn[k][v] = x[std::size_t(k) * V + v] >= 0 ? T(1) : T(-1);
    sign_vector();
    f.solve_in_place(z);
    argmax(z, j);
    for (int iter = 2; iter <= iterations; ++iter) {
      std::fill(x, x + std::size_t(N) * V, T(0));
      for (int v = 0; v < V; ++v) x[std::size_t(j[v]) * V + v] = T(1);
      f.solve_in_place(x);
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
        if (repeated[v] != T(0) || e[v] <= est_v[v]) {
          est_v[v] = std::max(est_v[v], e[v]);
          active[v] = false;
          continue;
        }
        est_v[v] = e[v];
        go[v] = T(1);
        any = true;
      }
      for (int k = 0; k < N; ++k)
        for (int v = 0; v < V; ++v)
          sgn[k][v] = go[v] != T(0) ? (x[std::size_t(k) * V + v] >= 0 ? T(1) : T(-1)) : sgn[k][v];
      // The last iteration's next index would go unused, so it is not solved for.
      if (!any || iter == iterations) break;
      sign_vector();
      f.solve_in_place(z);
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
      if (f.lane_n[v] > 1) est_v[v] = std::max(est_v[v], 2.0 * e[v] / (3.0 * f.lane_n[v]));
  }
  for (int v = 0; v < V; ++v) {
    est[v] = est_v[v];
    cond[v] = f.norm1[v] * est_v[v];
  }
}

template class ConditionEstimator<float, kLanesFp32>;
template class ConditionEstimator<double, kLanesFp64>;

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
