#pragma once
/// @file Internals of the lsq workload shared by its .cpp/.cu files. Not a public API.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lsq/lsq.hpp"

namespace simscope::lsq::detail {

/// A fresh, never-zero Cube::generation value.
std::uint64_t next_generation();
/// Host bytes of the outputs of an N-unknown, P-pixel solve: the Result plus the app's float
/// copies.
double output_bytes(std::size_t n, std::size_t pixels);

std::unique_ptr<Solver> make_cpu_solver();
/// The CUDA back end, in cuda/ (cuda/solver.cuh). Linked only with SIMSCOPE_HAVE_CUDA.
std::unique_ptr<Solver> make_cuda_solver();

/// Resizes and clears `out` for a cube/design pair and the cube rows `rows`, already resolved
/// within [0, H). Sets solution to NaN, maps to zero, row_begin = rows.begin and on_host =
/// host_maps. With host_maps false the map vectors are emptied instead; the maps stay on the
/// device.
void init_result(Result& out, const Cube& cube, const Design& design, const IndexRange& rows,
                 bool host_maps = true);
/// Fills out.status_counts from out.status.
void count_statuses(Result& out);

/// The status and condition of one pixel's solve.
struct PixelOutcome {
  std::uint8_t status = kOk;
  float condition = 0;
};

/// Rows and values of one pixel: the observed row indices and b at those rows.
struct PixelData {
  std::vector<int> rows;
  std::vector<double> b;
};
/// Gathers pixel p of the cube with strided reads over the M observations.
void gather_pixel(const Cube& cube, std::size_t p, PixelData& out);

/// The shared solution of the pixels without gaps, from one float64 SVD of A (Golub & Van Loan
/// 5.5): x = op * b with op = V diag(f_i) U^T, N x M row-major. f_i = s_i / (s_i^2 + lambda)
/// for the retained singular values by lsq.hpp's rank rule on [A; sqrt(lambda) I], else 0.
struct SharedSvd {
  std::vector<double> op;  ///< N x M
  int rank = 0;
  PixelOutcome outcome;  ///< status (1 if M < N, 2 if rank < N, else 0) and condition
  /// When M < N (shared_svd only): R, residual_rows x M, so that
  /// |b - A op b| = |R b| for every b: the rows c_j u_j^T, over A's M left singular vectors
  /// u_j, whose weight c_j = 1 - s_j f_j is not zero (1 for a dropped value, lambda / (s_j^2 +
  /// lambda) for a retained one). With lambda = 0 and rank M it has no rows: the residual is 0.
  /// residual_rows is -1 when not made (then residuals come from A x).
  std::vector<double> residual_op;
  int residual_rows = -1;
};
SharedSvd shared_svd(const Design& design, double lambda);
/// The same for the pixels that observe exactly the rows `rows` of A (increasing, non-empty):
/// shared_svd of A_rows (m = rows.size() rows): op N x m over those rows alone, the residual
/// operator when m < N, status and condition as svd_pixel<double> gives them for such a pixel.
/// A function of A, `rows` and lambda alone.
SharedSvd rows_svd(const Design& design, const std::vector<int>& rows, double lambda);

/// Minimum-norm Tikhonov solution of one pixel by an SVD of its observed rows in precision T,
/// using Eigen's JacobiSVD. The normal-equation methods' fallback uses float64. `x` gets N
/// values. Status 1 if m_p < N; 2 if the numerical rank, by lsq.hpp's rule with T's epsilon, is
/// below N; else 0. condition = s_max / s_r over the retained singular values of
/// [A_p; sqrt(lambda) I]; +inf when none is retained. m_p must be >= 1.
template <class T>
PixelOutcome svd_pixel(const Design& design, const PixelData& px, double lambda, double* x);

/// The same by Eigen's CompleteOrthogonalDecomposition of [A_p; sqrt(lambda) I] in precision T:
/// column-pivoted QR, then the minimum-norm solution when rank-deficient. condition is a rough
/// estimate: max|t_ii| / min|t_ii| of its triangular factor.
template <class T>
PixelOutcome qr_pixel(const Design& design, const PixelData& px, double lambda, double* x);

/// sqrt(mean over the observed rows of (A_i . x - b_i)^2), in float64.
double residual_rms(const Design& design, const PixelData& px, const double* x);

/// Writes pixel p's maps (status, condition, residual, count) into `out`.
void store_maps(Result& out, std::size_t p, const PixelOutcome& o, double residual, int count);

/// Writes pixel p's outputs into `out`: x of N values, then store_maps.
void store_pixel(Result& out, std::size_t p, const double* x, const PixelOutcome& o,
                 double residual, int count);

/// Solves the listed pixels one by one with `method`, with OpenMP across pixels, and writes
/// their outputs. Indices are into `out`; cube pixel = index + cube_offset. `method` is Qr, Svd,
/// or Auto/Normal for the float64 SVD fallback.
void solve_pixels_dense(const Cube& cube, const Design& design, const Options& options,
                        const std::vector<std::size_t>& pixels, Result& out,
                        std::size_t cube_offset = 0);

/// Pixels per chunk of the CUDA solver (cuda/chunks.cu), which holds two chunk buffer sets of
/// `per_pixel` bytes per pixel. Both must fit within half of the device memory available to
/// them: `free_bytes` (cudaMemGetInfo) plus `held_bytes`, what this solver's chunk buffers
/// already hold. Those are reused or freed for the new chunk, so counting them keeps the chunk
/// size the same from one solve to the next. Also at most 2^20 pixels, `pixels` and `cap`
/// (SIMSCOPE_LSQ_CUDA_CHUNK; 0: none), with every cuBLAS operand (max(M, NT) x chunk) under
/// 2^31 elements. Returns 0 when fewer than 32 pixels fit and the cube has more, for the
/// caller's out-of-memory error; at least 1 otherwise.
inline std::size_t chunk_pixels(double per_pixel, std::size_t free_bytes, std::size_t held_bytes,
                                std::size_t pixels, int m, int nt, std::size_t cap) {
  const double available = double(free_bytes) + double(held_bytes);
  std::size_t pc = std::size_t(0.5 * available / (2 * per_pixel));
  const std::size_t widest = std::size_t(m > nt ? m : nt);
  const std::size_t limits[] = {std::size_t(1) << 20, pixels,
                                std::size_t(2147483647) / (widest > 0 ? widest : 1)};
  for (std::size_t l : limits) pc = pc < l ? pc : l;
  if (pc < 32 && pc < pixels) return 0;
  if (cap > 0 && cap < pc) pc = cap;
  return pc > 0 ? pc : 1;
}

}  // namespace simscope::lsq::detail
