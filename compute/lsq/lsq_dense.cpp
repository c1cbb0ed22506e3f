// Dense per-pixel solvers of the lsq workload (lsq_internal.hpp): the shared SVD of A for pixels
// without gaps, per-pixel SVD and complete orthogonal decomposition (Eigen), and code shared by
// every back end: result set-up, status counts, make_solver.
// GCC 12 reports false -Wmaybe-uninitialized inside Eigen's AVX-512 packet code.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq {

namespace detail {

namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// The retained part of an SVD of A_p, m rows, for the augmented problem [A_p; sqrt(lambda) I].
/// Holds rank, condition and filter factors f_i = s_i / (s_i^2 + lambda), 0 for dropped values.
struct Filter {
  int rank = 0;
  double condition = 0;
  std::vector<double> f;
};

template <class S>
Filter filter(const S& sv, int rows, int n, double lambda, double eps) {
  // Singular values of the augmented matrix are sqrt(s_i^2 + lambda), i < n, with s_i = 0 beyond
  // min(rows, n). Rank rule of lsq.hpp with tolerance max(rows + (lambda > 0 ? n : 0), n) eps.
  Filter r;
  const int k = int(sv.size());
  r.f.assign(std::size_t(k), 0.0);
  auto aug = [&](int i) {
    const double s = i < k ? double(sv[i]) : 0.0;
    return std::sqrt(s * s + lambda);
  };
  const double top = aug(0);
  const int rows_aug = rows + (lambda > 0 ? n : 0);
  const double tol = double(std::max(rows_aug, n)) * eps * top;
  double smallest = 0;
  for (int i = 0; i < n; ++i) {
    const double a = aug(i);
    if (a > tol && top > 0) {
      ++r.rank;
      smallest = a;
      if (i < k) {
        const double s = double(sv[i]);
        r.f[std::size_t(i)] = s / (s * s + lambda);
      }
    }
  }
  r.condition = r.rank > 0 ? top / smallest : std::numeric_limits<double>::infinity();
  return r;
}

std::uint8_t status_of(int rows, int n, int rank) {
  if (rows < n) return kUnderdetermined;
  return rank < n ? kRankDeficient : kOk;
}

}  // namespace

void init_result(Result& out, const Cube& cube, const Design& design, const IndexRange& rows,
                 bool host_maps) {
  const std::size_t P = host_maps ? (rows.end - rows.begin) * cube.width : 0;
  out.n = design.n;
  out.height = rows.end - rows.begin;
  out.width = cube.width;
  out.row_begin = rows.begin;
  if (!host_maps) {  // release the memory, not only the size
    out.solution = {}, out.residual = {}, out.count = {}, out.status = {}, out.condition = {};
  }
  out.solution32 = {};
  out.host_inf = {};
  out.host_inf_counted = false;
  out.solution.assign(design.n * P, std::numeric_limits<double>::quiet_NaN());
  out.residual.assign(P, std::numeric_limits<float>::quiet_NaN());
  out.count.assign(P, 0);
  out.status.assign(P, kAllMissing);
  out.condition.assign(P, std::numeric_limits<float>::quiet_NaN());
  out.on_host = host_maps;
  out.device_inf = {};
  out.device_note.clear();
  out.status_counts = {};
  out.fallback_pixels = 0;
  out.shared_pixels = 0;
  out.host_pixels = 0;
  out.downdate_pixels = 0;
  out.minnorm_pixels = 0;
  out.pattern_pixels = 0;
  out.shared_rank = -1;
  out.seconds = 0;
}

void count_statuses(Result& out) {
  out.status_counts = {};
  for (std::uint8_t s : out.status)
    if (s < 4) ++out.status_counts[s];
}

void gather_pixel(const Cube& cube, std::size_t p, PixelData& out) {
  out.rows.clear();
  out.b.clear();
  for (std::size_t i = 0; i < cube.m; ++i) {
    const double v = cube.at(i, p);
    if (!std::isnan(v)) {
      out.rows.push_back(int(i));
      out.b.push_back(v);
    }
  }
}

SharedSvd shared_svd(const Design& design, double lambda) {
  const int M = int(design.m), N = int(design.n);
  Mat<double> A(M, N);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < N; ++k) A(i, k) = design.a[std::size_t(i) * N + k];
  Eigen::JacobiSVD<Mat<double>> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Filter f =
      filter(svd.singularValues(), M, N, lambda, std::numeric_limits<double>::epsilon());
  SharedSvd s;
  s.rank = f.rank;
  s.outcome.status = status_of(M, N, f.rank);
  s.outcome.condition = float(f.condition);
  const auto& U = svd.matrixU();
  const auto& V = svd.matrixV();
  s.op.assign(std::size_t(N) * M, 0.0);
  for (int j = 0; j < int(f.f.size()); ++j) {
    if (f.f[std::size_t(j)] == 0) continue;
    for (int k = 0; k < N; ++k) {
      const double vk = V(k, j) * f.f[std::size_t(j)];
      double* row = &s.op[std::size_t(k) * M];
      for (int i = 0; i < M; ++i) row[i] += vk * U(i, j);
    }
  }
  // M < N: the thin U is square, so b - A op b = sum_j c_j u_j (u_j . b) over all M of them.
  if (M < N) {
    s.residual_rows = 0;
    for (int j = 0; j < M; ++j) {
      const double fj = j < int(f.f.size()) ? f.f[std::size_t(j)] : 0.0;
      const double sj = svd.singularValues()[j];
      const double c = fj != 0 ? lambda / (sj * sj + lambda) : 1.0;
      if (c == 0) continue;
      for (int i = 0; i < M; ++i) s.residual_op.push_back(c * U(i, j));
      ++s.residual_rows;
    }
  }
  return s;
}

SharedSvd rows_svd(const Design& design, const std::vector<int>& rows, double lambda) {
  const std::size_t N = design.n, m = rows.size();
  Design sub;
  sub.m = m, sub.n = N;
  sub.a.resize(m * N);
  for (std::size_t r = 0; r < m; ++r)
    std::copy_n(&design.a[std::size_t(rows[r]) * N], N, &sub.a[r * N]);
  return shared_svd(sub, lambda);
}

template <class T>
PixelOutcome svd_pixel(const Design& design, const PixelData& px, double lambda, double* x) {
  const int m = int(px.rows.size()), N = int(design.n);
  Mat<T> A(m, N);
  for (int r = 0; r < m; ++r)
    for (int k = 0; k < N; ++k) A(r, k) = T(design.a[std::size_t(px.rows[std::size_t(r)]) * N + k]);
  // JacobiSVD, one-sided Jacobi after a column-pivoted QR, is accurate to eps in the small
  // singular values, which decide the rank. Golub & Van Loan 8.6.3.
  Eigen::JacobiSVD<Mat<T>> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Filter f =
      filter(svd.singularValues(), m, N, lambda, double(std::numeric_limits<T>::epsilon()));
  const auto& U = svd.matrixU();
  const auto& V = svd.matrixV();
  std::fill(x, x + N, 0.0);
  for (int j = 0; j < int(f.f.size()); ++j) {
    if (f.f[std::size_t(j)] == 0) continue;
    double c = 0;
    for (int r = 0; r < m; ++r) c += double(U(r, j)) * px.b[std::size_t(r)];
    c *= f.f[std::size_t(j)];
    for (int k = 0; k < N; ++k) x[k] += c * double(V(k, j));
  }
  return {status_of(m, N, f.rank), float(f.condition)};
}

template <class T>
PixelOutcome qr_pixel(const Design& design, const PixelData& px, double lambda, double* x) {
  const int m = int(px.rows.size()), N = int(design.n);
  const int rows = m + (lambda > 0 ? N : 0);
  Mat<T> A = Mat<T>::Zero(rows, N);
  Eigen::Matrix<T, Eigen::Dynamic, 1> b = Eigen::Matrix<T, Eigen::Dynamic, 1>::Zero(rows);
  for (int r = 0; r < m; ++r) {
    for (int k = 0; k < N; ++k) A(r, k) = T(design.a[std::size_t(px.rows[std::size_t(r)]) * N + k]);
    b(r) = T(px.b[std::size_t(r)]);
  }
  if (lambda > 0)
    for (int k = 0; k < N; ++k) A(m + k, k) = T(std::sqrt(lambda));
  Eigen::CompleteOrthogonalDecomposition<Mat<T>> cod;
  cod.setThreshold(T(std::max(rows, N)) * std::numeric_limits<T>::epsilon());
  cod.compute(A);
  const Eigen::Matrix<T, Eigen::Dynamic, 1> sol = cod.solve(b);
  for (int k = 0; k < N; ++k) x[k] = double(sol(k));
  const int rank = int(cod.rank());
  // A P = Q [T 0; 0 0] Z with T, rank x rank, upper triangular and Q, Z orthogonal.
  // T has the retained singular values of A, so s_max / s_min of T is the exact condition.
  double cond = std::numeric_limits<double>::infinity();
  if (rank > 0) {
    const Mat<T> t =
        cod.matrixT().topLeftCorner(rank, rank).template triangularView<Eigen::Upper>();
    const auto s = Eigen::JacobiSVD<Mat<T>>(t).singularValues();
    if (s(rank - 1) > 0) cond = double(s(0)) / double(s(rank - 1));
  }
  return {status_of(m, N, rank), float(cond)};
}

template PixelOutcome svd_pixel<float>(const Design&, const PixelData&, double, double*);
template PixelOutcome svd_pixel<double>(const Design&, const PixelData&, double, double*);
template PixelOutcome qr_pixel<float>(const Design&, const PixelData&, double, double*);
template PixelOutcome qr_pixel<double>(const Design&, const PixelData&, double, double*);

double residual_rms(const Design& design, const PixelData& px, const double* x) {
  const std::size_t N = design.n;
  double ss = 0;
  for (std::size_t r = 0; r < px.rows.size(); ++r) {
    const double* a = &design.a[std::size_t(px.rows[r]) * N];
    double v = -px.b[r];
    for (std::size_t k = 0; k < N; ++k) v += a[k] * x[k];
    ss += v * v;
  }
  return px.rows.empty() ? std::numeric_limits<double>::quiet_NaN()
                         : std::sqrt(ss / double(px.rows.size()));
}

void store_pixel(Result& out, std::size_t p, const double* x, const PixelOutcome& o,
                 double residual, int count) {
  const std::size_t P = out.pixels();
  for (std::size_t k = 0; k < out.n; ++k) out.solution[k * P + p] = x[k];
  store_maps(out, p, o, residual, count);
}

void store_maps(Result& out, std::size_t p, const PixelOutcome& o, double residual, int count) {
  out.status[p] = o.status;
  out.condition[p] = o.condition;
  out.residual[p] = float(residual);
  out.count[p] = count;
}

void solve_pixels_dense(const Cube& cube, const Design& design, const Options& options,
                        const std::vector<std::size_t>& pixels, Result& out,
                        std::size_t cube_offset) {
  const bool fp32 = options.precision == Precision::Fp32;
#pragma omp parallel
  {
    PixelData px;
    std::vector<double> x(design.n);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t q = 0; q < pixels.size(); ++q) {
      const std::size_t p = pixels[q];
      gather_pixel(cube, p + cube_offset, px);
      PixelOutcome o;
      if (px.rows.empty()) {
        out.status[p] = kAllMissing;
        continue;
      }
      switch (options.method) {
        case Method::Qr:
          o = fp32 ? qr_pixel<float>(design, px, options.lambda, x.data())
                   : qr_pixel<double>(design, px, options.lambda, x.data());
          break;
        case Method::Svd:
          o = fp32 ? svd_pixel<float>(design, px, options.lambda, x.data())
                   : svd_pixel<double>(design, px, options.lambda, x.data());
          break;
        default:
          o = svd_pixel<double>(design, px, options.lambda, x.data());
          break;
      }
      store_pixel(out, p, x.data(), o, residual_rms(design, px, x.data()), int(px.rows.size()));
    }
  }
}

#ifndef SIMSCOPE_HAVE_CUDA
std::unique_ptr<Solver> make_cuda_solver() {
  throw Error("lsq: the CUDA back end is not available (" + cuda_status().reason + ")");
}
#endif

}  // namespace detail

Backend method_runs_on(Method method, Backend backend) {
  return method == Method::Qr || method == Method::Svd ? Backend::Cpu : backend;
}

std::unique_ptr<Solver> make_solver(Backend backend) {
  if (backend == Backend::Cpu) return detail::make_cpu_solver();
  const CudaStatus& s = cuda_status();
  if (!s.usable) throw Error("lsq: the CUDA back end cannot run (" + s.reason + ")");
  return detail::make_cuda_solver();
}

}  // namespace simscope::lsq
