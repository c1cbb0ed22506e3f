#pragma once
/// @file The `lsq` workload: per-pixel linear least squares with missing data (DESIGN.md 1.2).
///
/// A data cube b of shape (M, H, W) holds M observations for each of P = H x W pixels; NaN marks
/// a missing observation. A design matrix A of shape (M, N) is shared by all pixels. For each
/// pixel p with observed rows O_p (m_p = |O_p| of them) the solver returns
///
///     x_p = argmin_x  sum_{i in O_p} (A_i . x - b_ip)^2 + lambda |x|^2        (Tikhonov, lambda >=
///     0)
///
/// and, when that minimiser is not unique (lambda = 0 and rank(A_p) < N, A_p = the observed rows
/// of A), the one of minimum norm |x|, i.e. x_p = pinv(A_p) b_p. Regularised problems are
/// plain least-squares problems with the augmented matrix [A_p; sqrt(lambda) I] and right-hand
/// side [b_p; 0]; "rank" and "condition" below refer to that matrix (A_p itself for lambda = 0).
///
/// Per-pixel status codes (status map, uint8):
///   0 ok              unique solution, rank N
///   1 underdetermined 0 < m_p < N: fewer observed rows than unknowns. With lambda = 0 the
///                     minimum-norm solution pinv(A_p) b_p is returned; with lambda > 0 the
///                     (unique) Tikhonov solution.
///   2 rank-deficient  m_p >= N but the augmented matrix has numerical rank < N: the minimum-norm
///                     solution is returned. Numerical rank = the number of singular values
///                     s_i > max(rows, N) * eps(float64) * s_max (numpy.linalg.lstsq's default
///                     rcond; rows = m_p, + N with lambda > 0), decided by a float64 SVD in
///                     methods auto and normal whatever the precision (qr and svd: in the
///                     working precision, with its eps).
///   3 all missing     m_p = 0: solution and residual are NaN, condition is NaN, count 0.
///
/// Algorithm (method auto; Golub & Van Loan, "Matrix Computations", 4th ed., 4.2 (Cholesky),
/// 5.3 (normal equations, their accuracy), 5.4-5.5 (SVD, minimum-norm and rank-deficient least
/// squares); Bjorck, "Numerical Methods for Least Squares Problems", 2.5 and 6.6 (corrected
/// semi-normal equations / iterative refinement); Higham, "Accuracy and Stability of Numerical
/// Algorithms", 15.3 (the 1-norm condition estimator of LAPACK's xPOCON / xLACN2)):
///  - Gram matrices: G_p = A^T diag(w_p) A + lambda I for every pixel, w_ip = 1 where observed.
///    This is DESIGN.md's Khatri-Rao product W^T K restricted to one row of W; because W is 0/1
///    the product is the sum of the symmetric rank-1 terms a_i a_i^T over the observed rows, or
///    the full A^T A minus the terms of the missing rows, whichever list is shorter: the cost is
///    min(m_p, M - m_p) N(N+1)/2 multiply-adds per pixel instead of M N(N+1)/2.
///  - Cholesky G_p = L L^T in the working precision (fp32 or fp64). A pivot <= N eps max(diag G)
///    is a breakdown. The 1-norm condition number of G_p is estimated from L (Hager/Higham).
///  - Solve L L^T x = A_p^T b_p, then one step of iterative refinement with the residual
///    r = b_p - A_p x computed in float64 from the float64 design matrix:
///    x += (L L^T)^-1 (A_p^T r - lambda x). In fp32 the error after the step is about
///    (eps32 cond(G))^2 + eps64 cond(A_p) relative, instead of eps32 cond(G) (Bjorck 6.6.5).
///  - Fallback: pixels whose Cholesky breaks down, whose estimated cond(G) exceeds
///    fallback_condition() (1e10 in fp64, 1e5 in fp32), or that are underdetermined with
///    lambda = 0, are solved by a float64 SVD of A_p (Eigen's JacobiSVD) with the rank rule
///    above; their condition is the exact s_max / s_r over the retained singular values.
///  - Pixels without gaps share one float64 SVD of A: x_p = V diag(s_i / (s_i^2 + lambda)) U^T b_p
///    for all of them (a matrix product), rank and condition decided once.
/// Methods normal, qr and svd: see Method.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/device_view.hpp"
#include "core/precision.hpp"
#include "core/progress.hpp"
#include "core/range.hpp"
#include "io/npy.hpp"
#include "io/output_spec.hpp"

namespace simscope::lsq {

/// Largest number of unknowns N (the Gram matrix has N(N+1)/2 distinct entries per pixel).
constexpr std::size_t kMaxUnknowns = 128;
/// Largest number of observations M.
constexpr std::size_t kMaxObservations = 65536;

/// Working precision of the per-pixel Gram matrices, Cholesky factors and condition estimates.
/// Vectors (right-hand sides, residuals, solutions) are always float64; so are the shared SVD of
/// A, the fallback SVDs and the refinement residual. Fp64 is the default: errors around 1e-12
/// relative on well-conditioned pixels. Fp32 halves the memory traffic and doubles the SIMD
/// width of the O(N^3) part; after the refinement step it still gives ~1e-7 on pixels with
/// cond(A_p) <= 1e3 (pixels beyond cond(G) = 1e5 go to the float64 SVD). (core/precision.hpp's
/// type.)
using Precision = simscope::Precision;

/// How each pixel with gaps is solved.
///   Auto:   Cholesky of the normal equations + one refinement step; SVD fallback for breakdowns,
///           poor condition and underdetermined pixels (see the file comment). The default.
///   Normal: Cholesky of the normal equations without refinement; only breakdowns, numerically
///           singular factors (estimated cond(G) > 0.1 / eps) and underdetermined pixels with
///           lambda = 0 go to the SVD: fastest, error ~ eps cond(A_p)^2.
///   Qr:     column-pivoted Householder QR / complete orthogonal decomposition of [A_p;
///           sqrt(lambda) I] per pixel (Eigen's CompleteOrthogonalDecomposition, threshold
///           max(m_p, N) eps), in the working precision; minimum-norm when rank-deficient. The
///           condition reported is s_max / s_r of its rank x rank triangular factor T, whose
///           singular values are those retained of the augmented matrix (exact, values-only
///           JacobiSVD of T). Slow: tens of microseconds per pixel.
///   Svd:    JacobiSVD per pixel in the working precision (rank rule with that precision's eps);
///           exact condition. Slowest.
///   Downdate: the Sherman-Morrison-Woodbury downdate of G = A^T A + lambda I factored once
///           (lsq_downdate.hpp) for every pixel with gaps, in float64 whatever the precision;
///           pixels whose K = I - C_SS is not definite or whose estimated cond2(G_p) exceeds
///           1e10, and every pixel when G itself is singular or cond2(G) > 1e10 or M > 1024, go
///           to the float64 SVD. One refinement step where the estimated cond2(G_p) > 1e4.
///           Auto also uses it, per pixel, where its cost model says it is cheaper.
/// Method auto, per pixel with gaps (CPU back end): underdetermined pixels (m_p < N) take the
/// minimum-norm path x = A_p^T (A_p A_p^T + lambda I)^-1 b_p with the row Gram gathered from
/// A A^T (float64; its Cholesky pivots are the rank test, rank-deficient or ill-conditioned rows
/// go to the SVD); the others the downdate or the Gram path above, whichever the cost model
/// (detail::downdate_cost / gram_cost: multiply-adds) finds cheaper. Both small paths work in
/// float64 in either precision (an fp32 solve hands them to a float64 group solver: they are
/// faster than the fp32 Gram path, and their pixels get float64 accuracy); the Gram path works
/// in the precision asked for. The CUDA back end picks by the same rule
/// (lsq_cuda.cu's classify kernel; its small kernel, lsq_cuda_small.cu, takes sizes up to what
/// one warp's shared memory holds, larger downdate pixels go to its Gram path under auto and to
/// the SVD under downdate).
/// Pixels without gaps use the shared SVD of A whatever the method.
enum class Method { Auto, Normal, Qr, Svd, Downdate };
/// "auto", "normal", "qr", "svd", "downdate" (the schema's strings).
const char* to_string(Method m);

/// Where `method`'s per-pixel solves of the pixels with gaps run when `backend` is selected:
/// Backend::Cpu (the host, Eigen: lsq_dense.cpp) for Qr and Svd on every back end (the CUDA
/// solver does only the mask, the pixels without gaps and the empty ones on the device then),
/// `backend` for Auto and Normal (whose SVD fallback pixels run on the host too:
/// Result::host_pixels counts both kinds) and Downdate (its SVD fallbacks on the host too).
/// For run.json and the status bar.
Backend method_runs_on(Method method, Backend backend);

/// Per-pixel status codes (see the file comment).
enum Status : std::uint8_t {
  kOk = 0,
  kUnderdetermined = 1,
  kRankDeficient = 2,
  kAllMissing = 3,
};
/// "ok", "underdetermined", "rank-deficient", "all-missing" for codes 0..3.
const char* status_name(int code);

/// Estimated cond(G) above which Method::Auto sends a pixel to the float64 SVD.
double fallback_condition(Precision p);

/// The data cube b, shape (M, H, W), C order: b[i][h][w] at index (i * H + h) * W + w. Stored in
/// its file's dtype (float32 or float64) to keep memory at one copy of the cube.
struct Cube {
  std::size_t m = 0, height = 0, width = 0;
  io::DType dtype = io::DType::Float64;  ///< Float32 or Float64
  std::vector<std::uint8_t> bytes;       ///< m * height * width values, native endian
  /// Non-null: the values live in memory the caller owns (borrow_cube: a numpy array of the
  /// Python module), not in `bytes`; the caller keeps it alive and unchanged while the cube
  /// (or a copy, which borrows the same memory) is used.
  const std::uint8_t* borrowed = nullptr;
  /// Changes whenever the content changes (caches key on it); 0 = unknown.
  std::uint64_t generation = 0;

  std::size_t pixels() const { return height * width; }
  std::size_t size() const { return m * pixels(); }
  /// The values: `borrowed` when set, else `bytes`.
  const std::uint8_t* data() const { return borrowed ? borrowed : bytes.data(); }
  /// Bytes of values held (size() * 4 or 8 for a consistent cube).
  std::size_t stored_bytes() const {
    return borrowed ? size() * (dtype == io::DType::Float32 ? 4 : 8) : bytes.size();
  }
  const float* f32() const { return reinterpret_cast<const float*>(data()); }
  const double* f64() const { return reinterpret_cast<const double*>(data()); }
  /// Observation i of pixel p (p = h * W + w), as double.
  double at(std::size_t i, std::size_t p) const {
    const std::size_t k = i * pixels() + p;
    return dtype == io::DType::Float32 ? double(f32()[k]) : f64()[k];
  }
};

/// Builds a cube from values in C order (M, H, W). Throws Error when the size does not match.
Cube make_cube(std::vector<float> values, std::size_t m, std::size_t height, std::size_t width);
Cube make_cube(std::vector<double> values, std::size_t m, std::size_t height, std::size_t width);

/// The design matrix A, shape (M, N), row-major float64.
struct Design {
  std::size_t m = 0, n = 0;
  std::vector<double> a;  ///< a[i * n + k] = A_ik
  double at(std::size_t i, std::size_t k) const { return a[i * n + k]; }
};

/// Settings of a solve.
struct Options {
  Method method = Method::Auto;
  Precision precision = Precision::Fp64;
  double lambda = 0;  ///< Tikhonov parameter, finite and >= 0 (units: those of A^2)
};

/// Outputs of a solve. Arrays are C order over the pixels p = h * W + w of the rows solved:
/// `height` rows from cube row `row_begin` (all of them unless a row range was given).
struct Result {
  std::size_t n = 0, height = 0, width = 0;
  std::size_t row_begin = 0;     ///< the cube row of this result's row 0
  std::vector<double> solution;  ///< (N, H, W): solution[k * P + p]; NaN for status 3
  std::vector<float>
      residual;  ///< (H, W): sqrt(mean over observed i of (A_i.x - b_i)^2); NaN for status 3
  std::vector<std::int32_t> count;   ///< (H, W): observed entries m_p
  std::vector<std::uint8_t> status;  ///< (H, W): Status codes
  std::vector<float> condition;      ///< (H, W): condition estimate of [A_p; sqrt(lambda) I] (see
                                     ///< Solver); NaN for status 3
  std::array<std::uint64_t, 4> status_counts{};  ///< pixels per status code
  std::uint64_t fallback_pixels = 0;  ///< pixels with gaps solved by the SVD fallback (auto/normal)
  std::uint64_t shared_pixels = 0;    ///< pixels without gaps (solved through the shared SVD of A)
  std::uint64_t downdate_pixels = 0;  ///< pixels with gaps solved by the downdate
  std::uint64_t minnorm_pixels = 0;   ///< underdetermined pixels solved by the row Gram
  /// Pixels solved one by one on the host (Eigen, lsq_dense.cpp): the pixels with gaps of
  /// methods qr and svd, and the SVD fallbacks; on the CUDA back end, those the device did not
  /// solve (method_runs_on).
  std::uint64_t host_pixels = 0;
  int shared_rank = -1;  ///< numerical rank of A (of [A; sqrt(lambda) I]); -1 if unused
  double seconds = 0;    ///< wall time of solve()
  /// False when the maps stayed in device memory (Solver::keep_outputs_on_device): solution,
  /// residual, count, status and condition are then empty and Solver::device_output() holds
  /// them; the counts and dimensions above are set as usual.
  bool on_host = true;
  /// With on_host false: the solution's and the residual's values that are inf once rounded to
  /// float32, counted on the device; zeros otherwise.
  std::array<std::uint64_t, 2> device_inf{};
  /// Set when keep_outputs_on_device(true) was asked but the maps came back to the host because
  /// they would not fit in device memory: one line naming both sizes. Empty otherwise.
  std::string device_note;
  std::size_t pixels() const { return height * width; }
};

/// Device bytes of the maps that a solve of `n` unknowns over `pixels` pixels keeps on the
/// device (Solver::keep_outputs_on_device): the float64 solution (n x pixels x 8 bytes) plus
/// residual, condition, count (4 bytes each) and status (1 byte) per pixel.
double device_maps_bytes(std::size_t n, std::size_t pixels);

/// A least-squares solver. Implementations: CPU (OpenMP, the reference) and CUDA.
class Solver {
 public:
  virtual ~Solver() = default;
  virtual Backend backend() const = 0;
  /// Solves every pixel of `cube` against `design` (validate() first: throws simscope::Error on
  /// mismatched or invalid inputs before touching `out`). Resizes `out`'s arrays. The condition
  /// map: for pixels solved by Cholesky, sqrt of the Hager/Higham estimate of the 1-norm
  /// condition number of G_p = A_p^T A_p + lambda I (an estimate of the 2-norm condition number
  /// of [A_p; sqrt(lambda) I]; between about 0.5x and sqrt(N)x the exact value); for pixels
  /// solved by the downdate sqrt(cond2(G) est ||K^-1||_1), an upper estimate: between about
  /// 0.6x and cond2(G) s^(1/4) x the exact value (s = missing rows; lsq_downdate.hpp); for the
  /// minimum-norm path the Cholesky estimate on A_p A_p^T (+ lambda I) (lsq_downdate.hpp); for
  /// pixels solved by SVD the exact s_max / s_r over the retained singular values (>= 1).
  /// Progress in [0, 1]; throws simscope::Cancelled when cancelled (then `out` may be partly
  /// written), simscope::Error on device failures.
  void solve(const Cube& cube, const Design& design, const Options& options, Result& out,
             Progress* progress = nullptr) {
    solve(cube, design, IndexRange::all(), options, out, progress);
  }
  /// The same for the pixel rows [rows.begin, rows.end) of the cube only (a work range along H:
  /// in the (M, H, W) layout each observation's rows are contiguous, so a row range is one
  /// contiguous slab per observation): `out` holds those rows (height = the range's length,
  /// row_begin = rows.begin). Each pixel's outputs are bit-identical to the whole solve's on the
  /// CPU back end, so the results of consecutive ranges merged by merge_row_ranges() equal the
  /// unsplit result; on the CUDA back end they agree to the GEMMs' rounding (cuBLAS may sum in
  /// another order for another chunk width). Throws simscope::Error (`out` untouched) when the
  /// range is not within [0, cube.height), and as above.
  virtual void solve(const Cube& cube, const Design& design, const IndexRange& rows,
                     const Options& options, Result& out, Progress* progress = nullptr) = 0;
  /// CUDA only: peak device bytes allocated by this solver so far.
  virtual double peak_device_bytes() const { return 0; }
  /// CUDA only: solve() of every pixel with the cube in CUDA device memory (issue 15: a torch /
  /// CuPy CUDA tensor of the Python module), read in place: (M, H, W) float32/float64, any
  /// strides (a layout that is not C order is gathered into a C-order device buffer first),
  /// checked on the device (inf entries: the loader's message, lsq_device_cube.hpp), on the
  /// view's device, after the view's DeviceView::stream. Pixels that this solver solves on the
  /// host (methods qr/svd, fallbacks) need the cube there: it is then copied to the host once
  /// (host_staging_bytes()). Results as solve()'s. Throws simscope::InputError for a bad view
  /// or entry, simscope::Error as solve() does; the default (the CPU solver) throws
  /// simscope::Error "lsq: a cube in CUDA device memory needs the CUDA solver".
  virtual void solve_device(const DeviceView& cube, const Design& design, const Options& options,
                            Result& out, Progress* progress = nullptr);
  /// CUDA only: bytes of the device cube that the last solve_device() copied to the host (0: the
  /// cube never left the device).
  virtual double host_staging_bytes() const { return 0; }
  /// Asks a device solver to assemble the maps of later solves in device memory and leave them
  /// there (`keep`; false: copy them into the Result's vectors, the default): Result::on_host is
  /// false then and device_output() has them, unless they would not fit (device_maps_bytes();
  /// Result::device_note says so). Returns whether it will; the CPU solver returns false.
  virtual bool keep_outputs_on_device(bool /*keep*/) { return false; }
  /// CUDA only: the last solve's map `name` (an lsq::outputs() name) in device memory when it
  /// kept them there, C order as the Result's vector: "solution" float64 (float32 when the
  /// precision was fp32), "residual" and "condition" float32, "count" int32, "status" uint8.
  /// Null otherwise, or for an unknown name. Shared ownership: the memory stays allocated and
  /// unchanged while the pointer is held, whatever later solves do.
  virtual std::shared_ptr<const void> device_output(const std::string& /*name*/) const {
    return nullptr;
  }
  /// CUDA only: the CUDA device of device_output()'s memory (-1 on the CPU back end).
  virtual int device() const { return -1; }
};

/// Creates the solver for `backend`. Throws simscope::Error when the CUDA back end was not
/// compiled or cannot run. (The method is an Options field: one solver runs them all.)
std::unique_ptr<Solver> make_solver(Backend backend);

/// The results of consecutive row ranges of one cube (parts[k + 1].row_begin ==
/// parts[k].row_begin + parts[k].height; same n and width) as one Result from
/// parts[0].row_begin: maps and solution rows concatenated (the solution per component), counts
/// summed, shared_rank from the parts (-1 where unused), seconds summed. Throws simscope::Error
/// when the parts do not fit together or none is given.
Result merge_row_ranges(const std::vector<Result>& parts);

/// Checks a problem before solving: cube M == design M, 1 <= N <= kMaxUnknowns,
/// 1 <= M <= kMaxObservations, H, W >= 1, A finite, lambda finite and >= 0. Throws
/// simscope::Error with a one-line message naming the problem.
void validate(const Cube& cube, const Design& design, const Options& options);

// ---- inputs --------------------------------------------------------------------------------

/// Loads a cube from .npy: float32 or float64, shape (M, H, W) (C or Fortran order). NaN marks a
/// missing observation; +-Inf is refused (with its index). Refuses a cube larger than the
/// memory available (MemAvailable in /proc/meminfo) before reading it, naming both sizes.
/// Throws simscope::Error naming the file and the problem (dtype, number of dimensions, ...).
Cube load_cube(const std::string& path);

/// Loads A from .npy (any numeric dtype, shape (M, N); a 1-D array is one column) or CSV (M rows
/// of N numbers, optional header line). Throws simscope::Error naming the file: wrong shape,
/// non-finite entries (with their index), empty.
Design load_design(const std::string& path);
/// The cube / design matrix of an array as read from a .npy file (what load_cube /
/// load_design do after reading; the Python module passes numpy arrays through here): the same
/// checks and messages, `name` in place of the file name (no memory check: the array is
/// already in memory). The cube takes over `a`'s bytes (no copy).
Cube cube_from_npy(io::NpyArray a, const std::string& name);
/// A cube over `data` without a copy (Cube::borrowed): C order (M, H, W), native endian,
/// float32 or float64, aligned to its element; the caller keeps it alive and unchanged while
/// the cube is used. The checks and messages of cube_from_npy (empty shape, inf entries).
Cube borrow_cube(const void* data, io::DType dtype, std::size_t m, std::size_t height,
                 std::size_t width, const std::string& name);
Design design_from_npy(const io::NpyArray& a, const std::string& name);

/// Design matrices of the generator, shape (M, N), float64:
///  "random": standard normal entries (std::mt19937_64 with `seed`);
///  "polynomial": Legendre polynomials P_k(t_i), k < N, at M equispaced t_i in [-1, 1];
///  "gaussian_bands": N Gaussian bands exp(-((t_i - c_k) / w)^2 / 2) with centres c_k
///  equispaced over [0, 1], t_i equispaced over [0, 1], w = 0.7 / N (overlapping neighbours).
/// Throws simscope::Error on an unknown kind or m, n < 1.
Design make_design(const std::string& kind, std::size_t m, std::size_t n, std::uint64_t seed);

/// A synthetic problem: smooth "abundance" maps x_k(h, w) (a sum of three random low-frequency
/// 2-D cosines per component, amplitude ~1), b = A x + N(0, noise^2), then each entry NaN with
/// probability nan_fraction; float32 cube. `truth` holds the maps, (N, H, W).
struct Synth {
  Cube cube;
  Design design;
  std::vector<double> truth;
};
struct SynthSpec {
  std::size_t height = 256, width = 256, m = 100, n = 50;
  double nan_fraction = 0.2, noise = 0.01;
  std::uint64_t seed = 1;
  std::string design = "random";
};
/// Deterministic for a given spec. Uses `design` instead of make_design(...) when it is given
/// (then spec.m and spec.n are ignored). Throws simscope::Error on invalid sizes, or when the cube
/// would not fit in the available memory.
Synth generate(const SynthSpec& spec, const Design* design = nullptr);

/// Available host memory in bytes (MemAvailable of /proc/meminfo; physical memory if absent).
double available_host_bytes();

// ---- outputs -------------------------------------------------------------------------------

/// The exported outputs, in export order, the one list of them (the schema's `view` choices and
/// the run layer's descriptor come from it): "solution" (x, float64; float32 when
/// precision=fp32), "residual" (RMS residual, float32), "count" (observed rows, int32),
/// "status" (uint8) and "condition" (float32).
const std::vector<io::OutputSpec>& outputs();

}  // namespace simscope::lsq
