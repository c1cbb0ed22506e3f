// The CPU lsq solver against numpy.linalg.lstsq / pinv (float64, per pixel) and against the
// closed forms: random cubes with gaps, underdetermined and rank-deficient designs, all-missing
// pixels, Tikhonov, ill-conditioned pixels (SVD fallback), every method and precision.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>

#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::error_of;
using test::name;
using test::npy_values;
using test::opts;
using test::pixel_error;
using test::run_numpy;

constexpr Method kMethods[] = {Method::Auto, Method::Normal, Method::Qr, Method::Svd};
constexpr Precision kPrecisions[] = {Precision::Fp64, Precision::Fp32};

Result solve(const Cube& c, const Design& d, const Options& o) {
  Result r;
  make_solver(Backend::Cpu)->solve(c, d, o, r);
  return r;
}

/// numpy's per-pixel lstsq of a random (M, H, W) cube with 30 % NaNs, written by numpy, with
/// special pixels: (0,0) all missing, (0,1) 3 observed rows (< N), (0,2) rows 4..6 only.
class LsqNumpy : public ::testing::Test {
 protected:
  static constexpr std::size_t M = 14, N = 5, H = 6, W = 7;
  static void SetUpTestSuite() {
    ok_ = run_numpy(R"(
rng = np.random.default_rng(7)
M, N, H, W = 14, 5, 6, 7
A = rng.standard_normal((M, N))
b = (A @ rng.standard_normal((N, H * W))).reshape(M, H, W) + 0.3 * rng.standard_normal((M, H, W))
b[rng.random((M, H, W)) < 0.3] = np.nan
b[:, 0, 0] = np.nan
b[3:, 0, 1] = np.nan
b[:4, 0, 2] = np.nan; b[7:, 0, 2] = np.nan
np.save(d + '/cube64.npy', b)
np.save(d + '/cube32.npy', b.astype(np.float32))
np.savetxt(d + '/A.csv', A, delimiter=',', header='a0,a1,a2,a3,a4', comments='', fmt='%.17g')
np.save(d + '/A.npy', A)
np.save(d + '/condG.npy', np.array([np.linalg.cond(A.T @ A)]))  # cond2(G): the downdate's bound
for tag, cube in (('64', b), ('32', b.astype(np.float32).astype(np.float64))):
    X = np.full((N, H, W), np.nan); R = np.full((H, W), np.nan)
    C = np.zeros((H, W), np.int32); K = np.full((H, W), np.nan)
    for h in range(H):
        for w in range(W):
            obs = ~np.isnan(cube[:, h, w]); C[h, w] = obs.sum()
            if C[h, w] == 0: continue
            Ap, bp = A[obs], cube[obs, h, w]
            x = np.linalg.lstsq(Ap, bp, rcond=None)[0]
            X[:, h, w] = x; R[h, w] = np.sqrt(np.mean((Ap @ x - bp) ** 2)); K[h, w] = np.linalg.cond(Ap)
    np.save(d + '/x' + tag + '.npy', X); np.save(d + '/res' + tag + '.npy', R)
    np.save(d + '/count' + tag + '.npy', C); np.save(d + '/cond' + tag + '.npy', K)
)") == 0;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "numpy (" << SIMSCOPE_PYTHON << ") is needed for this test";
  }
  static bool ok_;
};
bool LsqNumpy::ok_ = false;

TEST_F(LsqNumpy, EveryMethodAndPrecisionAgainstLstsq) {
  const Design design = load_design((test::tmp_dir() / "A.npy").string());
  const Design csv = load_design((test::tmp_dir() / "A.csv").string());
  ASSERT_EQ(csv.a, design.a);  // %.17g round-trips
  for (const char* tag : {"64", "32"}) {
    const Cube cube = load_cube((test::tmp_dir() / (std::string("cube") + tag + ".npy")).string());
    EXPECT_EQ(cube.dtype, tag[0] == '6' ? io::DType::Float64 : io::DType::Float32);
    ASSERT_EQ(cube.m, M);
    ASSERT_EQ(cube.height, H);
    ASSERT_EQ(cube.width, W);
    const auto xref = npy_values(std::string("x") + tag + ".npy");
    const auto rref = npy_values(std::string("res") + tag + ".npy");
    const auto cref = npy_values(std::string("count") + tag + ".npy");
    const auto kref = npy_values(std::string("cond") + tag + ".npy");
    const double cond_g = npy_values("condG.npy").at(0);
    for (Method m : kMethods)
      for (Precision prec : kPrecisions) {
        SCOPED_TRACE(std::string("cube float") + tag + ", method " + name(m) + ", " + name(prec));
        const Result r = solve(cube, design, opts(m, prec));
        ASSERT_EQ(r.solution.size(), N * H * W);
        double worst = 0, lo_ratio = INFINITY, hi_ratio = 0;
        int checked = 0;
        for (std::size_t p = 0; p < H * W; ++p) {
          EXPECT_EQ(r.count[p], int(cref[p])) << p;
          if (cref[p] == 0) {
            EXPECT_EQ(r.status[p], kAllMissing);
            EXPECT_TRUE(std::isnan(r.solution[p]) && std::isnan(r.residual[p]) &&
                        std::isnan(r.condition[p]));
            continue;
          }
          EXPECT_EQ(r.status[p], cref[p] < double(N) ? kUnderdetermined : kOk) << p;
          // README's accuracies at their own bounds: fp64 <= 1e-12 (every pixel here); fp32 <= 1e-6
          // where cond <= 10 and 1e-3 up to cond 1e3, except method=normal (a float Gram matrix,
          // no refinement): about cond^2 x 2^-24, tested at 8 cond^2 2^-24 (capped at 1e-3).
          const bool judged = prec == Precision::Fp64 || kref[p] <= 1e3;
          if (!judged) continue;
          const double e = pixel_error(r, xref, p);
          worst = std::max(worst, e);
          ++checked;
          const double cond2 = 8 * kref[p] * kref[p] * std::ldexp(1.0, -24);
          const double bound = prec == Precision::Fp64 ? 1e-12
                               : m == Method::Normal   ? std::min(1e-3, std::max(1e-6, cond2))
                               : kref[p] <= 10         ? 1e-6
                                                       : 1e-3;
          EXPECT_LE(e, bound) << "pixel " << p << " cond " << kref[p];
          EXPECT_NEAR(r.residual[p], rref[p], 1e-5 * std::max(1.0, rref[p])) << p;
          // Condition (README): exact from an SVD (svd; qr through the SVD of its triangular
          // factor); from the Cholesky path within 0.5x..sqrt(N)x (the upper bound is a theorem:
          // the estimate of cond1(G_p) is a lower bound of it, and cond1 <= N cond2 for a
          // symmetric matrix; the lower one is Hager's usual underestimate); auto's downdate
          // pixels within 0.5x..cond2(G) s^(1/4)x, s missing rows (lsq_downdate.hpp).
          const double ratio = double(r.condition[p]) / kref[p];
          const double s_missing = double(M) - cref[p];
          if (m == Method::Svd || m == Method::Qr) {
            EXPECT_NEAR(ratio, 1.0, 1e-3) << p;
          } else {
            const double hi = m == Method::Auto
                                  ? std::max(std::sqrt(double(N)), cond_g * std::pow(s_missing, 0.25))
                                  : std::sqrt(double(N));
            EXPECT_GE(ratio, 0.5) << p;
            EXPECT_LE(ratio, hi * (1 + 1e-4)) << p;
          }
          lo_ratio = std::min(lo_ratio, ratio), hi_ratio = std::max(hi_ratio, ratio);
        }
        EXPECT_GT(checked, int(H * W) / 2);
        EXPECT_EQ(r.status_counts[kAllMissing], 1u);
        EXPECT_GE(r.status_counts[kUnderdetermined], 2u);
        std::printf("[ lsq      ] float%s %s %s: max rel error %.2e over %d pixels, condition "
                    "ratio %.2f..%.2f\n", tag, name(m), name(prec), worst, checked, lo_ratio,
                    hi_ratio);
      }
  }
}

/// The original case (b): A of shape (50, 100), no gaps: A^T A is 100 x 100 of rank 50.
TEST(LsqCpu, UnderdeterminedOriginalCaseMatchesPinv) {
  ASSERT_EQ(run_numpy(R"(
rng = np.random.default_rng(3)
A = rng.standard_normal((50, 100))
b = rng.standard_normal((50, 4, 5))
np.save(d + '/u_A.npy', A); np.save(d + '/u_b.npy', b)
np.save(d + '/u_x.npy', np.tensordot(np.linalg.pinv(A), b, axes=1))
)"),
            0);
  const Design design = load_design((test::tmp_dir() / "u_A.npy").string());
  const Cube cube = load_cube((test::tmp_dir() / "u_b.npy").string());
  const auto xref = npy_values("u_x.npy");
  for (Method m : kMethods)
    for (Precision prec : kPrecisions) {
      SCOPED_TRACE(std::string(name(m)) + " " + name(prec));
      const Result r = solve(cube, design, opts(m, prec));
      EXPECT_EQ(r.status_counts[kUnderdetermined], 20u);
      EXPECT_EQ(r.shared_pixels, 20u);
      EXPECT_EQ(r.shared_rank, 50);
      for (std::size_t p = 0; p < 20; ++p) {
        EXPECT_EQ(r.status[p], kUnderdetermined);
        // README: the minimum-norm solution ~1e-14 in fp64 (float64 in either precision).
        EXPECT_LE(pixel_error(r, xref, p), 1e-12) << p;
        EXPECT_LE(r.residual[p], 1e-9) << p;            // an exact fit
        EXPECT_TRUE(std::isfinite(r.condition[p]));
      }
    }
}

/// Gap-free pixels (SharedBlock) among pixels with one gap each, so their runs are cut
/// anywhere, across bands of 256 pixels, against numpy's float64 pinv / closed-form Tikhonov:
/// solution and RMS residual (from the residual operator where M < N, else from A x), for a
/// full-row-rank A, one of rank 6 (each row twice: dropped singular values, residuals not 0)
/// and an overdetermined one, lambda 0 and 0.7, float64 and float32 cubes, both precisions.
TEST(LsqCpu, GapFreePixelsAmongGapsMatchNumpy) {
  ASSERT_EQ(run_numpy(R"(
rng = np.random.default_rng(42)
designs = {'row': rng.standard_normal((12, 20)),
           'low': np.tile(rng.standard_normal((6, 20)), (2, 1)),
           'tall': rng.standard_normal((30, 9))}
for tag, A in designs.items():
    M, N = A.shape
    b = rng.standard_normal((M, 3, 301))
    gap = rng.random((3, 301)) < 0.15
    b[rng.integers(0, M, 903).reshape(3, 301)[gap], np.nonzero(gap)[0], np.nonzero(gap)[1]] = np.nan
    np.save(d + '/gf_%s_A.npy' % tag, A)
    for dt in ('64', '32'):
        c = b.astype(np.float32) if dt == '32' else b
        np.save(d + '/gf_%s_b%s.npy' % (tag, dt), c)
        B = c.astype(np.float64).reshape(M, -1)
        for lam in (0.0, 0.7):
            if lam == 0:
                X = np.linalg.pinv(A, rcond=1e-10) @ B
            else:
                X = np.linalg.solve(A.T @ A + lam * np.eye(N), A.T @ B)
            res = np.sqrt(np.mean((A @ X - B) ** 2, axis=0))
            np.save(d + '/gf_%s_%s_%g_x.npy' % (tag, dt, lam), X)
            np.save(d + '/gf_%s_%s_%g_r.npy' % (tag, dt, lam), res)
)"),
            0);
  for (const char* tag : {"row", "low", "tall"})
    for (const char* dt : {"64", "32"})
      for (double lambda : {0.0, 0.7})
        for (Precision prec : kPrecisions) {
          SCOPED_TRACE(std::string(tag) + " float" + dt + " lambda " + std::to_string(lambda) +
                       " " + name(prec));
          const std::string base = std::string("gf_") + tag + "_";
          const Design d = load_design((test::tmp_dir() / (base + "A.npy")).string());
          const Cube c = load_cube((test::tmp_dir() / (base + "b" + dt + ".npy")).string());
          const std::string ref = base + dt + "_" + (lambda == 0 ? "0" : "0.7");
          const auto x = npy_values(ref + "_x.npy"), res = npy_values(ref + "_r.npy");
          const Result r = solve(c, d, opts(Method::Auto, prec, lambda));
          const std::size_t P = c.pixels();
          std::size_t gap_free = 0;
          for (std::size_t p = 0; p < P; ++p) {
            if (std::size_t(r.count[p]) != d.m) continue;
            ++gap_free;
            // float64 in either precision; fp32 rounds the result to float32 (~6e-8).
            EXPECT_LE(pixel_error(r, x, p), prec == Precision::Fp64 ? 1e-11 : 1e-6) << p;
            EXPECT_NEAR(r.residual[p], res[p], 1e-6 * res[p] + 1e-12) << p;
            EXPECT_EQ(r.status[p], d.m < d.n                   ? kUnderdetermined
                                   : r.shared_rank < int(d.n) ? kRankDeficient
                                                              : kOk);
          }
          EXPECT_EQ(r.shared_pixels, gap_free);
          EXPECT_GT(gap_free, P / 2);
          EXPECT_LT(gap_free, P);
        }
}

/// A of shape (100, 50) with column 49 a copy of column 0: rank 49, status 2, pinv(A) b; with
/// and without gaps (the shared SVD and the per-pixel fallback).
TEST(LsqCpu, DuplicatedColumnIsRankDeficientMinimumNorm) {
  ASSERT_EQ(run_numpy(R"(
rng = np.random.default_rng(5)
A = rng.standard_normal((100, 50)); A[:, 49] = A[:, 0]
b = rng.standard_normal((100, 3, 4))
b[rng.random(b.shape) < 0.2] = np.nan
b[:, 0, :] = rng.standard_normal((100, 4))   # row 0 of the image without gaps
np.save(d + '/r_A.npy', A); np.save(d + '/r_b.npy', b)
X = np.zeros((50, 3, 4))
for h in range(3):
    for w in range(4):
        o = ~np.isnan(b[:, h, w]); X[:, h, w] = np.linalg.pinv(A[o], rcond=1e-10) @ b[o, h, w]
np.save(d + '/r_x.npy', X)
)"),
            0);
  const Design design = load_design((test::tmp_dir() / "r_A.npy").string());
  const Cube cube = load_cube((test::tmp_dir() / "r_b.npy").string());
  const auto xref = npy_values("r_x.npy");
  for (Method m : kMethods)
    for (Precision prec : kPrecisions) {
      SCOPED_TRACE(std::string(name(m)) + " " + name(prec));
      const Result r = solve(cube, design, opts(m, prec));
      EXPECT_EQ(r.status_counts[kRankDeficient], 12u);
      EXPECT_EQ(r.shared_pixels, 4u);
      EXPECT_EQ(r.shared_rank, 49);
      for (std::size_t p = 0; p < 12; ++p) {
        EXPECT_EQ(r.status[p], kRankDeficient) << p;
        // fp32 qr/svd factor the pixels with gaps in float: ~1e-5 there.
        const bool float_factor = prec == Precision::Fp32 && (m == Method::Qr || m == Method::Svd);
        const double tol = float_factor && p >= 4 ? 1e-3 : 1e-6;
        // The minimum-norm solution splits the duplicated coefficient equally.
        EXPECT_NEAR(r.solution[0 * 12 + p], r.solution[49 * 12 + p], tol) << p;
        EXPECT_LE(pixel_error(r, xref, p), tol) << p;
      }
      if (m == Method::Auto || m == Method::Normal) EXPECT_EQ(r.fallback_pixels, 8u);
    }
}

TEST(LsqCpu, AllMissingAndFewRows) {
  const Design d = test::random_design(8, 4, 2);
  std::vector<double> v(8 * 3, std::numeric_limits<double>::quiet_NaN());
  // pixel 0: all missing; pixel 1: 2 rows; pixel 2: every row.
  for (std::size_t i = 0; i < 2; ++i) v[i * 3 + 1] = double(i) + 1;
  for (std::size_t i = 0; i < 8; ++i) v[i * 3 + 2] = std::sin(double(i));
  const Cube c = make_cube(v, 8, 1, 3);
  for (Method m : kMethods)
    for (Precision prec : kPrecisions) {
      SCOPED_TRACE(std::string(name(m)) + " " + name(prec));
      const Result r = solve(c, d, opts(m, prec));
      EXPECT_EQ(r.status[0], kAllMissing);
      EXPECT_EQ(r.count[0], 0);
      for (std::size_t k = 0; k < 4; ++k) EXPECT_TRUE(std::isnan(r.solution[k * 3 + 0]));
      EXPECT_TRUE(std::isnan(r.residual[0]));
      EXPECT_TRUE(std::isnan(r.condition[0]));
      EXPECT_EQ(r.status[1], kUnderdetermined);
      EXPECT_EQ(r.count[1], 2);
      EXPECT_LE(r.residual[1], 1e-6);
      const auto ref1 = test::reference_solution(c, d, 1);
      double e = 0;
      for (std::size_t k = 0; k < 4; ++k)
        e = std::max(e, std::fabs(r.solution[k * 3 + 1] - ref1[k]));
      EXPECT_LE(e, prec == Precision::Fp64 ? 1e-12 : 1e-4);  // README: fp64 ~1e-12
      EXPECT_EQ(r.status[2], kOk);
      EXPECT_EQ(r.count[2], 8);
      EXPECT_EQ(r.status_counts[0] + r.status_counts[1] + r.status_counts[3], 3u);
    }
}

TEST(LsqCpu, TikhonovMatchesClosedForm) {
  const Design d = test::random_design(20, 6, 11);
  const Cube c = test::random_cube(d, 9, 11, 0.35, 12);
  for (double lambda : {0.5, 30.0})
    for (Method m : kMethods)
      for (Precision prec : kPrecisions) {
        SCOPED_TRACE(std::string(name(m)) + " " + name(prec) + " lambda " + std::to_string(lambda));
        const Result r = solve(c, d, opts(m, prec, lambda));
        double worst = 0;
        for (std::size_t p = 0; p < c.pixels(); ++p) {
          if (r.count[p] == 0) continue;
          const auto ref = test::reference_solution(c, d, p, lambda);
          double num = 0, den = 0;
          for (std::size_t k = 0; k < d.n; ++k) {
            const double e = r.solution[k * c.pixels() + p] - ref[k];
            num += e * e;
            den += ref[k] * ref[k];
          }
          worst = std::max(worst, std::sqrt(num / den));
          // Underdetermined pixels stay status 1 with the (unique) Tikhonov solution.
          EXPECT_EQ(r.status[p], r.count[p] < 6 ? kUnderdetermined : kOk) << p;
        }
        EXPECT_LE(worst, prec == Precision::Fp64 ? 1e-12 : (m == Method::Auto ? 1e-6 : 1e-4));
      }
}

TEST(LsqCpu, ShortRowsAndLambdaGivesTikhonovNotMinimumNorm) {
  // 2 observed rows < N = 4 with lambda > 0: the Cholesky path (G + lambda I is definite).
  const Design d = test::random_design(6, 4, 4);
  std::vector<double> v(6, std::numeric_limits<double>::quiet_NaN());
  v[1] = 1.0, v[4] = -2.0;
  const Cube c = make_cube(v, 6, 1, 1);
  const Result r = solve(c, d, opts(Method::Auto, Precision::Fp64, 0.1));
  EXPECT_EQ(r.status[0], kUnderdetermined);
  EXPECT_EQ(r.fallback_pixels, 0u);
  const auto ref = test::reference_solution(c, d, 0, 0.1);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(r.solution[k], ref[k], 1e-12);
}

/// Nearly dependent columns: cond(A_p) ~ 1e7, beyond the Cholesky path in both precisions:
/// every pixel goes to the float64 SVD and keeps numpy-level accuracy.
TEST(LsqCpu, IllConditionedPixelsFallBackToSvd) {
  Design d = test::random_design(30, 4, 21);
  std::mt19937 g(3);
  std::normal_distribution<double> nd;
  for (std::size_t i = 0; i < d.m; ++i) d.a[i * 4 + 3] = d.a[i * 4 + 2] + 1e-7 * nd(g);
  const Cube c = test::random_cube(d, 5, 6, 0.2, 22, 1e-3);
  for (Precision prec : kPrecisions) {
    SCOPED_TRACE(name(prec));
    const Result r = solve(c, d, opts(Method::Auto, prec));
    EXPECT_EQ(r.fallback_pixels, c.pixels() - r.shared_pixels - r.status_counts[kAllMissing]);
    for (std::size_t p = 0; p < c.pixels(); ++p) {
      if (r.count[p] == 0) continue;
      EXPECT_EQ(r.status[p], kOk) << p;  // full rank, only poorly conditioned
      EXPECT_GT(r.condition[p], 1e5) << p;
      const auto ref = test::reference_solution(c, d, p);
      double num = 0, den = 0;
      for (std::size_t k = 0; k < 4; ++k) {
        num +=
            (r.solution[k * c.pixels() + p] - ref[k]) * (r.solution[k * c.pixels() + p] - ref[k]);
        den += ref[k] * ref[k];
      }
      EXPECT_LE(std::sqrt(num / den), 1e-6) << p;
    }
  }
}

/// Many pixels (more than one progress chunk, a tail group), the synthetic generator's data:
/// every precision against the long-double reference, and the maps against the truth.
TEST(LsqCpu, SyntheticCubeAcrossChunks) {
  SynthSpec s;
  s.height = 101, s.width = 97, s.m = 30, s.n = 7, s.nan_fraction = 0.25, s.noise = 0.01;
  const Synth syn = generate(s);
  for (Precision prec : kPrecisions) {
    const Result r = solve(syn.cube, syn.design, opts(Method::Auto, prec));
    double worst = 0, truth = 0;
    const std::size_t P = syn.cube.pixels();
    for (std::size_t p = 0; p < P; p += 37) {
      if (r.count[p] < 7) continue;
      const auto ref = test::reference_solution(syn.cube, syn.design, p);
      double num = 0, den = 0, dt = 0;
      for (std::size_t k = 0; k < 7; ++k) {
        num += (r.solution[k * P + p] - ref[k]) * (r.solution[k * P + p] - ref[k]);
        den += ref[k] * ref[k];
        dt += (ref[k] - syn.truth[k * P + p]) * (ref[k] - syn.truth[k * P + p]);
      }
      worst = std::max(worst, std::sqrt(num / den));
      truth = std::max(truth, std::sqrt(dt / den));
    }
    EXPECT_LE(worst, prec == Precision::Fp64 ? 1e-11 : 1e-6) << name(prec);
    EXPECT_LE(truth, 0.05);  // noise 0.01 on ~23 rows: the fit recovers the maps
    EXPECT_EQ(r.status_counts[0] + r.status_counts[1] + r.status_counts[2] + r.status_counts[3], P);
  }
}

/// Edge shapes: one unknown, one observation, the largest N, one-pixel and one-row images.
TEST(LsqCpu, EdgeShapes) {
  struct Shape {
    std::size_t m, n, h, w;
  };
  for (const Shape sh : {Shape{1, 1, 3, 2}, Shape{3, 1, 1, 1}, Shape{2, 3, 5, 1},
                         Shape{200, kMaxUnknowns, 2, 3}, Shape{60, 17, 1, 9}}) {
    const Design d = test::random_design(sh.m, sh.n, unsigned(sh.m * 7 + sh.n));
    const Cube c = test::random_cube(d, sh.h, sh.w, sh.m > 2 ? 0.2 : 0.0, 5);
    for (Precision prec : kPrecisions) {
      SCOPED_TRACE("M " + std::to_string(sh.m) + " N " + std::to_string(sh.n) + " " + name(prec));
      const Result r = solve(c, d, opts(Method::Auto, prec));
      for (std::size_t p = 0; p < c.pixels(); ++p) {
        if (r.count[p] == 0) {
          EXPECT_EQ(r.status[p], kAllMissing);
          continue;
        }
        EXPECT_EQ(r.status[p], std::size_t(r.count[p]) < sh.n ? kUnderdetermined : kOk) << p;
        const auto ref = test::reference_solution(c, d, p);
        double num = 0, den = 0;
        for (std::size_t k = 0; k < sh.n; ++k) {
          const double e = r.solution[k * c.pixels() + p] - ref[k];
          num += e * e;
          den += ref[k] * ref[k];
        }
        EXPECT_LE(std::sqrt(num / den), 1e-8) << p;
        EXPECT_TRUE(std::isfinite(r.condition[p]) && std::isfinite(r.residual[p])) << p;
      }
    }
  }
}

TEST(LsqCpu, ProgressAndCancel) {
  SynthSpec s;
  s.height = 64, s.width = 300, s.m = 20, s.n = 6;
  const Synth syn = generate(s);
  Progress pr;
  Result r;
  make_solver(Backend::Cpu)->solve(syn.cube, syn.design, Options{}, r, &pr);
  EXPECT_DOUBLE_EQ(pr.fraction.load(), 1.0);
  Progress cancelled;
  cancelled.cancel = true;
  EXPECT_THROW(make_solver(Backend::Cpu)->solve(syn.cube, syn.design, Options{}, r, &cancelled),
               Cancelled);
}

TEST(LsqCpu, ValidateRefusesBadProblems) {
  const Design d = test::random_design(5, 3, 1);
  const Cube c = test::random_cube(d, 2, 2, 0, 1);
  Result r;
  auto solver = make_solver(Backend::Cpu);
  Design wrong_m = test::random_design(6, 3, 1);
  EXPECT_NE(error_of([&] { solver->solve(c, wrong_m, Options{}, r); }).find("M = 5"),
            std::string::npos);
  Design inf = d;
  inf.a[4] = INFINITY;
  EXPECT_NE(error_of([&] { solver->solve(c, inf, Options{}, r); }).find("A[1, 1]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              solver->solve(c, d, opts(Method::Auto, Precision::Fp64, -1), r);
            }).find("lambda"),
            std::string::npos);
  Design wide = test::random_design(5, kMaxUnknowns + 1, 1);
  EXPECT_NE(error_of([&] { solver->solve(c, wide, Options{}, r); }).find("at most"),
            std::string::npos);
  EXPECT_TRUE(r.solution.empty());  // nothing written before the checks pass
}

/// The solver shapes a reused Result without a NaN fill first and writes every pixel itself:
/// solving into a Result that held a larger solve of other data gives the fresh solve's outputs
/// bit for bit (all-missing pixels NaN with status 3 and count 0), and the solutions match the
/// long-double reference (m_p >= N: QR; m_p < N: the minimum-norm formula).
TEST(LsqCpu, ReusedResultIsFullyRewritten) {
  const Design d = test::random_design(30, 7, 21);
  Cube small = test::random_cube(d, 5, 9, 0.25, 22);
  auto* v = reinterpret_cast<double*>(small.bytes.data());
  ASSERT_EQ(small.dtype, io::DType::Float64);
  for (std::size_t i = 0; i < d.m; ++i)
    v[i * small.pixels() + 3] = v[i * small.pixels() + 17] = NAN;
  for (std::size_t i = 4; i < d.m; ++i) v[i * small.pixels() + 8] = NAN;  // 4 rows: m_p < N
  const Cube large = test::random_cube(d, 11, 13, 0.1, 23);
  auto solver = make_solver(Backend::Cpu);
  for (Method m : {Method::Auto, Method::Downdate, Method::Normal})
    for (Precision prec : kPrecisions) {
      SCOPED_TRACE(std::string(name(m)) + " " + name(prec));
      Result fresh, reused;
      solver->solve(small, d, opts(m, prec), fresh);
      solver->solve(large, d, opts(m, prec), reused);
      solver->solve(small, d, opts(m, prec), reused);
      ASSERT_EQ(reused.solution.size(), fresh.solution.size());
      EXPECT_EQ(std::memcmp(reused.solution.data(), fresh.solution.data(),
                            fresh.solution.size() * sizeof(double)),
                0);
      EXPECT_EQ(std::memcmp(reused.residual.data(), fresh.residual.data(),
                            fresh.residual.size() * sizeof(float)),
                0);
      EXPECT_EQ(std::memcmp(reused.condition.data(), fresh.condition.data(),
                            fresh.condition.size() * sizeof(float)),
                0);
      EXPECT_EQ(reused.status, fresh.status);
      EXPECT_EQ(reused.count, fresh.count);
      EXPECT_EQ(reused.status_counts, fresh.status_counts);
      EXPECT_EQ(reused.status_counts[kAllMissing], 2u);
      const std::size_t P = small.pixels();
      for (std::size_t p : {std::size_t(3), std::size_t(17)}) {
        EXPECT_EQ(reused.status[p], kAllMissing);
        EXPECT_EQ(reused.count[p], 0);
        EXPECT_TRUE(std::isnan(reused.residual[p]) && std::isnan(reused.condition[p]));
        for (std::size_t k = 0; k < d.n; ++k) EXPECT_TRUE(std::isnan(reused.solution[k * P + p]));
      }
      EXPECT_EQ(reused.status[8], kUnderdetermined);
      for (std::size_t p = 0; p < P; ++p) {
        if (reused.count[p] == 0) continue;
        const std::vector<double> ref = test::reference_solution(small, d, p);
        double num = 0, den = 0;
        for (std::size_t k = 0; k < d.n; ++k) {
          num += std::pow(reused.solution[k * P + p] - ref[k], 2);
          den += ref[k] * ref[k];
        }
        // fp32's Gram path (method normal, unrefined) ~eps32 cond^2; the rest float64.
        const double tol = prec == Precision::Fp32 && m == Method::Normal ? 1e-4 : 1e-10;
        EXPECT_LE(std::sqrt(num / den), tol) << p;
      }
    }
}

TEST(LsqCpu, StatusNamesAndThresholds) {
  EXPECT_STREQ(status_name(0), "ok");
  EXPECT_STREQ(status_name(1), "underdetermined");
  EXPECT_STREQ(status_name(2), "rank-deficient");
  EXPECT_STREQ(status_name(3), "all-missing");
  EXPECT_LT(fallback_condition(Precision::Fp32), fallback_condition(Precision::Fp64));
}

// The Python module's in-place cube is borrowed with its inf check deferred to the solve
// (borrow_cube's defer_inf), whose first pass over each band looks for one. An inf entry is
// refused with the loader's message, naming the first in C order (here in the last band, while
// the first band holds a later observation's), whatever rows are solved; the result passed in
// stays as it was. Without an inf, the outputs equal those of a cube checked when borrowed.
TEST(LsqCpu, DeferredInfCheckRefusesTheFirstInfEntry) {
  constexpr std::size_t M = 6, N = 3, H = 40, W = 30;  // 1200 pixels: 5 bands of 256
  std::mt19937_64 g(11);
  std::normal_distribution<double> normal;
  std::vector<double> v(M * H * W);
  for (double& x : v) x = normal(g);
  for (std::size_t k = 0; k < v.size(); k += 7) v[k] = std::numeric_limits<double>::quiet_NaN();
  Design d;
  d.m = M, d.n = N;
  for (std::size_t k = 0; k < M * N; ++k) d.a.push_back(normal(g));
  std::vector<float> v32(v.begin(), v.end());
  for (const bool f32 : {false, true}) {
    const void* data = f32 ? static_cast<const void*>(v32.data()) : v.data();
    const io::DType dt = f32 ? io::DType::Float32 : io::DType::Float64;
    const Cube checked = borrow_cube(data, dt, M, H, W, "cube");
    const Cube deferred = borrow_cube(data, dt, M, H, W, "cube", true);
    EXPECT_TRUE(checked.inf_unchecked.empty());
    EXPECT_EQ(deferred.inf_unchecked, "cube");
    for (const Method m : {Method::Auto, Method::Qr}) {
      const Options o = opts(m, f32 ? Precision::Fp32 : Precision::Fp64);
      const Result a = solve(checked, d, o), b = solve(deferred, d, o);
      EXPECT_EQ(a.solution, b.solution);
      EXPECT_EQ(a.solution32, b.solution32);
      EXPECT_EQ(std::memcmp(a.residual.data(), b.residual.data(), a.residual.size() * 4), 0);
      EXPECT_EQ(a.count, b.count);
      EXPECT_EQ(a.status, b.status);
    }
  }
  const Result before = solve(borrow_cube(v.data(), io::DType::Float64, M, H, W, "cube"), d,
                              opts(Method::Auto, Precision::Fp64));
  v[(4 * H + 35) * W + 2] = std::numeric_limits<double>::infinity();
  v[(5 * H + 0) * W + 1] = -std::numeric_limits<double>::infinity();
  v32.assign(v.begin(), v.end());
  for (const bool f32 : {false, true}) {
    const void* data = f32 ? static_cast<const void*>(v32.data()) : v.data();
    const Cube deferred =
        borrow_cube(data, f32 ? io::DType::Float32 : io::DType::Float64, M, H, W, "cube", true);
    for (const Method m : {Method::Auto, Method::Qr})
      for (const IndexRange rows : {IndexRange::all(), IndexRange{10, 20}}) {
        Result kept = before;
        const std::string msg = error_of([&] {
          make_solver(Backend::Cpu)
              ->solve(deferred, d, rows, opts(m, f32 ? Precision::Fp32 : Precision::Fp64), kept);
        });
        EXPECT_EQ(msg, "cube: entry [4, 35, 2] is inf; only NaN may mark a missing observation");
        EXPECT_EQ(kept.solution, before.solution);
        EXPECT_EQ(kept.height, before.height);
      }
  }
}

}  // namespace
}  // namespace simscope::lsq
