#pragma once
/// @file Helpers of the lsq tests (test_lsq_*.cpp): scratch files, numpy, references, errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/npy.hpp"
#include "lsq/lsq.hpp"
#include "test_support.hpp"

namespace simscope::lsq::test {

using simscope::test::error_of;
inline std::filesystem::path tmp_dir() { return simscope::test::scratch_dir(); }

/// Runs `code` under SIMSCOPE_PYTHON with numpy imported as np and `d` = tmp_dir() (a string);
/// returns the exit status.
inline int run_numpy(const std::string& code) {
  return simscope::test::run_numpy_reference("import numpy as np\nd = r'" + tmp_dir().string() +
                                             "'\n" + code);
}

/// A .npy file of tmp_dir() as float64 values.
inline std::vector<double> npy_values(const std::string& name) {
  return io::read_npy((tmp_dir() / name).string()).to_double();
}

/// |x - ref| / |ref| (2-norms) of pixel p's solution, ref laid out (N, P) as the Result.
template <class Ref>
double pixel_error(const Result& r, const Ref& ref, std::size_t p) {
  const std::size_t P = r.pixels();
  double num = 0, den = 0;
  for (std::size_t k = 0; k < r.n; ++k) {
    const double d = r.solution[k * P + p] - ref[k * P + p];
    num += d * d;
    den += ref[k * P + p] * ref[k * P + p];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// Minimum-norm / Tikhonov solution of pixel p in long double (an independent reference; no
/// Eigen here: see compute/CMakeLists.txt). lambda > 0: Cholesky of A_p^T A_p + lambda I;
/// m_p >= N: Householder QR of A_p (full rank assumed); m_p < N: x = A_p^T (A_p A_p^T)^-1 b_p.
inline std::vector<double> reference_solution(const Cube& cube, const Design& d, std::size_t p,
                                              double lambda = 0) {
  using R = long double;
  std::vector<std::size_t> rows;
  std::vector<R> b;
  for (std::size_t i = 0; i < cube.m; ++i)
    if (!std::isnan(cube.at(i, p))) rows.push_back(i), b.push_back(R(cube.at(i, p)));
  const std::size_t m = rows.size(), N = d.n;
  auto a = [&](std::size_t r, std::size_t k) { return R(d.at(rows[r], k)); };
  // Solves the SPD system S y = f (n x n, row-major) in place by Cholesky.
  auto spd_solve = [](std::vector<R> S, std::vector<R> f, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = 0; k < j; ++k) S[j * n + j] -= S[j * n + k] * S[j * n + k];
      S[j * n + j] = std::sqrt(S[j * n + j]);
      for (std::size_t i = j + 1; i < n; ++i) {
        for (std::size_t k = 0; k < j; ++k) S[i * n + j] -= S[i * n + k] * S[j * n + k];
        S[i * n + j] /= S[j * n + j];
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < i; ++k) f[i] -= S[i * n + k] * f[k];
      f[i] /= S[i * n + i];
    }
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t k = i + 1; k < n; ++k) f[i] -= S[k * n + i] * f[k];
      f[i] /= S[i * n + i];
    }
    return f;
  };
  std::vector<double> x(N);
  if (lambda > 0) {
    std::vector<R> S(N * N, 0), f(N, 0);
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t j = 0; j < N; ++j) {
        f[j] += a(r, j) * b[r];
        for (std::size_t k = 0; k < N; ++k) S[j * N + k] += a(r, j) * a(r, k);
      }
    for (std::size_t j = 0; j < N; ++j) S[j * N + j] += R(lambda);
    const auto y = spd_solve(S, f, N);
    for (std::size_t k = 0; k < N; ++k) x[k] = double(y[k]);
  } else if (m < N) {
    std::vector<R> S(m * m, 0);
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t q = 0; q < m; ++q)
        for (std::size_t k = 0; k < N; ++k) S[r * m + q] += a(r, k) * a(q, k);
    const auto y = spd_solve(S, b, m);
    for (std::size_t k = 0; k < N; ++k) {
      R s = 0;
      for (std::size_t r = 0; r < m; ++r) s += a(r, k) * y[r];
      x[k] = double(s);
    }
  } else {  // Householder QR of [A_p | b_p] (Golub & Van Loan 5.2.1), then back substitution
    std::vector<R> Q(m * (N + 1));
    for (std::size_t r = 0; r < m; ++r) {
      for (std::size_t k = 0; k < N; ++k) Q[r * (N + 1) + k] = a(r, k);
      Q[r * (N + 1) + N] = b[r];
    }
    auto q = [&](std::size_t r, std::size_t k) -> R& { return Q[r * (N + 1) + k]; };
    for (std::size_t k = 0; k < N; ++k) {
      R nrm = 0;
      for (std::size_t r = k; r < m; ++r) nrm += q(r, k) * q(r, k);
      nrm = std::sqrt(nrm);
      const R alpha = q(k, k) > 0 ? -nrm : nrm;
      std::vector<R> v(m, 0);
      for (std::size_t r = k; r < m; ++r) v[r] = q(r, k);
      v[k] -= alpha;
      R vv = 0;
      for (std::size_t r = k; r < m; ++r) vv += v[r] * v[r];
      if (vv == 0) continue;
      for (std::size_t c = k; c <= N; ++c) {
        R s = 0;
        for (std::size_t r = k; r < m; ++r) s += v[r] * q(r, c);
        s = 2 * s / vv;
        for (std::size_t r = k; r < m; ++r) q(r, c) -= s * v[r];
      }
    }
    std::vector<R> y(N);
    for (std::size_t i = N; i-- > 0;) {
      R s = q(i, N);
      for (std::size_t k = i + 1; k < N; ++k) s -= q(i, k) * y[k];
      y[i] = s / q(i, i);
    }
    for (std::size_t k = 0; k < N; ++k) x[k] = double(y[k]);
  }
  return x;
}

inline Design random_design(std::size_t m, std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> nd;
  Design d;
  d.m = m, d.n = n;
  for (std::size_t k = 0; k < m * n; ++k) d.a.push_back(nd(g));
  return d;
}

/// A float64 cube b = A x + noise with a fraction of NaNs.
inline Cube random_cube(const Design& d, std::size_t h, std::size_t w, double nan_fraction,
                        unsigned seed, double noise = 0.1) {
  std::mt19937 g(seed);
  std::normal_distribution<double> nd;
  std::uniform_real_distribution<double> u(0, 1);
  const std::size_t P = h * w;
  std::vector<double> v(d.m * P);
  for (std::size_t p = 0; p < P; ++p) {
    std::vector<double> x(d.n);
    for (double& xi : x) xi = nd(g);
    for (std::size_t i = 0; i < d.m; ++i) {
      double s = noise * nd(g);
      for (std::size_t k = 0; k < d.n; ++k) s += d.at(i, k) * x[k];
      v[i * P + p] = u(g) < nan_fraction ? std::numeric_limits<double>::quiet_NaN() : s;
    }
  }
  return make_cube(std::move(v), d.m, h, w);
}

inline Options opts(Method m, Precision p, double lambda = 0) {
  Options o;
  o.method = m, o.precision = p, o.lambda = lambda;
  return o;
}

inline const char* name(Method m) {
  switch (m) {
    case Method::Auto:
      return "auto";
    case Method::Normal:
      return "normal";
    case Method::Qr:
      return "qr";
    case Method::Svd:
      return "svd";
    case Method::Downdate:
      return "downdate";
  }
  return "?";
}
inline const char* name(Precision p) { return p == Precision::Fp32 ? "fp32" : "fp64"; }

/// Writes cube and design as .npy and has numpy compute, per pixel, lstsq of the stacked
/// problem (x_<tag>.npy, (N, P)), cond of the stacked matrix (k_<tag>.npy, (P,)) and cond2(G)
/// of G = A^T A + lambda I (g_<tag>.npy, a scalar: inf when singular).
inline bool numpy_reference(const Cube& c, const Design& d, double lambda, const std::string& tag) {
  const auto dir = test::tmp_dir();
  std::vector<double> cube(c.size());
  for (std::size_t i = 0; i < c.m; ++i)
    for (std::size_t p = 0; p < c.pixels(); ++p) cube[i * c.pixels() + p] = c.at(i, p);
  io::write_npy((dir / ("b_" + tag + ".npy")).string(), cube.data(), {c.m, c.pixels()});
  io::write_npy((dir / ("a_" + tag + ".npy")).string(), d.a.data(), {d.m, d.n});
  char lam[64];
  std::snprintf(lam, sizeof lam, "%.17g", lambda);
  return run_numpy("t = '" + tag + "'\nlam = " + lam + R"(
A = np.load(d + '/a_' + t + '.npy'); b = np.load(d + '/b_' + t + '.npy')
M, N = A.shape; P = b.shape[1]
X = np.full((N, P), np.nan); K = np.full(P, np.nan)
for p in range(P):
    o = ~np.isnan(b[:, p])
    if not o.any(): continue
    As, bs = A[o], b[o, p]
    if lam > 0:
        As = np.vstack([As, np.sqrt(lam) * np.eye(N)]); bs = np.concatenate([bs, np.zeros(N)])
    X[:, p] = np.linalg.lstsq(As, bs, rcond=None)[0]
    s = np.linalg.svd(As, compute_uv=False)
    s = s[s > max(As.shape) * np.finfo(float).eps * s[0]]
    K[p] = s[0] / s[-1]
np.save(d + '/x_' + t + '.npy', X); np.save(d + '/k_' + t + '.npy', K)
e = np.linalg.eigvalsh(A.T @ A + lam * np.eye(N))
np.save(d + '/g_' + t + '.npy', np.array([e[-1] / e[0] if e[0] > 0 else np.inf]))
)") == 0;
}

}  // namespace simscope::lsq::test
