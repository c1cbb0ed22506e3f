// The CUDA lsq solver against the CPU one (the reference back end). Every test skips with the
// CUDA runtime's reason where no device is usable (CPU-only machines, CPU-only builds).
#include <ostream>

#include "core/backend.hpp"
#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::name;
using test::opts;

#define SKIP_WITHOUT_CUDA()                                                         \
  do {                                                                              \
    if (!cuda_status().usable) GTEST_SKIP() << "no CUDA: " << cuda_status().reason; \
  } while (0)

TEST(LsqCuda, MakeSolverWithoutDevice) {
  if (cuda_status().usable) GTEST_SKIP() << "a CUDA device is usable here";
  EXPECT_THROW(make_solver(Backend::Cuda), Error);
}

struct Case {
  Method method;
  Precision precision;
  double lambda;
  friend std::ostream& operator<<(std::ostream& o, const Case& c) {
    return o << name(c.method) << " " << name(c.precision) << " lambda " << c.lambda;
  }
};
class LsqCudaVsCpu : public ::testing::TestWithParam<Case> {};

/// Same statuses, counts and (within the precision's tolerance) solutions, residuals and
/// conditions as the CPU back end: a synthetic cube with gaps crossing several warps' blocks,
/// a pixel row without gaps, all-missing and underdetermined pixels.
TEST_P(LsqCudaVsCpu, SameResults) {
  SKIP_WITHOUT_CUDA();
  const Case c = GetParam();
  SynthSpec s;
  s.height = 37, s.width = 53, s.m = 40, s.n = 9, s.nan_fraction = 0.3, s.noise = 0.05;
  Synth syn = generate(s);
  // Row 0 without gaps, pixel (1, 0) all missing, pixel (1, 1) with 4 rows (< N).
  const std::size_t P = syn.cube.pixels();
  float* v = reinterpret_cast<float*>(syn.cube.bytes.data());
  for (std::size_t i = 0; i < s.m; ++i) {
    for (std::size_t w = 0; w < s.width; ++w)
      if (std::isnan(v[i * P + w])) v[i * P + w] = 0.5f;
    v[i * P + s.width] = NAN;
    if (i >= 4) v[i * P + s.width + 1] = NAN;
  }
  const Options o = opts(c.method, c.precision, c.lambda);
  Result gpu, cpu;
  auto solver = make_solver(Backend::Cuda);
  EXPECT_EQ(solver->backend(), Backend::Cuda);
  solver->solve(syn.cube, syn.design, o, gpu);
  make_solver(Backend::Cpu)->solve(syn.cube, syn.design, o, cpu);
  ASSERT_EQ(gpu.solution.size(), cpu.solution.size());
  const double tol = c.precision == Precision::Fp64 || c.method == Method::Auto ? 1e-9 : 1e-4;
  double worst = 0;
  for (std::size_t p = 0; p < P; ++p) {
    ASSERT_EQ(gpu.count[p], cpu.count[p]) << p;
    ASSERT_EQ(gpu.status[p], cpu.status[p]) << p;
    if (cpu.status[p] == kAllMissing) {
      EXPECT_TRUE(std::isnan(gpu.solution[p]) && std::isnan(gpu.residual[p]));
      continue;
    }
    worst = std::max(worst, test::pixel_error(gpu, cpu.solution, p));
    EXPECT_NEAR(gpu.residual[p], cpu.residual[p], 1e-4 * (1 + cpu.residual[p])) << p;
    // An estimate: the same algorithm, but rounding may steer Hager's iteration elsewhere.
    EXPECT_GE(gpu.condition[p] / cpu.condition[p], 0.5) << p;
    EXPECT_LE(gpu.condition[p] / cpu.condition[p], 2.0) << p;
  }
  EXPECT_LE(worst, tol);
  EXPECT_EQ(gpu.status_counts, cpu.status_counts);
  EXPECT_EQ(gpu.fallback_pixels, cpu.fallback_pixels);
  EXPECT_EQ(gpu.shared_pixels, cpu.shared_pixels);
  EXPECT_GT(solver->peak_device_bytes(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, LsqCudaVsCpu,
    ::testing::Values(Case{Method::Auto, Precision::Fp64, 0}, Case{Method::Auto, Precision::Fp32, 0},
                      Case{Method::Normal, Precision::Fp64, 0},
                      Case{Method::Normal, Precision::Fp32, 0},
                      Case{Method::Auto, Precision::Fp64, 0.7},
                      Case{Method::Auto, Precision::Fp32, 0.7},
                      Case{Method::Qr, Precision::Fp64, 0}, Case{Method::Svd, Precision::Fp32, 0}));

/// The original underdetermined case on the device: A (50, 100), no gaps: the shared operator.
TEST(LsqCuda, UnderdeterminedNoGaps) {
  SKIP_WITHOUT_CUDA();
  const Design d = test::random_design(50, 100, 8);
  const Cube c = test::random_cube(d, 16, 16, 0.0, 9);
  Result gpu, cpu;
  make_solver(Backend::Cuda)->solve(c, d, Options{}, gpu);
  make_solver(Backend::Cpu)->solve(c, d, Options{}, cpu);
  EXPECT_EQ(gpu.status_counts[kUnderdetermined], 256u);
  for (std::size_t p = 0; p < 256; ++p) EXPECT_LE(test::pixel_error(gpu, cpu.solution, p), 1e-12);
}

/// Ill-conditioned and rank-deficient pixels go to the host SVD and match the CPU.
TEST(LsqCuda, RankDeficientWithGaps) {
  SKIP_WITHOUT_CUDA();
  Design d = test::random_design(60, 12, 3);
  for (std::size_t i = 0; i < d.m; ++i) d.a[i * 12 + 11] = d.a[i * 12 + 0];
  const Cube c = test::random_cube(d, 20, 30, 0.25, 4);
  for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
    Result gpu, cpu;
    make_solver(Backend::Cuda)->solve(c, d, opts(Method::Auto, prec), gpu);
    make_solver(Backend::Cpu)->solve(c, d, opts(Method::Auto, prec), cpu);
    EXPECT_EQ(gpu.status, cpu.status);
    EXPECT_EQ(gpu.status_counts[kRankDeficient], 600u);
    for (std::size_t p = 0; p < 600; ++p) EXPECT_LE(test::pixel_error(gpu, cpu.solution, p), 1e-9);
  }
}

/// Chunks: a cube larger than one chunk would be on a small device is covered by forcing many
/// chunks through a large cube; here simply a cube of 1.5e5 pixels, compared on a sample.
TEST(LsqCuda, ManyPixels) {
  SKIP_WITHOUT_CUDA();
  SynthSpec s;
  s.height = 300, s.width = 500, s.m = 100, s.n = 50;
  const Synth syn = generate(s);
  Result gpu, cpu;
  make_solver(Backend::Cuda)->solve(syn.cube, syn.design, opts(Method::Auto, Precision::Fp32), gpu);
  make_solver(Backend::Cpu)->solve(syn.cube, syn.design, opts(Method::Auto, Precision::Fp32), cpu);
  for (std::size_t p = 0; p < syn.cube.pixels(); p += 101) {
    ASSERT_EQ(gpu.status[p], cpu.status[p]);
    EXPECT_LE(test::pixel_error(gpu, cpu.solution, p), 1e-9) << p;
  }
}

}  // namespace
}  // namespace simscope::lsq
