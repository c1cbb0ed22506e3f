// The CUDA lsq solver's downdate and minimum-norm paths (issue 17; cuda/small_kernel.cu) against
// the CPU back end (the same per-pixel choices, statuses and counters) and against
// numpy.linalg.lstsq in float64 (random, polynomial and Gaussian-band designs, 1 %, 20 % and
// 60 % gaps, lambda = 0 and > 0; the seeds' underdetermined shape). Every test skips with the
// CUDA runtime's reason where no device is usable.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "core/backend.hpp"
#include "test_cuda_skip.hpp"
#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::npy_values;
using test::numpy_reference;
using test::opts;
using test::pixel_error;

Result solve(Backend b, const Cube& c, const Design& d, const Options& o) {
  Result r;
  make_solver(b)->solve(c, d, o, r);
  return r;
}

/// Counters of the two back ends within `slack` pixels (pixels on the edge of a refusal rule,
/// K's pivot or the condition limit, may fall either way with another summation order).
void expect_counters(const Result& gpu, const Result& cpu, std::uint64_t slack) {
  auto near = [&](std::uint64_t a, std::uint64_t b) { return (a > b ? a - b : b - a) <= slack; };
  EXPECT_TRUE(near(gpu.downdate_pixels, cpu.downdate_pixels))
      << gpu.downdate_pixels << " vs " << cpu.downdate_pixels;
  EXPECT_TRUE(near(gpu.minnorm_pixels, cpu.minnorm_pixels))
      << gpu.minnorm_pixels << " vs " << cpu.minnorm_pixels;
  EXPECT_TRUE(near(gpu.fallback_pixels, cpu.fallback_pixels))
      << gpu.fallback_pixels << " vs " << cpu.fallback_pixels;
  EXPECT_EQ(gpu.shared_pixels, cpu.shared_pixels);
  EXPECT_EQ(gpu.status_counts, cpu.status_counts);
}

struct Case {
  const char* design;
  double gaps, lambda;
  friend std::ostream& operator<<(std::ostream& o, const Case& c) {
    return o << c.design << " gaps " << c.gaps << " lambda " << c.lambda;
  }
};
class LsqCudaDowndateNumpy : public ::testing::TestWithParam<Case> {};

/// Methods downdate and auto (fp64 and fp32) on the device: solutions within 1e-8 of lstsq
/// (max(1e-8, 1e-15 cond^2) for ill-conditioned pixels, as on the CPU; fp32's Gram pixels of
/// auto 1e-5), statuses and counts equal to the CPU back end's, residuals and conditions as
/// the CPU's (the same estimator on the same matrices: within 2x).
TEST_P(LsqCudaDowndateNumpy, MatchesLstsqAndCpu) {
  SKIP_WITHOUT_CUDA();
  const Case c = GetParam();
  const std::size_t M = 40, N = 12, H = 16, W = 16;
  const Design d = make_design(c.design, M, N, 5);
  const Cube cube = test::random_cube(d, H, W, c.gaps, 17);
  char tagc[64];
  std::snprintf(tagc, sizeof tagc, "cuda_%s_%g_%g", c.design, c.gaps, c.lambda);
  const std::string tag = tagc;
  if (!numpy_reference(cube, d, c.lambda, tag))
    GTEST_SKIP() << "numpy (" << SIMSCOPE_PYTHON << ") is needed for this test";
  const auto xref = npy_values("x_" + tag + ".npy");
  const auto kref = npy_values("k_" + tag + ".npy");
  for (Method m : {Method::Downdate, Method::Auto})
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      SCOPED_TRACE(tag + " " + test::name(m) + " " + test::name(prec));
      const Options o = opts(m, prec, c.lambda);
      const Result gpu = solve(Backend::Cuda, cube, d, o);
      const Result cpu = solve(Backend::Cpu, cube, d, o);
      double worst = 0;
      std::size_t off_ratio = 0;
      for (std::size_t p = 0; p < cube.pixels(); ++p) {
        ASSERT_EQ(gpu.count[p], cpu.count[p]) << p;
        EXPECT_EQ(gpu.status[p], cpu.status[p]) << p;
        if (gpu.count[p] == 0) {
          EXPECT_TRUE(std::isnan(gpu.residual[p]) && std::isnan(gpu.condition[p])) << p;
          continue;
        }
        const double e = pixel_error(gpu, xref, p);
        worst = std::max(worst, e);
        const double tol = std::max(prec == Precision::Fp64 || m == Method::Downdate ? 1e-8 : 1e-5,
                                    1e-15 * kref[p] * kref[p]);
        EXPECT_LE(e, tol) << "pixel " << p << " cond " << kref[p];
        EXPECT_NEAR(gpu.residual[p], cpu.residual[p], 1e-5 * std::max(1.0, double(cpu.residual[p])))
            << p;
        const double ratio = double(gpu.condition[p]) / double(cpu.condition[p]);
        off_ratio += !(ratio >= 0.5 && ratio <= 2.0);
      }
      // Only pixels on the edge of a refusal rule (another path: SVD's exact value instead of
      // the estimate) may differ.
      EXPECT_LE(off_ratio, cube.pixels() / 50);
      expect_counters(gpu, cpu, cube.pixels() / 50);
      if (m == Method::Downdate && cpu.downdate_pixels > 0) EXPECT_GT(gpu.downdate_pixels, 0u);
      std::printf(
          "[ lsq cuda dd ] %s %s %s: max rel error %.2e, downdate %llu (CPU %llu), "
          "min-norm %llu (CPU %llu), SVD %llu (CPU %llu)\n",
          tag.c_str(), test::name(m), test::name(prec), worst,
          (unsigned long long)gpu.downdate_pixels, (unsigned long long)cpu.downdate_pixels,
          (unsigned long long)gpu.minnorm_pixels, (unsigned long long)cpu.minnorm_pixels,
          (unsigned long long)gpu.fallback_pixels, (unsigned long long)cpu.fallback_pixels);
    }
}

INSTANTIATE_TEST_SUITE_P(Designs, LsqCudaDowndateNumpy,
                         ::testing::Values(Case{"random", 0.01, 0}, Case{"random", 0.2, 0},
                                           Case{"random", 0.6, 0}, Case{"polynomial", 0.2, 0},
                                           Case{"polynomial", 0.6, 0},
                                           Case{"gaussian_bands", 0.2, 0},
                                           Case{"gaussian_bands", 0.6, 0}, Case{"random", 0.2, 0.5},
                                           Case{"polynomial", 0.6, 2.0}));

/// The seeds' shape scaled down (M 50 < N 100, 20 % gaps): every pixel underdetermined, solved
/// by the device's row-Gram minimum norm (none left to the host), within 1e-10 of lstsq's
/// minimum-norm solution and 1e-12 of the CPU's; lambda > 0 against the stacked lstsq.
TEST(LsqCudaMinNorm, SeedShapeMatchesLstsqMinimumNorm) {
  SKIP_WITHOUT_CUDA();
  const std::size_t M = 50, N = 100;
  const Design d = test::random_design(M, N, 21);
  const Cube cube = test::random_cube(d, 12, 14, 0.2, 22);
  for (double lambda : {0.0, 0.3}) {
    const std::string tag = lambda > 0 ? "cuda_seed_l" : "cuda_seed";
    ASSERT_TRUE(numpy_reference(cube, d, lambda, tag));
    const auto xref = npy_values("x_" + tag + ".npy");
    for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
      SCOPED_TRACE(tag + " " + test::name(prec));
      const Options o = opts(Method::Auto, prec, lambda);
      const Result gpu = solve(Backend::Cuda, cube, d, o);
      const Result cpu = solve(Backend::Cpu, cube, d, o);
      for (std::size_t p = 0; p < cube.pixels(); ++p) {
        EXPECT_EQ(gpu.status[p], kUnderdetermined) << p;
        EXPECT_LE(pixel_error(gpu, xref, p), 1e-10) << p;
        EXPECT_LE(pixel_error(gpu, cpu.solution, p), 1e-12) << p;
        // The same estimator on the same matrix; another summation order may move Hager's
        // iteration to another index: within 2x.
        EXPECT_GE(gpu.condition[p] / cpu.condition[p], 0.5) << p;
        EXPECT_LE(gpu.condition[p] / cpu.condition[p], 2.0) << p;
      }
      EXPECT_EQ(gpu.minnorm_pixels, cube.pixels() - gpu.shared_pixels);
      EXPECT_EQ(gpu.host_pixels, 0u);
      expect_counters(gpu, cpu, 0);
    }
  }
}

/// Rank-deficient observed rows (two identical rows of A) make R_OO singular: those pixels go
/// to the host SVD exactly as on the CPU, the others stay on the device.
TEST(LsqCudaMinNorm, RankDeficientRowsGoToTheSvd) {
  SKIP_WITHOUT_CUDA();
  const std::size_t M = 20, N = 40;
  Design d = test::random_design(M, N, 9);
  std::copy(d.a.begin() + N, d.a.begin() + 2 * N, d.a.begin());  // row 0 = row 1
  const Cube cube = test::random_cube(d, 12, 10, 0.2, 4);
  const Options o = opts(Method::Auto, Precision::Fp64);
  const Result gpu = solve(Backend::Cuda, cube, d, o);
  const Result cpu = solve(Backend::Cpu, cube, d, o);
  std::uint64_t both = 0;
  for (std::size_t p = 0; p < cube.pixels(); ++p) {
    EXPECT_EQ(gpu.status[p], cpu.status[p]) << p;
    EXPECT_LE(pixel_error(gpu, cpu.solution, p), 1e-10) << p;
    both +=
        !std::isnan(cube.at(0, p)) && !std::isnan(cube.at(1, p)) && std::size_t(gpu.count[p]) < M;
  }
  ASSERT_GT(both, 0u);
  EXPECT_EQ(gpu.fallback_pixels, both);
  expect_counters(gpu, cpu, 0);
}

/// A singular A^T A (a duplicated column): no downdate; method downdate sends every pixel with
/// gaps to the SVD, auto to the Gram path / SVD, as on the CPU.
TEST(LsqCudaDowndate, SingularGramFallsBack) {
  SKIP_WITHOUT_CUDA();
  Design d = test::random_design(30, 6, 2);
  for (std::size_t i = 0; i < d.m; ++i) d.a[i * 6 + 5] = d.a[i * 6 + 0];
  const Cube cube = test::random_cube(d, 6, 7, 0.2, 8);
  for (Method m : {Method::Downdate, Method::Auto}) {
    const Result gpu = solve(Backend::Cuda, cube, d, opts(m, Precision::Fp64));
    const Result cpu = solve(Backend::Cpu, cube, d, opts(m, Precision::Fp64));
    EXPECT_EQ(gpu.downdate_pixels, 0u);
    for (std::size_t p = 0; p < cube.pixels(); ++p) {
      EXPECT_EQ(gpu.status[p], cpu.status[p]) << p;
      if (gpu.count[p] > 0) EXPECT_LE(pixel_error(gpu, cpu.solution, p), 1e-9) << p;
    }
    expect_counters(gpu, cpu, 0);
  }
}

/// Many chunks (SIMSCOPE_LSQ_CUDA_CHUNK = 64 pixels, odd sizes, both streams): the same pixels
/// as one chunk, within the GEMMs' rounding, and the same counters.
TEST(LsqCudaDowndate, ChunksAgreeWithOneChunk) {
  SKIP_WITHOUT_CUDA();
  const Design d = make_design("random", 36, 10, 4);
  const Cube cube = test::random_cube(d, 23, 19, 0.25, 5);
  for (Method m : {Method::Downdate, Method::Auto}) {
    const Options o = opts(m, Precision::Fp64);
    const Result whole = solve(Backend::Cuda, cube, d, o);
    setenv("SIMSCOPE_LSQ_CUDA_CHUNK", "64", 1);
    Result parts;
    try {
      parts = solve(Backend::Cuda, cube, d, o);
    } catch (...) {
      unsetenv("SIMSCOPE_LSQ_CUDA_CHUNK");
      throw;
    }
    unsetenv("SIMSCOPE_LSQ_CUDA_CHUNK");
    for (std::size_t p = 0; p < cube.pixels(); ++p) {
      EXPECT_EQ(parts.status[p], whole.status[p]) << p;
      if (whole.count[p] > 0) EXPECT_LE(pixel_error(parts, whole.solution, p), 1e-12) << p;
    }
    EXPECT_EQ(parts.downdate_pixels, whole.downdate_pixels);
    EXPECT_EQ(parts.minnorm_pixels, whole.minnorm_pixels);
    EXPECT_GT(whole.downdate_pixels, 0u);
    EXPECT_EQ(whole.host_pixels, whole.fallback_pixels);  // only SVD fallbacks on the host
  }
}

}  // namespace
}  // namespace simscope::lsq
