// Downdate and minimum-norm per-pixel solvers of the CPU lsq back end (lsq_downdate.hpp).
// GCC 12 reports false -Wmaybe-uninitialized inside Eigen's AVX-512 packet code.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "lsq/lsq_downdate.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace simscope::lsq::detail {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kHagerIterations = kSmallHagerIterations;

/// In-place right-looking Cholesky of the n x n SPD matrix a, column-major, lower triangle used.
/// Golub & Van Loan Algorithm 4.2.2, outer-product form; the inner loops are contiguous axpys.
/// Returns false when a pivot is <= tol.
bool cholesky(double* a, int n, double tol) {
  for (int j = 0; j < n; ++j) {
    double* cj = a + std::size_t(j) * n;
    const double d = cj[j];
    if (!(d > tol)) return false;
    const double l = std::sqrt(d), inv = 1.0 / l;
    cj[j] = l;
    for (int i = j + 1; i < n; ++i) cj[i] *= inv;
    for (int k = j + 1; k < n; ++k) {
      const double f = cj[k];
      double* ck = a + std::size_t(k) * n;
      for (int i = k; i < n; ++i) ck[i] -= cj[i] * f;
    }
  }
  return true;
}

/// x <- (L L^T)^-1 x with L from cholesky().
void chol_solve(const double* l, int n, double* x) {
  for (int j = 0; j < n; ++j) {
    const double* cj = l + std::size_t(j) * n;
    const double xj = x[j] / cj[j];
    x[j] = xj;
    for (int i = j + 1; i < n; ++i) x[i] -= cj[i] * xj;
  }
  for (int j = n - 1; j >= 0; --j) {
    const double* cj = l + std::size_t(j) * n;
    x[j] = (x[j] - dot(cj + j + 1, x + j + 1, n - j - 1)) / cj[j];
  }
}

/// Estimates ||S^-1||_1 for the SPD S = L L^T: Hager's method with Higham's refinements, as
/// LAPACK xLACN2. At most kHagerIterations iterations, then the alternating-sign test vector.
/// S^-1 is symmetric, so its transpose solves are plain solves.
double inv_norm1(const double* l, int n, std::vector<double>& x, std::vector<double>& z) {
  x.assign(std::size_t(n), 1.0 / n);
  chol_solve(l, n, x.data());
  auto norm1 = [&](const std::vector<double>& v) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += std::fabs(v[std::size_t(i)]);
    return s;
  };
  double est = norm1(x);
  if (n == 1) return est;
  z.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) z[std::size_t(i)] = x[std::size_t(i)] >= 0 ? 1.0 : -1.0;
  chol_solve(l, n, z.data());
  auto argmax = [&]() {
    int best = 0;
    for (int i = 1; i < n; ++i)
      if (std::fabs(z[std::size_t(i)]) > std::fabs(z[std::size_t(best)])) best = i;
    return best;
  };
  int j = argmax();
  double sgn[kMaxUnknowns > kMaxDowndateObservations ? kMaxUnknowns : kMaxDowndateObservations];
  for (int iter = 2; iter <= kHagerIterations; ++iter) {
    for (int i = 0; i < n; ++i) sgn[std::size_t(i)] = x[std::size_t(i)] >= 0 ? 1.0 : -1.0;
    std::fill(x.begin(), x.end(), 0.0);
    x[std::size_t(j)] = 1;
    chol_solve(l, n, x.data());
    const double e = norm1(x);
    bool repeated = true;
    for (int i = 0; i < n && repeated; ++i)
      repeated = (x[std::size_t(i)] >= 0 ? 1.0 : -1.0) == sgn[std::size_t(i)];
    if (repeated || e <= est) {
      est = std::max(est, e);
      break;
    }
    est = e;
    if (iter == kHagerIterations) break;  // its next index would go unused
    for (int i = 0; i < n; ++i) z[std::size_t(i)] = x[std::size_t(i)] >= 0 ? 1.0 : -1.0;
    chol_solve(l, n, z.data());
    const int last = j;
    j = argmax();
    if (!(std::fabs(z[std::size_t(last)]) != std::fabs(z[std::size_t(j)]))) break;
  }
  for (int i = 0; i < n; ++i) {
    const double a = 1.0 + double(i) / double(n - 1);
    x[std::size_t(i)] = (i % 2) ? -a : a;
  }
  chol_solve(l, n, x.data());
  return std::max(est, 2.0 * norm1(x) / (3.0 * n));
}

}  // namespace

DowndateOps make_downdate_ops(const Design& design, double lambda, double limit, bool want_downdate,
                              bool want_minnorm) {
  DowndateOps ops;
  const int M = int(design.m), N = int(design.n);
  ops.M = M, ops.N = N;
  if (design.m > kMaxDowndateObservations) return ops;
  const double* A = design.a.data();
  if (want_minnorm) {
    ops.r.assign(std::size_t(M) * M, 0.0);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j <= i; ++j) {
        const double v = dot(A + std::size_t(i) * N, A + std::size_t(j) * N, N);
        ops.r[std::size_t(i) * M + j] = ops.r[std::size_t(j) * M + i] = v;
      }
    ops.minnorm = true;
  }
  if (!want_downdate) return ops;
  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Mat> a(A, M, N);
  Mat g = Mat::Zero(N, N);
  for (int p = 0; p < N; ++p)
    for (int q = 0; q <= p; ++q) {
      double s = 0;
      for (int i = 0; i < M; ++i) s += A[std::size_t(i) * N + p] * A[std::size_t(i) * N + q];
      g(p, q) = g(q, p) = s + (p == q ? lambda : 0.0);
    }
  const Eigen::SelfAdjointEigenSolver<Mat> eig(g, Eigen::EigenvaluesOnly);
  const double lo = eig.eigenvalues()(0), hi = eig.eigenvalues()(N - 1);
  if (!(lo > 0) || !(hi / lo <= limit)) return ops;
  ops.cond_g = hi / lo;
  const Eigen::LLT<Mat> llt(g);
  if (llt.info() != Eigen::Success) return ops;
  const Mat ginv = llt.solve(Mat::Identity(N, N));
  const Mat b = llt.solve(a.transpose());  // N x M
  ops.ginv.assign(ginv.data(), ginv.data() + std::size_t(N) * N);
  ops.bt.resize(std::size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < N; ++k) ops.bt[std::size_t(i) * N + k] = b(k, i);
  ops.c.assign(std::size_t(M) * M, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j <= i; ++j) {
      const double v = dot(A + std::size_t(i) * N, &ops.bt[std::size_t(j) * N], N);
      ops.c[std::size_t(i) * M + j] = ops.c[std::size_t(j) * M + i] = v;
    }
  ops.downdate = true;
  return ops;
}

SmallOutcome downdate_pixel(const DowndateOps& ops, const Design& design, double lambda,
                            const double* y, const std::vector<int>& missing, const double* b,
                            const double* w, std::size_t stride, double limit, double* x,
                            SmallScratch& sc) {
  const int M = ops.M, N = ops.N, s = int(missing.size());
  const double* A = design.a.data();
  SmallOutcome out;
  sc.k.resize(std::size_t(s) * s);
  sc.z.resize(std::size_t(s));
  for (int q = 0; q < s; ++q) {
    const int iq = missing[std::size_t(q)];
    sc.z[std::size_t(q)] = dot(A + std::size_t(iq) * N, y, N);
    const double* crow = &ops.c[std::size_t(iq) * M];
    double* col = &sc.k[std::size_t(q) * s];
    for (int p = q; p < s; ++p) col[p] = (p == q ? 1.0 : 0.0) - crow[missing[std::size_t(p)]];
  }
  if (!cholesky(sc.k.data(), s, double(std::max(s, 1)) * kEps)) return out;
  const double cond_gp = ops.cond_g * inv_norm1(sc.k.data(), s, sc.t, sc.t2);
  if (!(cond_gp <= limit)) return out;
  auto apply = [&](double* v) {  // v <- v + B_:S K^-1 A_S v, given z = A_S v in sc.z
    chol_solve(sc.k.data(), s, sc.z.data());
    for (int q = 0; q < s; ++q) {
      const double uq = sc.z[std::size_t(q)];
      const double* bq = &ops.bt[std::size_t(missing[std::size_t(q)]) * N];
      for (int k = 0; k < N; ++k) v[k] += uq * bq[k];
    }
  };
  std::copy(y, y + N, x);
  apply(x);
  if (cond_gp > kRefineCondition) {
    // g = A_p^T (b - A_p x) - lambda x in float64, then x += G_p^-1 g by the same formula.
    sc.g.assign(std::size_t(N), 0.0);
    for (int i = 0; i < M; ++i) {
      if (w[std::size_t(i) * stride] == 0) continue;
      const double* ai = A + std::size_t(i) * N;
      const double ri = b[std::size_t(i) * stride] - dot(ai, x, N);
      for (int k = 0; k < N; ++k) sc.g[std::size_t(k)] += ri * ai[k];
    }
    for (int k = 0; k < N; ++k) sc.g[std::size_t(k)] -= lambda * x[k];
    sc.y2.resize(std::size_t(N));
    for (int k = 0; k < N; ++k)
      sc.y2[std::size_t(k)] = dot(&ops.ginv[std::size_t(k) * N], sc.g.data(), N);
    for (int q = 0; q < s; ++q)
      sc.z[std::size_t(q)] = dot(A + std::size_t(missing[std::size_t(q)]) * N, sc.y2.data(), N);
    apply(sc.y2.data());
    for (int k = 0; k < N; ++k) x[k] += sc.y2[std::size_t(k)];
  }
  out.ok = true;
  out.cond = std::sqrt(cond_gp);
  return out;
}

SmallOutcome minnorm_pixel(const DowndateOps& ops, const Design& design, double lambda,
                           const std::vector<int>& rows, const double* bo, double limit, double* x,
                           SmallScratch& sc) {
  const int M = ops.M, N = ops.N, k = int(rows.size());
  const double* A = design.a.data();
  SmallOutcome out;
  sc.k.resize(std::size_t(k) * k);
  double maxdiag = 0, norm1 = 0;
  std::vector<double>& colsum = sc.t2;
  colsum.assign(std::size_t(k), 0.0);
  for (int q = 0; q < k; ++q) {
    const double* rrow = &ops.r[std::size_t(rows[std::size_t(q)]) * M];
    double* col = &sc.k[std::size_t(q) * k];
    const int* rp = rows.data();
    double cs = 0;
    for (int p = 0; p < k; ++p) {
      const double v = rrow[rp[p]];
      col[p] = v;
      cs += std::fabs(v);
    }
    col[q] += lambda;
    colsum[std::size_t(q)] = cs + lambda;
    maxdiag = std::max(maxdiag, col[q]);
  }
  for (int q = 0; q < k; ++q) norm1 = std::max(norm1, colsum[std::size_t(q)]);
  if (!cholesky(sc.k.data(), k, double(k) * kEps * maxdiag)) return out;
  const double cond_r = norm1 * inv_norm1(sc.k.data(), k, sc.t, sc.z);
  if (!(cond_r <= limit)) return out;
  sc.u.assign(bo, bo + k);
  chol_solve(sc.k.data(), k, sc.u.data());
  auto add_at = [&](const double* v) {  // x += A_O^T v
    for (int q = 0; q < k; ++q) {
      const double vq = v[q];
      const double* aq = A + std::size_t(rows[std::size_t(q)]) * N;
      for (int c = 0; c < N; ++c) x[c] += vq * aq[c];
    }
  };
  std::fill(x, x + N, 0.0);
  add_at(sc.u.data());
  if (cond_r > kRefineCondition) {
    // rho = b - A_O x - lambda v is the residual of (R_OO + lambda I) v = b; then v += R^-1 rho.
    sc.g.resize(std::size_t(k));
    for (int q = 0; q < k; ++q)
      sc.g[std::size_t(q)] = bo[q] - dot(A + std::size_t(rows[std::size_t(q)]) * N, x, N) -
                             lambda * sc.u[std::size_t(q)];
    chol_solve(sc.k.data(), k, sc.g.data());
    add_at(sc.g.data());
  }
  out.ok = true;
  out.cond = lambda > 0 ? std::sqrt(norm1 / lambda) : std::sqrt(cond_r);
  return out;
}

}  // namespace simscope::lsq::detail
