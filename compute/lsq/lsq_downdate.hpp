#pragma once
/// @file Downdate (Sherman-Morrison-Woodbury) and minimum-norm (row Gram) per-pixel solvers of
/// the CPU lsq back end. Not a public API. Both work in float64 at any precision.
///
/// Downdate: the Sherman-Morrison-Woodbury formula, Golub & Van Loan 2.1.4; Hager, "Updating the
/// inverse of a matrix", SIAM Review 31, 1989.
/// G = A^T A + lambda I is factored once; B = G^-1 A^T is N x M; the hat matrix C = A B is M x M.
/// A pixel with missing rows S, s = |S|, has G_p = G - A_S^T A_S and
///     y = B (w o b),  z = A_S y,  K = I - C_SS,  K u = z,  x = y + B_:S u.
/// K is SPD exactly when G_p is, so K's Cholesky pivots are the rank test.
/// The eigenvalues of K bound the condition: cond2(G_p) <= cond2(G) / lambda_min(K)
/// <= cond2(G) ||K^-1||_1. The reported condition is sqrt(cond2(G) est(||K^-1||_1)), with est
/// the Hager/Higham estimate. It is an upper estimate of cond2([A_p; sqrt(lambda) I]), at most
/// about cond2(G) s^(1/4) times the exact value and at least ~0.6 times it.
///
/// Minimum norm: underdetermined systems, Golub & Van Loan 5.6.2.
/// A pixel with k < N observed rows O has x = A_O^T (A_O A_O^T + lambda I)^-1 b_O.
/// This is the minimum-norm solution for lambda = 0 and the Tikhonov one for lambda > 0.
/// R = A A^T, M x M, is formed once and R_OO gathered per pixel.
/// A Cholesky pivot <= k eps max(diag R_OO) marks rank-deficient rows; the pixel goes to the SVD.
/// Reported condition for lambda = 0: sqrt(||R_OO||_1 est(||R_OO^-1||_1)), estimating the ratio
/// of the retained singular values. For lambda > 0: sqrt(||R_OO + lambda I||_1 / lambda), since
/// the smallest singular value of [A_p; sqrt(lambda) I] is then sqrt(lambda).
/// Both: one step of iterative refinement with the float64 residual when the estimated cond2(G_p),
/// or cond(R_OO), exceeds kRefineCondition. Pixels beyond fallback_condition(Fp64) = 1e10 go to
/// the float64 SVD. The functions below solve one pixel, e.g. downdate pixels with more than N
/// missing rows. The CPU solver's float64 groups, fp32 solves included, run the same algorithm
/// on their lanes together (cpu/path_downdate.cpp, path_minnorm.cpp). Each lane's K or R_OO is
/// padded to the group's largest size with a multiple of I, so results are bit-identical
/// whatever the neighbours. The CUDA back end runs one warp per pixel (cuda/small_kernel.cu).
#include <cstddef>
#include <vector>

#include "lsq/lsq.hpp"

namespace simscope::lsq::detail {

/// a . b over n doubles in four partial sums, added as (s0 + s1) + (s2 + s3). Every per-pixel
/// product of the downdate, minimum-norm and refinement code uses this order.
inline double dot(const double* a, const double* b, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int k = 0;
  for (; k + 3 < n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; ++k) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}

/// Estimated cond2 of the pixel's Gram matrix above which a refinement step is taken.
constexpr double kRefineCondition = 1e4;

/// Iterations of the Hager/Higham 1-norm estimator on the small matrices K and R_OO, on both
/// back ends. LAPACK allows 5, as the Gram path's N x N estimate uses. 2 keep the tests' bound
/// against numpy's cond and halve the estimator's solves.
constexpr int kSmallHagerIterations = 2;

/// The matrices shared by all pixels, float64, built once per solve.
struct DowndateOps {
  int M = 0, N = 0;
  bool downdate = false;     ///< G is SPD and cond2(G) <= `limit` (the downdate path can be used)
  bool minnorm = false;      ///< the row Gram R is available (the minimum-norm path can be used)
  double cond_g = 0;         ///< cond2(G) (from the shared SVD of A)
  std::vector<double> bt;    ///< M x N: row i = column i of B = G^-1 A^T
  std::vector<double> c;     ///< M x M: C = A G^-1 A^T
  std::vector<double> ginv;  ///< N x N: G^-1
  std::vector<double> r;     ///< M x M: A A^T
};

/// Largest M for which the M x M matrices C and R are formed, 8 MiB each. Beyond it, method auto
/// uses the other paths and method downdate falls back to the SVD.
constexpr std::size_t kMaxDowndateObservations = 1024;

/// Builds the operators. Downdate ones when `want_downdate` and G = A^T A + lambda I is SPD with
/// cond2(G) <= `limit`, from its eigenvalues (Eigen's SelfAdjointEigenSolver).
/// R when `want_minnorm`. Neither when M > kMaxDowndateObservations. Deterministic: plain loops.
DowndateOps make_downdate_ops(const Design& design, double lambda, double limit, bool want_downdate,
                              bool want_minnorm);

/// Per-thread scratch of the kernels below.
struct SmallScratch {
  std::vector<double> k, z, u, t, t2, g, y2;
  std::vector<int> idx;
};

/// Result of one pixel's small solve. ok = false sends the pixel to the SVD fallback.
struct SmallOutcome {
  bool ok = false;
  double cond = 0;  ///< estimated condition of [A_p; sqrt(lambda) I] (see the file comment)
};

/// Downdate solve of one pixel. In: `y` = B (w o b), N values; `missing`, s rows; `b` and `w`,
/// the pixel's M values and 0/1 weights at stride `stride`. Out: `x`, N values.
/// Fails with ok = false on a Cholesky pivot of K <= s eps or an estimated cond2(G_p) above
/// `limit`.
SmallOutcome downdate_pixel(const DowndateOps& ops, const Design& design, double lambda,
                            const double* y, const std::vector<int>& missing, const double* b,
                            const double* w, std::size_t stride, double limit, double* x,
                            SmallScratch& s);

/// Minimum-norm (lambda = 0) or Tikhonov (lambda > 0) solve of one pixel with k = |rows| < N
/// observed rows and values `bo`, k of them. Fails on a pivot <= k eps max(diag), meaning
/// rank-deficient rows, or on an estimated cond(R_OO) above `limit`.
SmallOutcome minnorm_pixel(const DowndateOps& ops, const Design& design, double lambda,
                           const std::vector<int>& rows, const double* bo, double limit, double* x,
                           SmallScratch& s);

#ifdef __CUDACC__
#define SIMSCOPE_LSQ_HD __host__ __device__
#else
#define SIMSCOPE_LSQ_HD
#endif

/// Cost model of method auto, in multiply-adds per pixel, for a pixel with s of M rows missing.
/// Covers the downdate: y, z, x, the s x s Cholesky and the estimator's solves. The Gram path
/// counts the shorter row list's rank-1 terms, the N x N Cholesky, its solves and products.
/// Shared by host and device: the CUDA classify kernel picks by the same rule.
SIMSCOPE_LSQ_HD inline double downdate_cost(int M, int N, int s) {
  const double sd = s;
  return double(M) * N + 2.0 * sd * N + sd * sd * sd / 6 + 8 * sd * sd;
}
SIMSCOPE_LSQ_HD inline double gram_cost(int M, int N, int s) {
  const double rows = s < M - s ? s : M - s, n = N;
  return rows * n * (n + 1) / 2 + n * n * n / 6 + 8 * n * n + 2.0 * M * n;
}

}  // namespace simscope::lsq::detail
