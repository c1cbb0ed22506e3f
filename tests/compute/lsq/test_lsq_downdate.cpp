// The downdate and minimum-norm paths of the CPU lsq solver (issue 17) against
// numpy.linalg.lstsq: random, polynomial and Gaussian-band designs with 1 %, 20 % and 60 % gaps,
// lambda = 0 and > 0 (lstsq of the stacked [A_obs; sqrt(lambda) I]); statuses against the
// per-pixel SVD; the condition estimate against numpy's cond within the documented factor.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::npy_values;
using test::numpy_reference;
using test::opts;
using test::pixel_error;
using test::run_numpy;

Result solve(const Cube& c, const Design& d, const Options& o) {
  Result r;
  make_solver(Backend::Cpu)->solve(c, d, o, r);
  return r;
}

struct Case {
  const char* design;
  double gaps, lambda;
  friend std::ostream& operator<<(std::ostream& o, const Case& c) {
    return o << c.design << " gaps " << c.gaps << " lambda " << c.lambda;
  }
};

class LsqDowndateNumpy : public ::testing::TestWithParam<Case> {};

TEST_P(LsqDowndateNumpy, DowndateAndAutoMatchLstsq) {
  const Case c = GetParam();
  const std::size_t M = 40, N = 12, H = 16, W = 16;
  const Design d = make_design(c.design, M, N, 5);
  const Cube cube = test::random_cube(d, H, W, c.gaps, 17);
  char tagc[64];
  std::snprintf(tagc, sizeof tagc, "%s_%g_%g", c.design, c.gaps, c.lambda);
  const std::string tag = tagc;
  if (!numpy_reference(cube, d, c.lambda, tag))
    GTEST_SKIP() << "numpy (" << SIMSCOPE_PYTHON << ") is needed for this test";
  const auto xref = npy_values("x_" + tag + ".npy");
  const auto kref = npy_values("k_" + tag + ".npy");
  const double cond_g = npy_values("g_" + tag + ".npy")[0];
  const Result svd = solve(cube, d, opts(Method::Svd, Precision::Fp64, c.lambda));
  for (Method m : {Method::Downdate, Method::Auto})
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      SCOPED_TRACE(tag + " " + test::name(m) + " " + test::name(prec));
      const Result r = solve(cube, d, opts(m, prec, c.lambda));
      double worst = 0, worst_ratio = 0, least_ratio = 1e300;
      for (std::size_t p = 0; p < cube.pixels(); ++p) {
        EXPECT_EQ(r.status[p], svd.status[p]) << p;
        EXPECT_EQ(r.count[p], svd.count[p]) << p;
        if (r.count[p] == 0) continue;
        const double e = pixel_error(r, xref, p);
        worst = std::max(worst, e);
        // fp32 applies to the Gram path of auto only (~1e-7 there, lsq.hpp); downdate and
        // minimum-norm work in float64. Ill-conditioned pixels (Gaussian bands with 60 % gaps
        // lose whole bands) differ from lstsq by ~eps cond^2 whatever the method.
        const double tol = std::max(prec == Precision::Fp64 || m == Method::Downdate ? 1e-8 : 1e-5,
                                    1e-15 * kref[p] * kref[p]);
        EXPECT_LE(e, tol) << "pixel " << p << " cond " << kref[p];
        EXPECT_NEAR(r.residual[p], svd.residual[p], 1e-6 * std::max(1.0, double(svd.residual[p])));
        // Documented (lsq.hpp, lsq_downdate.hpp): downdate pixels between ~0.6x and
        // cond2(G) s^(1/4) x; Cholesky and minimum-norm estimates between 0.5x and sqrt(N)x.
        const double ratio = double(r.condition[p]) / kref[p];
        const double s = double(M) - r.count[p];
        worst_ratio = std::max(worst_ratio, ratio);
        least_ratio = std::min(least_ratio, ratio);
        EXPECT_GE(ratio, 0.5) << p;
        EXPECT_LE(ratio, std::max(std::sqrt(double(N)), cond_g * std::pow(s, 0.25)) * (1 + 1e-4))
            << p;
      }
      if (m == Method::Downdate && cond_g <= 1e10) EXPECT_GT(r.downdate_pixels, 0u);
      std::printf(
          "[ lsq dd   ] %s %s %s: max rel error %.2e, condition ratio %.2f..%.2f "
          "(cond2(G) %.3g), downdate %llu, min-norm %llu, SVD %llu\n",
          tag.c_str(), test::name(m), test::name(prec), worst, least_ratio, worst_ratio, cond_g,
          (unsigned long long)r.downdate_pixels, (unsigned long long)r.minnorm_pixels,
          (unsigned long long)r.fallback_pixels);
    }
}

INSTANTIATE_TEST_SUITE_P(Designs, LsqDowndateNumpy,
                         ::testing::Values(Case{"random", 0.01, 0}, Case{"random", 0.2, 0},
                                           Case{"random", 0.6, 0}, Case{"polynomial", 0.01, 0},
                                           Case{"polynomial", 0.2, 0}, Case{"polynomial", 0.6, 0},
                                           Case{"gaussian_bands", 0.01, 0},
                                           Case{"gaussian_bands", 0.2, 0},
                                           Case{"gaussian_bands", 0.6, 0}, Case{"random", 0.2, 0.5},
                                           Case{"polynomial", 0.6, 2.0},
                                           Case{"gaussian_bands", 0.2, 0.01}));

/// The seeds' shape scaled down (M < N: every pixel underdetermined), with two identical rows
/// of A: pixels observing both have rank-deficient rows (to the SVD), the others take the
/// minimum-norm path; both within 1e-10 of lstsq's minimum-norm solution.
TEST(LsqMinNorm, UnderdeterminedMatchesLstsqMinimumNorm) {
  const std::size_t M = 20, N = 40;
  Design d = test::random_design(M, N, 9);
  std::copy(d.a.begin() + N, d.a.begin() + 2 * N, d.a.begin());  // row 0 = row 1
  const Cube cube = test::random_cube(d, 12, 10, 0.2, 4);
  for (double lambda : {0.0, 0.3}) {
    const std::string tag = lambda > 0 ? "mn_l" : "mn";
    ASSERT_TRUE(numpy_reference(cube, d, lambda, tag));
    const auto xref = npy_values("x_" + tag + ".npy");
    const Result svd = solve(cube, d, opts(Method::Svd, Precision::Fp64, lambda));
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      SCOPED_TRACE(tag + " " + test::name(prec));
      const Result r = solve(cube, d, opts(Method::Auto, prec, lambda));
      std::uint64_t both = 0;
      for (std::size_t p = 0; p < cube.pixels(); ++p) {
        EXPECT_EQ(r.status[p], svd.status[p]) << p;
        EXPECT_EQ(r.status[p], kUnderdetermined) << p;
        EXPECT_LE(pixel_error(r, xref, p), 1e-10) << p;
        EXPECT_NEAR(r.residual[p], svd.residual[p], 1e-7) << p;
        both +=
            !std::isnan(cube.at(0, p)) && !std::isnan(cube.at(1, p)) && std::size_t(r.count[p]) < M;
      }
      ASSERT_GT(both, 0u);
      if (lambda == 0) {
        EXPECT_EQ(r.fallback_pixels, both);  // exactly the rank-deficient row sets
        EXPECT_EQ(r.minnorm_pixels, cube.pixels() - both - r.shared_pixels);
      } else {
        EXPECT_EQ(r.minnorm_pixels, cube.pixels() - r.shared_pixels);  // lambda > 0: definite
      }
    }
  }
}

/// A singular A^T A (a duplicated column): the downdate cannot be used; method downdate sends
/// every pixel with gaps to the SVD (rank-deficient, minimum norm), auto to today's paths.
TEST(LsqDowndate, SingularGramFallsBackToSvd) {
  Design d = test::random_design(30, 6, 2);
  for (std::size_t i = 0; i < d.m; ++i) d.a[i * 6 + 5] = d.a[i * 6 + 0];
  const Cube cube = test::random_cube(d, 6, 7, 0.2, 8);
  const Result svd = solve(cube, d, opts(Method::Svd, Precision::Fp64));
  for (Method m : {Method::Downdate, Method::Auto}) {
    const Result r = solve(cube, d, opts(m, Precision::Fp64));
    EXPECT_EQ(r.downdate_pixels, 0u);
    EXPECT_EQ(r.fallback_pixels, cube.pixels() - r.shared_pixels - r.status_counts[kAllMissing]);
    for (std::size_t p = 0; p < cube.pixels(); ++p) {
      EXPECT_EQ(r.status[p], svd.status[p]) << p;
      if (r.count[p] > 0) EXPECT_LE(pixel_error(r, svd.solution, p), 1e-9) << p;
    }
  }
}

/// Row ranges give bit-identical pixels with the downdate (the work-range contract).
TEST(LsqDowndate, RowRangesAreBitIdentical) {
  const Design d = make_design("random", 30, 8, 3);
  const Cube cube = test::random_cube(d, 9, 5, 0.3, 6);
  auto solver = make_solver(Backend::Cpu);
  for (Method m : {Method::Downdate, Method::Auto}) {
    Result whole, a, b;
    solver->solve(cube, d, opts(m, Precision::Fp64), whole);
    solver->solve(cube, d, IndexRange{0, 4}, opts(m, Precision::Fp64), a);
    solver->solve(cube, d, IndexRange{4, 9}, opts(m, Precision::Fp64), b);
    const Result merged = merge_row_ranges({a, b});
    EXPECT_EQ(merged.solution, whole.solution);
    EXPECT_EQ(merged.status, whole.status);
    EXPECT_EQ(merged.downdate_pixels, whole.downdate_pixels);
    EXPECT_EQ(merged.minnorm_pixels, whole.minnorm_pixels);
  }
}

TEST(LsqDowndate, MethodNamesAndPlacement) {
  EXPECT_STREQ(to_string(Method::Downdate), "downdate");
  EXPECT_EQ(method_runs_on(Method::Downdate, Backend::Cuda), Backend::Cuda);
  EXPECT_EQ(method_runs_on(Method::Downdate, Backend::Cpu), Backend::Cpu);
  EXPECT_EQ(method_runs_on(Method::Auto, Backend::Cuda), Backend::Cuda);
}

}  // namespace
}  // namespace simscope::lsq

namespace simscope::lsq {
namespace {

/// fp32 solves hand their downdate and minimum-norm pixels to the float64 group solver: those
/// pixels are bit-identical to the fp64 solve's (lanes are independent of their neighbours), and
/// within 1e-10 of lstsq (not fp32's ~1e-6). A cube where the cost model picks the downdate for
/// every pixel with m_p >= N (M 40, N 12, 20 % gaps) plus underdetermined pixels (rows 0-2 keep
/// 8 of 40 observations).
TEST(LsqDowndate, Fp32SmallPathsRunInFloat64) {
  const Design d = make_design("random", 40, 12, 31);
  Cube cube = test::random_cube(d, 9, 11, 0.2, 32);
  for (std::size_t i = 8; i < 40; ++i)
    for (std::size_t p = 0; p < 3 * 11; ++p) {
      if (cube.dtype == io::DType::Float32)
        reinterpret_cast<float*>(cube.bytes.data())[i * cube.pixels() + p] = NAN;
      else
        reinterpret_cast<double*>(cube.bytes.data())[i * cube.pixels() + p] = NAN;
    }
  ASSERT_TRUE(numpy_reference(cube, d, 0.0, "fp32small"));
  const auto xref = npy_values("x_fp32small.npy");
  for (Method m : {Method::Auto, Method::Downdate}) {
    const Result r64 = solve(cube, d, opts(m, Precision::Fp64));
    const Result r32 = solve(cube, d, opts(m, Precision::Fp32));
    EXPECT_EQ(r32.solution, r64.solution) << test::name(m);
    EXPECT_EQ(r32.status, r64.status);
    EXPECT_EQ(r32.condition, r64.condition);
    EXPECT_EQ(r32.downdate_pixels, r64.downdate_pixels);
    EXPECT_EQ(r32.minnorm_pixels, r64.minnorm_pixels);
    EXPECT_GT(r32.downdate_pixels, 0u);
    if (m == Method::Auto) EXPECT_EQ(r32.minnorm_pixels, 3u * 11u);
    for (std::size_t p = 0; p < cube.pixels(); ++p)
      if (r32.count[p] > 0 && (m == Method::Auto || r32.count[p] >= 12))
        EXPECT_LE(pixel_error(r32, xref, p), 1e-10) << p;
  }
}

}  // namespace
}  // namespace simscope::lsq
