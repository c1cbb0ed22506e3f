#pragma once
/// @file The `lsq` workload: per-pixel linear least squares with missing data.
///
/// A data cube b of shape (M, H, W) holds M observations for each of P = H x W pixels; NaN marks
/// a missing observation. A design matrix A of shape (M, N) is shared by all pixels. For each
/// pixel p with observed rows O_p, m_p = |O_p| of them, the solver returns
///
///     x_p = argmin_x  sum_{i in O_p} (A_i . x - b_ip)^2 + lambda |x|^2    (Tikhonov, lambda >= 0)
///
/// When that minimiser is not unique (lambda = 0 and rank(A_p) < N, A_p = the observed rows of
/// A), it returns the one of minimum norm, x_p = pinv(A_p) b_p. A regularised problem is a plain
/// least-squares problem with the augmented matrix [A_p; sqrt(lambda) I] and right-hand side
/// [b_p; 0]. "rank" and "condition" below refer to that matrix, or to A_p for lambda = 0.
///
/// Per-pixel status codes (status map, uint8):
///   0 ok              unique solution, rank N
///   1 underdetermined 0 < m_p < N: fewer observed rows than unknowns. With lambda = 0 the
///                     minimum-norm solution pinv(A_p) b_p is returned; with lambda > 0 the
///                     unique Tikhonov solution.
///   2 rank-deficient  m_p >= N but the augmented matrix has numerical rank < N: the minimum-norm
///                     solution is returned. Numerical rank = the number of singular values
///                     s_i > max(rows, N) * eps(float64) * s_max, numpy.linalg.lstsq's default
///                     rcond; rows = m_p, plus N with lambda > 0. Methods auto and normal decide
///                     it by a float64 SVD in any precision; qr and svd decide it in the working
///                     precision with its eps.
///   3 all missing     m_p = 0: solution and residual are NaN, condition is NaN, count 0.
///
/// Algorithm of method auto. Sources: Golub & Van Loan, "Matrix Computations", 4th ed., 4.2
/// (Cholesky), 5.3 (normal equations and their accuracy), 5.4-5.5 (SVD, minimum-norm and
/// rank-deficient least squares); Bjorck, "Numerical Methods for Least Squares Problems", 2.5
/// and 6.6 (corrected semi-normal equations, iterative refinement); Higham, "Accuracy and
/// Stability of Numerical Algorithms", 15.3 (the 1-norm condition estimator of LAPACK's xPOCON
/// and xLACN2).
///  - Gram matrices: G_p = A^T diag(w_p) A + lambda I for every pixel, w_ip = 1 where observed.
///    This is the Khatri-Rao product W^T K restricted to one row of W. W is 0/1, so the
///    product is the sum of the symmetric rank-1 terms a_i a_i^T over the observed rows, or the
///    full A^T A minus the terms of the missing rows, whichever list is shorter. Cost:
///    min(m_p, M - m_p) N(N+1)/2 multiply-adds per pixel instead of M N(N+1)/2.
///  - Cholesky G_p = L L^T in the working precision, fp32 or fp64. A pivot <= N eps max(diag G)
///    is a breakdown. The 1-norm condition number of G_p is estimated from L (Hager/Higham).
///  - Solve L L^T x = A_p^T b_p, then one step of iterative refinement with the residual
///    r = b_p - A_p x computed in float64 from the float64 design matrix:
///    x += (L L^T)^-1 (A_p^T r - lambda x). In fp32 the relative error after the step is about
///    (eps32 cond(G))^2 + eps64 cond(A_p), instead of eps32 cond(G) (Bjorck 6.6.5).
///  - Fallback: pixels whose Cholesky breaks down, whose estimated cond(G) exceeds
///    fallback_condition() (1e10 in fp64, 1e5 in fp32), or that are underdetermined with
///    lambda = 0, are solved by a float64 SVD of A_p (Eigen's JacobiSVD) with the rank rule
///    above. Their condition is the exact s_max / s_r over the retained singular values.
///  - Pixels without gaps share one float64 SVD of A: x_p = V diag(s_i / (s_i^2 + lambda)) U^T
///    b_p for all of them as one matrix product; rank and condition are decided once.
///  - CPU, methods auto and normal: pixels with gaps whose observed rows are the same as those
///    of at least 15 other pixels of their band of 256 cube pixels (the cube's pixels
///    [256 k, 256 (k + 1)), whatever rows are solved) share one float64 SVD of those rows the
///    same way: status, condition and solution as the SVD fallback's definitions, made once per
///    pattern and solve (compute/lsq/cpu/pattern.hpp).
/// Methods normal, qr, svd and downdate: see Method.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/big_vector.hpp"
#include "core/device_view.hpp"
#include "core/precision.hpp"
#include "core/progress.hpp"
#include "core/range.hpp"
#include "io/npy.hpp"
#include "io/output_spec.hpp"

namespace simscope::lsq {

/// Largest number of unknowns N. The Gram matrix has N(N+1)/2 distinct entries per pixel.
constexpr std::size_t kMaxUnknowns = 128;
/// Largest number of observations M.
constexpr std::size_t kMaxObservations = 65536;

/// Working precision of the per-pixel Gram matrices, Cholesky factors and condition estimates;
/// core/precision.hpp's type. Always float64: vectors (right-hand sides, residuals, solutions),
/// the shared SVD of A, the fallback SVDs and the refinement residual; but an Fp32 solve with
/// Options::float32_solution (the run layer's) sums the gap-free pixels' solutions from float32
/// products on the CPU (cpu/shared_block.hpp).
/// Fp64, the default: relative errors around 1e-12 on well-conditioned pixels.
/// Fp32: halves the memory traffic and doubles the SIMD width of the O(N^3) part. After the
/// refinement step it gives ~1e-7 on pixels with cond(A_p) <= 1e3. Pixels beyond cond(G) = 1e5
/// go to the float64 SVD.
using Precision = simscope::Precision;

/// How each pixel with gaps is solved.
///   Auto:   Cholesky of the normal equations plus one refinement step. SVD fallback for
///           breakdowns, poor condition and underdetermined pixels (see the file comment).
///           The default.
///   Normal: Cholesky of the normal equations without refinement. Only breakdowns, numerically
///           singular factors (estimated cond(G) > 0.1 / eps) and underdetermined pixels with
///           lambda = 0 go to the SVD. Fastest; error ~ eps cond(A_p)^2.
///   Qr:     column-pivoted Householder QR, i.e. complete orthogonal decomposition of
///           [A_p; sqrt(lambda) I] per pixel (Eigen's CompleteOrthogonalDecomposition, threshold
///           max(m_p, N) eps), in the working precision. Minimum-norm when rank-deficient. The
///           condition reported is s_max / s_r of its rank x rank triangular factor T, whose
///           singular values are the retained ones of the augmented matrix; computed exactly by
///           a values-only JacobiSVD of T. Slow: tens of microseconds per pixel.
///   Svd:    JacobiSVD per pixel in the working precision, rank rule with that precision's eps.
///           Exact condition. Slowest.
///   Downdate: the Sherman-Morrison-Woodbury downdate of G = A^T A + lambda I, factored once
///           (lsq_downdate.hpp), for every pixel with gaps, in float64 whatever the precision.
///           To the float64 SVD go pixels whose K = I - C_SS is not definite or whose estimated
///           cond2(G_p) exceeds 1e10, and every pixel when G is singular, cond2(G) > 1e10 or
///           M > 1024. One refinement step where the estimated cond2(G_p) > 1e4.
///           Auto also uses it per pixel where its cost model says it is cheaper.
/// Method auto per pixel with gaps, CPU back end:
///  - underdetermined pixels (m_p < N) take the minimum-norm path
///    x = A_p^T (A_p A_p^T + lambda I)^-1 b_p, with the row Gram gathered from A A^T in float64.
///    Its Cholesky pivots are the rank test; rank-deficient or ill-conditioned rows go to the SVD.
///  - the others take the downdate or the Gram path above, whichever the cost model
///    (detail::downdate_cost and gram_cost, in multiply-adds) finds cheaper.
/// Both small paths work in float64 in either precision: an fp32 solve hands them to a float64
/// group solver, which is faster than the fp32 Gram path and gives float64 accuracy. The Gram
/// path works in the precision asked for. The CUDA back end picks by the same rule in
/// cuda/classify_kernel.cuh. Its small kernel (cuda/small_kernel.cu) takes sizes up to what
/// one warp's shared memory holds. Larger downdate pixels go to its Gram path under auto and to
/// the SVD under downdate.
/// Pixels without gaps use the shared SVD of A whatever the method.
enum class Method { Auto, Normal, Qr, Svd, Downdate };
/// "auto", "normal", "qr", "svd", "downdate": the schema's strings.
const char* to_string(Method m);

/// Where `method`'s per-pixel solves of the pixels with gaps run when `backend` is selected,
/// for run.json and the status bar:
///  - Qr and Svd: Backend::Cpu (the host, Eigen: lsq_dense.cpp) on every back end. The CUDA
///    solver then does only the mask, the pixels without gaps and the empty ones on the device.
///  - Auto, Normal and Downdate: `backend`. Their SVD fallback pixels also run on the host;
///    Result::host_pixels counts both kinds.
Backend method_runs_on(Method method, Backend backend);

/// Per-pixel status codes; see the file comment.
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
/// its file's dtype, float32 or float64, so memory holds one copy of the cube.
struct Cube {
  std::size_t m = 0, height = 0, width = 0;
  io::DType dtype = io::DType::Float64;  ///< Float32 or Float64
  std::vector<std::uint8_t> bytes;       ///< m * height * width values, native endian
  /// Non-null: the values live in memory the caller owns, not in `bytes` (borrow_cube, e.g. a
  /// numpy array of the Python module). The caller keeps it alive and unchanged while the cube,
  /// or a copy, which borrows the same memory, is used.
  const std::uint8_t* borrowed = nullptr;
  /// Non-empty: the cube's +-inf entries are not refused yet (borrow_cube with defer_inf), and
  /// Solver::solve refuses them, with refuse_inf_entries' message under this name. The CPU
  /// solver finds them in the pass that counts each pixel's observed rows, not in a pass of its
  /// own.
  std::string inf_unchecked;
  /// Changes whenever the content changes; caches key on it. 0 means unknown.
  std::uint64_t generation = 0;

  std::size_t pixels() const { return height * width; }
  std::size_t size() const { return m * pixels(); }
  /// The values: `borrowed` when set, else `bytes`.
  const std::uint8_t* data() const { return borrowed ? borrowed : bytes.data(); }
  /// Bytes of values held: size() * 4 or 8 for a consistent cube.
  std::size_t stored_bytes() const {
    return borrowed ? size() * (dtype == io::DType::Float32 ? 4 : 8) : bytes.size();
  }
  const float* f32() const { return reinterpret_cast<const float*>(data()); }
  const double* f64() const { return reinterpret_cast<const double*>(data()); }
  /// Observation i of pixel p = h * W + w, as double.
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
  /// CPU solver: write the solution rounded once to float32 into Result::solution32 and leave
  /// Result::solution empty (the run layer's fp32 outputs, exported as float32); with
  /// Precision::Fp32 the gap-free pixels' are summed from float32 products instead. Other
  /// solvers ignore it and fill Result::solution.
  bool float32_solution = false;
};

/// Outputs of a solve. Arrays are C order over the pixels p = h * W + w of the rows solved:
/// `height` rows from cube row `row_begin`; all rows unless a row range was given.
struct Result {
  std::size_t n = 0, height = 0, width = 0;
  std::size_t row_begin = 0;     ///< the cube row of this result's row 0
  /// (N, H, W): solution[k * P + p]; NaN for status 3. Not zeroed before the solve writes it
  /// (BigVector). Empty when solution32 holds it.
  BigVector<double> solution;
  /// Options::float32_solution on the CPU: the solution rounded to float32, same layout.
  BigVector<float> solution32;
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
  /// CPU, methods auto and normal: pixels with gaps solved by a shared pattern's operator.
  std::uint64_t pattern_pixels = 0;
  /// Pixels solved one by one on the host (Eigen, lsq_dense.cpp): the pixels with gaps of
  /// methods qr and svd, and the SVD fallbacks. On the CUDA back end, those the device does not
  /// solve (method_runs_on).
  std::uint64_t host_pixels = 0;
  int shared_rank = -1;  ///< numerical rank of A (of [A; sqrt(lambda) I]); -1 if unused
  double seconds = 0;    ///< wall time of solve()
  /// False when the maps stayed in device memory (Solver::keep_outputs_on_device). Solution,
  /// residual, count, status and condition are then empty and Solver::device_output() holds
  /// them. The counts and dimensions above are set as usual.
  bool on_host = true;
  /// With on_host false: the counts of the solution's and the residual's values that are inf
  /// once rounded to float32, counted on the device. Zeros otherwise.
  std::array<std::uint64_t, 2> device_inf{};
  /// The CPU solver's counts of the solution's and the residual's values that are inf once
  /// rounded to float32, made as it writes them; host_inf_counted says they are set (else the
  /// reader counts).
  std::array<std::uint64_t, 2> host_inf{};
  bool host_inf_counted = false;
  /// Set when keep_outputs_on_device(true) was asked but the maps are on the host because they
  /// would not fit in device memory: one line naming both sizes. Empty otherwise.
  std::string device_note;
  std::size_t pixels() const { return height * width; }
};

/// Device bytes of the maps that a solve of `n` unknowns over `pixels` pixels keeps on the
/// device (Solver::keep_outputs_on_device). Per pixel: the float64 solution, n x 8 bytes, plus
/// residual, condition and count at 4 bytes each and status at 1 byte.
double device_maps_bytes(std::size_t n, std::size_t pixels);

/// A least-squares solver. Implementations: CPU with OpenMP, the reference, and CUDA.
class Solver {
 public:
  virtual ~Solver() = default;
  virtual Backend backend() const = 0;
  /// Solves every pixel of `cube` against `design` and resizes `out`'s arrays. Calls validate()
  /// first, so it throws simscope::Error on mismatched or invalid inputs before touching `out`;
  /// also for an inf entry of a cube with Cube::inf_unchecked (refuse_unchecked_inf).
  /// The condition map:
  ///  - Cholesky pixels: sqrt of the Hager/Higham estimate of the 1-norm condition number of
  ///    G_p = A_p^T A_p + lambda I. This estimates the 2-norm condition number of
  ///    [A_p; sqrt(lambda) I] to between about 0.5x and sqrt(N)x the exact value.
  ///  - downdate pixels: sqrt(cond2(G) est ||K^-1||_1), an upper estimate between about 0.6x and
  ///    cond2(G) s^(1/4) x the exact value, s = missing rows (lsq_downdate.hpp).
  ///  - minimum-norm path: the Cholesky estimate on A_p A_p^T + lambda I (lsq_downdate.hpp).
  ///  - SVD pixels: the exact s_max / s_r over the retained singular values, >= 1.
  /// Reports progress in [0, 1]. Throws simscope::Cancelled when cancelled; `out` may then be
  /// partly written. Throws simscope::Error on device failures.
  void solve(const Cube& cube, const Design& design, const Options& options, Result& out,
             Progress* progress = nullptr) {
    solve(cube, design, IndexRange::all(), options, out, progress);
  }
  /// The same for the pixel rows [rows.begin, rows.end) of the cube only: a work range along H.
  /// In the (M, H, W) layout a row range is one contiguous slab per observation. `out` holds
  /// those rows: height = the range's length, row_begin = rows.begin.
  /// CPU: each pixel's outputs are bit-identical to the whole solve's, so consecutive ranges
  /// merged by merge_row_ranges() equal the unsplit result. CUDA: they agree to the GEMMs'
  /// rounding, since cuBLAS may sum in another order for another chunk width.
  /// Throws simscope::Error, `out` untouched, when the range is not within [0, cube.height),
  /// and as above.
  virtual void solve(const Cube& cube, const Design& design, const IndexRange& rows,
                     const Options& options, Result& out, Progress* progress = nullptr) = 0;
  /// CUDA only: peak device bytes allocated by this solver so far.
  virtual double peak_device_bytes() const { return 0; }
  /// CUDA only: solve() of every pixel with the cube in CUDA device memory, read in place, e.g.
  /// a torch or CuPy CUDA tensor of the Python module. The view is (M, H, W) float32/float64
  /// with any strides; a layout that is not C order is first gathered into a C-order device
  /// buffer. Checked on the device for inf entries, with the loader's message
  /// (lsq_device_cube.hpp), on the view's device, after the view's DeviceView::stream.
  /// Pixels this solver solves on the host (methods qr/svd, fallbacks) need the cube there; it
  /// is then copied to the host once (host_staging_bytes()). Results as solve()'s. Throws
  /// simscope::InputError for a bad view or entry, simscope::Error as solve() does. The default
  /// (the CPU solver) throws simscope::Error "lsq: a cube in CUDA device memory needs the CUDA
  /// solver".
  virtual void solve_device(const DeviceView& cube, const Design& design, const Options& options,
                            Result& out, Progress* progress = nullptr);
  /// CUDA only: bytes of the device cube that the last solve_device() copied to the host. 0 when
  /// the cube never left the device.
  virtual double host_staging_bytes() const { return 0; }
  /// Asks a device solver to assemble the maps of later solves in device memory and leave them
  /// there when `keep` is true; false copies them into the Result's vectors, the default. Then
  /// Result::on_host is false and device_output() has them, unless they would not fit
  /// (device_maps_bytes()); Result::device_note then says so. Returns whether it will. The CPU
  /// solver returns false.
  virtual bool keep_outputs_on_device(bool /*keep*/) { return false; }
  /// CUDA only: the last solve's map `name`, an lsq::outputs() name, in device memory when the
  /// solve kept them there. C order as the Result's vector. "solution" float64, or float32 when
  /// the precision was fp32; "residual" and "condition" float32; "count" int32; "status" uint8.
  /// Null otherwise or for an unknown name. Shared ownership: the memory stays allocated and
  /// unchanged while the pointer is held, whatever later solves do.
  virtual std::shared_ptr<const void> device_output(const std::string& /*name*/) const {
    return nullptr;
  }
  /// CUDA only: the CUDA device of device_output()'s memory. -1 on the CPU back end.
  virtual int device() const { return -1; }
};

/// Creates the solver for `backend`. One solver runs every method; the method is an Options
/// field. Throws simscope::Error when the CUDA back end is not compiled or cannot run.
std::unique_ptr<Solver> make_solver(Backend backend);

/// Merges results of consecutive row ranges of one cube into one Result starting at
/// parts[0].row_begin. Consecutive: parts[k + 1].row_begin == parts[k].row_begin +
/// parts[k].height, with the same n and width. Maps and solution rows are concatenated, the
/// solution per component. Counts and seconds are summed; shared_rank comes from the parts, -1
/// where unused. Throws simscope::Error when the parts do not fit together or none is given.
Result merge_row_ranges(const std::vector<Result>& parts);

/// Checks a problem before solving: cube M == design M, 1 <= N <= kMaxUnknowns,
/// 1 <= M <= kMaxObservations, H, W >= 1, A finite, lambda finite and >= 0. Throws
/// simscope::Error with a one-line message naming the problem.
void validate(const Cube& cube, const Design& design, const Options& options);

// ---- inputs --------------------------------------------------------------------------------

/// Loads a cube from .npy: float32 or float64, shape (M, H, W), C or Fortran order. NaN marks a
/// missing observation; +-Inf is refused with its index. Before reading, refuses a cube larger
/// than the memory available (MemAvailable in /proc/meminfo), naming both sizes.
/// Throws simscope::Error naming the file and the problem, e.g. dtype or number of dimensions.
/// refuse_inf false leaves the +-Inf check to the caller (refuse_inf_entries), for a mask that
/// may mark those entries missing first (apply_observed_mask).
Cube load_cube(const std::string& path, bool refuse_inf = true);
/// Throws simscope::Error "NAME: entry [i, h, w] is inf; only NaN may mark a missing
/// observation" for the first +-Inf entry of `cube`; sets a fresh generation.
void refuse_inf_entries(Cube& cube, const std::string& name);
/// refuse_inf_entries' check for a cube whose check was deferred (Cube::inf_unchecked, under
/// that name); nothing for other cubes.
void refuse_unchecked_inf(const Cube& cube);

/// Loads A from .npy or CSV. .npy: any numeric dtype, shape (M, N); a 1-D array is one column.
/// CSV: M rows of N numbers, optional header line. Throws simscope::Error naming the file:
/// wrong shape, non-finite entries with their index, empty.
Design load_design(const std::string& path);
/// The cube or design matrix of an array as read from a .npy file. load_cube and load_design
/// use them after reading; the Python module passes numpy arrays through them. Same checks and
/// messages, `name` in place of the file name; no memory check, since the array is already in
/// memory. The cube takes over `a`'s bytes without a copy.
Cube cube_from_npy(io::NpyArray a, const std::string& name, bool refuse_inf = true);
/// A cube over `data` without a copy (Cube::borrowed): C order (M, H, W), native endian,
/// float32 or float64, aligned to its element. The caller keeps it alive and unchanged while
/// the cube is used. Checks and messages as cube_from_npy: empty shape, inf entries; with
/// `defer_inf` the inf entries are left to Solver::solve (Cube::inf_unchecked).
Cube borrow_cube(const void* data, io::DType dtype, std::size_t m, std::size_t height,
                 std::size_t width, const std::string& name, bool defer_inf = false);
Design design_from_npy(const io::NpyArray& a, const std::string& name);

/// Design matrices of the generator, shape (M, N), float64:
///  "random": standard normal entries (std::mt19937_64 with `seed`);
///  "polynomial": Legendre polynomials P_k(t_i), k < N, at M equispaced t_i in [-1, 1];
///  "gaussian_bands": N Gaussian bands exp(-((t_i - c_k) / w)^2 / 2) with centres c_k
///  equispaced over [0, 1], t_i equispaced over [0, 1], w = 0.7 / N (overlapping neighbours).
/// Throws simscope::Error on an unknown kind or m, n < 1.
Design make_design(const std::string& kind, std::size_t m, std::size_t n, std::uint64_t seed);

/// A synthetic problem: smooth "abundance" maps x_k(h, w), each a sum of three random
/// low-frequency 2-D cosines per component with amplitude ~1; b = A x + N(0, noise^2); then each
/// entry NaN with probability nan_fraction. Float32 cube. `truth` holds the maps, (N, H, W).
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
/// Deterministic for a given spec. Uses `design` instead of make_design(...) when given; then
/// spec.m and spec.n are ignored. Throws simscope::Error on invalid sizes, or when the cube
/// would not fit in the available memory.
Synth generate(const SynthSpec& spec, const Design* design = nullptr);

/// Available host memory in bytes: MemAvailable of /proc/meminfo, else physical memory.
double available_host_bytes();

// ---- outputs -------------------------------------------------------------------------------

/// The exported outputs in export order; the schema's `view` choices and the run layer's
/// descriptor come from this list. "solution": x, float64, or float32 with precision=fp32.
/// "residual": RMS residual, float32. "count": observed rows, int32. "status": uint8.
/// "condition": float32.
const std::vector<io::OutputSpec>& outputs();

}  // namespace simscope::lsq
