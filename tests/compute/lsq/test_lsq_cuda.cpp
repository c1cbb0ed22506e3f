// The CUDA lsq solver against the CPU one (the reference back end), its maps kept on the device
// too (LsqCudaMaps: issue 29). Every test skips with the
// CUDA runtime's reason where no device is usable (CPU-only machines, CPU-only builds).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/device_memory.hpp"
#include "lsq/lsq_device_maps.hpp"
#include "lsq/lsq_internal.hpp"
#include "test_cuda_skip.hpp"
#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::name;
using test::opts;

TEST(LsqCuda, MakeSolverWithoutDevice) {
  if (cuda_status().usable) GTEST_SKIP() << "a CUDA device is usable here";
  EXPECT_THROW(make_solver(Backend::Cuda), Error);
}

/// GPU against CPU, pixel by pixel: counts and statuses equal, solutions within `tol`, residuals
/// close, conditions within 2x (Hager's estimate may take another path), the same counters.
/// Where auto took the downdate or minimum-norm paths (issue 17), the device picks them by the
/// same rule (cuda/small_kernel.cu), so the same estimates; a pixel on the edge of a refusal rule
/// may take the SVD on one back end only: the path counters then agree within 1 %.
void expect_same(const Result& gpu, const Result& cpu, double tol) {
  const bool other_paths = cpu.downdate_pixels + cpu.minnorm_pixels > 0;
  const double cond_lo = other_paths ? 1e-3 : 0.5, cond_hi = other_paths ? 1e3 : 2.0;
  ASSERT_EQ(gpu.solution.size(), cpu.solution.size());
  double worst = 0;
  for (std::size_t p = 0; p < cpu.pixels(); ++p) {
    ASSERT_EQ(gpu.count[p], cpu.count[p]) << p;
    ASSERT_EQ(gpu.status[p], cpu.status[p]) << p;
    if (cpu.status[p] == kAllMissing) {
      EXPECT_TRUE(std::isnan(gpu.solution[p]) && std::isnan(gpu.residual[p]) &&
                  std::isnan(gpu.condition[p]))
          << p;
      continue;
    }
    worst = std::max(worst, test::pixel_error(gpu, cpu.solution, p));
    EXPECT_NEAR(gpu.residual[p], cpu.residual[p], 1e-4 * (1 + cpu.residual[p])) << p;
    EXPECT_GE(gpu.condition[p] / cpu.condition[p], cond_lo) << p;
    EXPECT_LE(gpu.condition[p] / cpu.condition[p], cond_hi) << p;
  }
  EXPECT_LE(worst, tol);
  EXPECT_EQ(gpu.status_counts, cpu.status_counts);
  const std::uint64_t slack = other_paths ? cpu.pixels() / 100 : 0;
  auto near = [&](std::uint64_t a, std::uint64_t b) { return (a > b ? a - b : b - a) <= slack; };
  EXPECT_TRUE(near(gpu.fallback_pixels, cpu.fallback_pixels));
  EXPECT_TRUE(near(gpu.downdate_pixels, cpu.downdate_pixels));
  EXPECT_TRUE(near(gpu.minnorm_pixels, cpu.minnorm_pixels));
  EXPECT_EQ(gpu.shared_pixels, cpu.shared_pixels);
  EXPECT_EQ(gpu.shared_rank, cpu.shared_rank);
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
  const double tol = c.precision == Precision::Fp64 || c.method == Method::Auto ? 1e-9 : 1e-4;
  expect_same(gpu, cpu, tol);
  EXPECT_GT(solver->peak_device_bytes(), 0);
}

INSTANTIATE_TEST_SUITE_P(Methods, LsqCudaVsCpu,
                         ::testing::Values(Case{Method::Auto, Precision::Fp64, 0},
                                           Case{Method::Auto, Precision::Fp32, 0},
                                           Case{Method::Normal, Precision::Fp64, 0},
                                           Case{Method::Normal, Precision::Fp32, 0},
                                           Case{Method::Auto, Precision::Fp64, 0.7},
                                           Case{Method::Auto, Precision::Fp32, 0.7},
                                           Case{Method::Qr, Precision::Fp64, 0},
                                           Case{Method::Svd, Precision::Fp32, 0}));

/// Method downdate on the CUDA back end runs on the device (method_runs_on says Cuda): only
/// its SVD fallbacks are host pixels; results within 1e-10 of the CPU's, the same statuses.
TEST(LsqCuda, DowndateRunsOnDevice) {
  SKIP_WITHOUT_CUDA();
  const Design d = test::random_design(40, 9, 12);
  const Cube c = test::random_cube(d, 11, 13, 0.2, 13);
  Result gpu, cpu;
  make_solver(Backend::Cuda)->solve(c, d, opts(Method::Downdate, Precision::Fp64), gpu);
  make_solver(Backend::Cpu)->solve(c, d, opts(Method::Downdate, Precision::Fp64), cpu);
  for (std::size_t p = 0; p < c.pixels(); ++p)
    if (cpu.count[p] > 0) EXPECT_LE(test::pixel_error(gpu, cpu.solution, p), 1e-10) << p;
  EXPECT_EQ(gpu.status, cpu.status);
  EXPECT_GT(cpu.downdate_pixels, 0u);
  EXPECT_EQ(gpu.downdate_pixels, cpu.downdate_pixels);
  EXPECT_EQ(gpu.host_pixels, gpu.fallback_pixels);
}

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

/// Caps the CUDA solver's chunk (SIMSCOPE_LSQ_CUDA_CHUNK, pixels) for the life of the object.
struct ChunkCap {
  explicit ChunkCap(const char* pixels) { setenv("SIMSCOPE_LSQ_CUDA_CHUNK", pixels, 1); }
  ~ChunkCap() { unsetenv("SIMSCOPE_LSQ_CUDA_CHUNK"); }
};

/// Many chunks through both streams (chunks of 128 pixels, the last one 108) on the target's
/// shape (M = 100, N = 50: N > 32 and not a multiple of 32), with an all-missing pixel and
/// pixels without gaps in later chunks and across a chunk boundary; one solver object reused
/// for both precisions and then for another shape and a float64 cube (buffers re-allocated),
/// progress reaching 1. Small enough for compute-sanitizer's racecheck.
TEST(LsqCuda, ChunksAndReuse) {
  SKIP_WITHOUT_CUDA();
  const ChunkCap cap("128");
  SynthSpec s;
  s.height = 20, s.width = 31, s.m = 100, s.n = 50;
  Synth syn = generate(s);
  const std::size_t P = syn.cube.pixels();
  float* v = reinterpret_cast<float*>(syn.cube.bytes.data());
  for (std::size_t i = 0; i < s.m; ++i) {
    v[i * P + 300] = NAN;  // all missing, chunk 2
    for (std::size_t p : {255u, 256u, 257u, 600u}) v[i * P + p] = 0.25f * float(i % 7);  // no gaps
  }
  auto solver = make_solver(Backend::Cuda);
  for (Precision prec : {Precision::Fp64, Precision::Fp32}) {
    SCOPED_TRACE(name(prec));
    Result gpu, cpu;
    Progress pr;
    solver->solve(syn.cube, syn.design, opts(Method::Auto, prec), gpu, &pr);
    make_solver(Backend::Cpu)->solve(syn.cube, syn.design, opts(Method::Auto, prec), cpu);
    expect_same(gpu, cpu, 1e-9);
    EXPECT_EQ(gpu.status_counts[kAllMissing], 1u);
    EXPECT_EQ(gpu.shared_pixels, 4u);
    EXPECT_DOUBLE_EQ(pr.fraction.load(), 1.0);
  }
  const Design d = test::random_design(23, 7, 13);
  const Cube c = test::random_cube(d, 9, 31, 0.3, 14);  // float64, 279 pixels: 3 chunks
  Result gpu, cpu;
  solver->solve(c, d, opts(Method::Normal, Precision::Fp64, 0.3), gpu);
  make_solver(Backend::Cpu)->solve(c, d, opts(Method::Normal, Precision::Fp64, 0.3), cpu);
  expect_same(gpu, cpu, 1e-9);
}

/// The largest N (128: in fp64 one warp's factor needs 70 KB of shared memory, past the 48 KB
/// default, so the kernel opts in) and N = 33 (one lane past a warp), both precisions, with
/// and without Tikhonov.
TEST(LsqCuda, LargeUnknowns) {
  SKIP_WITHOUT_CUDA();
  for (std::size_t n : {std::size_t(33), kMaxUnknowns}) {
    const Design d = test::random_design(300, n, unsigned(n));
    const Cube c = test::random_cube(d, 2, 3, 0.1, unsigned(n) + 1);
    for (Precision prec : {Precision::Fp64, Precision::Fp32})
      for (double lambda : {0.0, 2.0}) {
        SCOPED_TRACE("N " + std::to_string(n) + " " + name(prec) + " lambda " +
                     std::to_string(lambda));
        Result gpu, cpu;
        make_solver(Backend::Cuda)->solve(c, d, opts(Method::Auto, prec, lambda), gpu);
        make_solver(Backend::Cpu)->solve(c, d, opts(Method::Auto, prec, lambda), cpu);
        expect_same(gpu, cpu, 1e-9);
        EXPECT_EQ(gpu.fallback_pixels, 0u);
      }
  }
}

/// Edge shapes: one unknown, one observation, M < N with and without gaps, M < 32 (a partial
/// tile of the mask transpose), Tikhonov on pixels with fewer rows than unknowns.
TEST(LsqCuda, EdgeShapes) {
  SKIP_WITHOUT_CUDA();
  struct Shape {
    std::size_t m, n, h, w;
  };
  for (const Shape sh : {Shape{1, 1, 3, 2}, Shape{3, 1, 1, 1}, Shape{2, 3, 5, 1}, Shape{5, 3, 2, 3},
                         Shape{60, 17, 1, 9}}) {
    const Design d = test::random_design(sh.m, sh.n, unsigned(sh.m * 7 + sh.n));
    const Cube c = test::random_cube(d, sh.h, sh.w, sh.m > 2 ? 0.2 : 0.0, 5);
    for (Precision prec : {Precision::Fp64, Precision::Fp32})
      for (double lambda : {0.0, 0.5}) {
        SCOPED_TRACE("M " + std::to_string(sh.m) + " N " + std::to_string(sh.n) + " " + name(prec) +
                     " lambda " + std::to_string(lambda));
        Result gpu, cpu;
        make_solver(Backend::Cuda)->solve(c, d, opts(Method::Auto, prec, lambda), gpu);
        make_solver(Backend::Cpu)->solve(c, d, opts(Method::Auto, prec, lambda), cpu);
        expect_same(gpu, cpu, 1e-9);
      }
  }
}

/// A cube that fits one chunk stays on the device between solves of the same Cube::generation
/// (results identical to the first solve's), and only then: another cube of the same shape, and
/// a changed copy whose generation is 0 ("unknown"), are uploaded and solved as the CPU does;
/// after them the first cube is uploaded again.
TEST(LsqCuda, ResidentCubeFollowsTheGeneration) {
  SKIP_WITHOUT_CUDA();
  const Design d = test::random_design(40, 8, 41);
  const Cube a = test::random_cube(d, 12, 17, 0.2, 42);
  const Cube b = test::random_cube(d, 12, 17, 0.2, 43);
  ASSERT_NE(a.generation, 0u);
  ASSERT_NE(a.generation, b.generation);
  Cube changed = a;  // same shape and values, then every value doubled, generation unknown
  ASSERT_EQ(changed.dtype, io::DType::Float64);
  double* v = reinterpret_cast<double*>(changed.bytes.data());
  for (std::size_t k = 0; k < changed.size(); ++k) v[k] *= 2;
  changed.generation = 0;
  auto solver = make_solver(Backend::Cuda);
  auto cpu = make_solver(Backend::Cpu);
  Result first, again, ref;
  solver->solve(a, d, Options{}, first);
  cpu->solve(a, d, Options{}, ref);
  expect_same(first, ref, 1e-9);
  solver->solve(a, d, Options{}, again);  // resident
  expect_same(again, first, 0.0);
  for (const Cube* c : std::initializer_list<const Cube*>{&b, &changed, &changed, &a}) {
    Result gpu, want;
    solver->solve(*c, d, Options{}, gpu);
    cpu->solve(*c, d, Options{}, want);
    expect_same(gpu, want, 1e-9);
  }
}

/// A cancelled solve throws Cancelled, and the same solver then solves normally.
TEST(LsqCuda, CancelThenReuse) {
  SKIP_WITHOUT_CUDA();
  const ChunkCap cap("64");
  const Design d = test::random_design(20, 6, 31);
  const Cube c = test::random_cube(d, 10, 20, 0.2, 32);
  auto solver = make_solver(Backend::Cuda);
  Result gpu, cpu;
  Progress cancelled;
  cancelled.cancel = true;
  EXPECT_THROW(solver->solve(c, d, Options{}, gpu, &cancelled), Cancelled);
  solver->solve(c, d, Options{}, gpu);
  make_solver(Backend::Cpu)->solve(c, d, Options{}, cpu);
  expect_same(gpu, cpu, 1e-9);
}

/// The fp32 Gram sums every observed row in float (cuBLAS, no TF32) while the CPU downdates a
/// float64 A^T A, so the GPU's error grows with M: at M = 2000 (A: N(0,1), N = 9, 20 % gaps).
/// Tolerance of the unrefined fp32 normal equations: the summation bound |dG| <= gamma_M |A|^T|A|
/// (Higham, Accuracy and Stability, 3.5; gamma_M = M u / (1 - M u), u = 2^-24, so 1.2e-4) gives
/// ||dG|| / ||G|| <= gamma_M * (2/pi) N M / (M (1 + sqrt(N/M))^2) ~ 6.2e-4 (entries of |A|^T|A|
/// about (2/pi) M off the diagonal, ||G|| about M (1 + sqrt(N/M))^2), times cond(G) ~ 1.3
/// (Marchenko-Pastur: ((1 + sqrt(N/M)) / (1 - sqrt(N/M)))^2), plus the fp32 Cholesky's N u cond:
/// 8.1e-4 in the worst case, so 1e-3 always holds for correct sums (rounding errors that do not
/// all align give ~sqrt(M) u cond ~ 1e-5), while gaps taken as zeros, a wrong Gram layout or
/// TF32 products (u = 2^-11: the same bound gives ~0.2) fail it. Method auto refines with float64
/// residuals: the same 1e-9 as every other auto case.
TEST(LsqCuda, Fp32AtManyObservations) {
  SKIP_WITHOUT_CUDA();
  const Design d = test::random_design(2000, 9, 21);
  const Cube c = test::random_cube(d, 8, 12, 0.2, 22);
  Result cpu;
  make_solver(Backend::Cpu)->solve(c, d, opts(Method::Auto, Precision::Fp64), cpu);
  for (Method m : {Method::Normal, Method::Auto}) {
    SCOPED_TRACE(name(m));
    Result gpu;
    make_solver(Backend::Cuda)->solve(c, d, opts(m, Precision::Fp32), gpu);
    expect_same(gpu, cpu, m == Method::Normal ? 1e-3 : 1e-9);
  }
}

// The chunk size as a pure function (issue 16 item 3; runs without a device): the bytes the
// solver's buffers hold count as available, so the second solve gets the first one's chunk.
TEST(LsqCudaChunk, BytesHeldCountAsAvailable) {
  using detail::chunk_pixels;
  const double pp = 1000;  // bytes per pixel of one buffer set
  // Both sets in half of 1e9 bytes: 250000 pixels.
  const std::size_t first = chunk_pixels(pp, 1000000000, 0, 1 << 22, 100, 1275, 0);
  EXPECT_EQ(first, 250000u);
  // The second solve: the first one's two sets (2 x 250000 x 1000 bytes) are held, not free.
  const std::size_t held = 2 * first * std::size_t(pp);
  EXPECT_EQ(chunk_pixels(pp, 1000000000 - held, held, 1 << 22, 100, 1275, 0), first);
  // (Without counting them it would have been half: the bug.)
  EXPECT_EQ(chunk_pixels(pp, 1000000000 - held, 0, 1 << 22, 100, 1275, 0), first / 2);
}

TEST(LsqCudaChunk, Limits) {
  using detail::chunk_pixels;
  const std::size_t big = std::size_t(1) << 40;
  EXPECT_EQ(chunk_pixels(100, big, 0, std::size_t(1) << 30, 10, 10, 0), std::size_t(1) << 20);
  EXPECT_EQ(chunk_pixels(100, big, 0, 5000, 10, 10, 0), 5000u);   // the cube's pixels
  EXPECT_EQ(chunk_pixels(100, big, 0, 5000, 10, 10, 128), 128u);  // SIMSCOPE_LSQ_CUDA_CHUNK
  EXPECT_EQ(chunk_pixels(100, big, 0, 1 << 22, 100, 8256, 0), 2147483647u / 8256);  // N = 128
  EXPECT_EQ(chunk_pixels(100, big, 0, 0, 10, 10, 0), 1u);                           // an empty cube
  // 31 pixels fit (4 x 31 x 1000 bytes): not enough for a cube of 1000 pixels, enough for 20.
  EXPECT_EQ(chunk_pixels(1000, 124000, 0, 1000, 10, 10, 0), 0u);
  EXPECT_EQ(chunk_pixels(1000, 124000, 0, 20, 10, 10, 0), 20u);
}

}  // namespace
}  // namespace simscope::lsq

namespace simscope::lsq {
namespace {

/// The solver's kept maps copied to the host as a Result (the test's own download).
Result download_maps(const Solver& solver, const Result& kept, Precision precision) {
  Result r = kept;
  const std::size_t P = kept.pixels(), N = kept.n;
  auto get = [&](const char* name, void* dst, std::size_t bytes) {
    const std::shared_ptr<const void> p = solver.device_output(name);
    ASSERT_NE(p, nullptr) << name;
    copy_device_to_host(dst, p.get(), bytes, solver.device());
  };
  r.solution.resize(N * P);
  if (precision == Precision::Fp32) {
    std::vector<float> s(N * P);
    get("solution", s.data(), s.size() * 4);
    r.solution.assign(s.begin(), s.end());
  } else {
    get("solution", r.solution.data(), N * P * 8);
  }
  r.residual.resize(P), r.condition.resize(P), r.count.resize(P), r.status.resize(P);
  get("residual", r.residual.data(), P * 4);
  get("condition", r.condition.data(), P * 4);
  get("count", r.count.data(), P * 4);
  get("status", r.status.data(), P);
  return r;
}

class LsqCudaMaps : public ::testing::TestWithParam<Case> {};

/// Issue 29: the maps assembled on the device across chunks (chunks of 96 pixels through both
/// streams) and kept there equal the CPU's within LsqCudaVsCpu's tolerances, with the same
/// counts; the host-solved pixels (fallbacks; every pixel with gaps for qr/svd) are in them;
/// the Result's vectors stay empty; a held map is unchanged by the next solve.
TEST_P(LsqCudaMaps, DeviceMapsEqualTheCpu) {
  SKIP_WITHOUT_CUDA();
  const ChunkCap cap("96");
  const Case c = GetParam();
  SynthSpec s;
  s.height = 29, s.width = 41, s.m = 30, s.n = 7, s.nan_fraction = 0.3, s.noise = 0.05;
  Synth syn = generate(s);
  const std::size_t P = syn.cube.pixels();
  float* v = reinterpret_cast<float*>(syn.cube.bytes.data());
  for (std::size_t i = 0; i < s.m; ++i) {
    for (std::size_t w = 0; w < s.width; ++w)
      if (std::isnan(v[i * P + w])) v[i * P + w] = 0.5f;  // row 0 without gaps
    v[i * P + 200] = NAN;                                  // all missing
    if (i >= 3) v[i * P + 201] = NAN;                      // 3 rows < N
  }
  const Options o = opts(c.method, c.precision, c.lambda);
  auto solver = make_solver(Backend::Cuda);
  ASSERT_TRUE(solver->keep_outputs_on_device(true));
  Result kept, cpu;
  solver->solve(syn.cube, syn.design, o, kept);
  make_solver(Backend::Cpu)->solve(syn.cube, syn.design, o, cpu);
  ASSERT_FALSE(kept.on_host) << kept.device_note;
  EXPECT_TRUE(kept.solution.empty() && kept.residual.empty() && kept.status.empty());
  EXPECT_EQ(kept.device_inf, (std::array<std::uint64_t, 2>{0, 0}));
  const Result got = download_maps(*solver, kept, c.precision);
  const double tol = c.precision == Precision::Fp64 || c.method == Method::Auto ? 1e-9 : 1e-4;
  expect_same(got, cpu, tol);
  if (c.method == Method::Qr || c.method == Method::Svd) EXPECT_GT(kept.host_pixels, 0u);
  // The held maps outlive the next solve (another problem): unchanged.
  const std::shared_ptr<const void> held = solver->device_output("residual");
  SynthSpec s2 = s;
  s2.seed = 11;
  Result next;
  solver->solve(generate(s2).cube, syn.design, o, next);
  std::vector<float> again(P);
  copy_device_to_host(again.data(), held.get(), P * 4, solver->device());
  for (std::size_t p = 0; p < P; ++p)
    EXPECT_TRUE(again[p] == got.residual[p] || (std::isnan(again[p]) && std::isnan(got.residual[p])))
        << p;
  EXPECT_NE(solver->device_output("residual"), held);
  // Asked not to keep them: host vectors as before, no device maps.
  solver->keep_outputs_on_device(false);
  Result host;
  solver->solve(syn.cube, syn.design, o, host);
  EXPECT_TRUE(host.on_host);
  EXPECT_EQ(solver->device_output("residual"), nullptr);
  expect_same(host, cpu, tol);
}

INSTANTIATE_TEST_SUITE_P(Methods, LsqCudaMaps,
                         ::testing::Values(Case{Method::Auto, Precision::Fp64, 0},
                                           Case{Method::Auto, Precision::Fp32, 0},
                                           Case{Method::Normal, Precision::Fp32, 0},
                                           Case{Method::Downdate, Precision::Fp64, 0},
                                           Case{Method::Qr, Precision::Fp64, 0},
                                           Case{Method::Svd, Precision::Fp32, 0.5}));

/// Maps that would not fit the device (SIMSCOPE_LSQ_CUDA_MAPS_ROOM: 10 kB for 180 kB of maps)
/// come back to the host, with a note naming both sizes; the results are the host path's.
TEST(LsqCudaMaps, MapsThatDoNotFitComeBackToTheHost) {
  SKIP_WITHOUT_CUDA();
  setenv("SIMSCOPE_LSQ_CUDA_MAPS_ROOM", "10000", 1);
  SynthSpec s;
  s.height = 30, s.width = 40, s.m = 20, s.n = 15;
  const Synth syn = generate(s);
  auto solver = make_solver(Backend::Cuda);
  solver->keep_outputs_on_device(true);
  Result got, cpu;
  solver->solve(syn.cube, syn.design, Options{}, got);
  unsetenv("SIMSCOPE_LSQ_CUDA_MAPS_ROOM");
  EXPECT_TRUE(got.on_host);
  EXPECT_NE(got.device_note.find("15 x 1200 pixels"), std::string::npos) << got.device_note;
  EXPECT_EQ(solver->device_output("residual"), nullptr);
  make_solver(Backend::Cpu)->solve(syn.cube, syn.design, Options{}, cpu);
  expect_same(got, cpu, 1e-9);
  EXPECT_DOUBLE_EQ(device_maps_bytes(15, 1200), 1200.0 * (15 * 8 + 13));
}

/// The view image of a kept map (lsq_device_maps.hpp): upright, as the host path draws it, with
/// the symmetric range's largest |value|; row ranges concatenated on the device equal the
/// whole solve's maps.
TEST(LsqCudaMaps, UprightImageAndRowConcatOnTheDevice) {
  SKIP_WITHOUT_CUDA();
  SynthSpec s;
  s.height = 13, s.width = 17, s.m = 12, s.n = 3, s.nan_fraction = 0.2;
  const Synth syn = generate(s);
  auto solver = make_solver(Backend::Cuda);
  solver->keep_outputs_on_device(true);
  Result whole;
  solver->solve(syn.cube, syn.design, Options{}, whole);
  const Result host = download_maps(*solver, whole, Precision::Fp64);
  const std::size_t H = s.height, W = s.width, P = H * W;
  double m = -1;
  const std::shared_ptr<const float> img = upright_image_on_device(
      solver->device_output("solution").get(), io::DType::Float64, P, H, W, solver->device(), &m);
  std::vector<float> got(P);
  copy_device_to_host(got.data(), img.get(), P * 4, solver->device());
  double want_m = 0;
  for (std::size_t i = 0; i < W; ++i)
    for (std::size_t j = 0; j < H; ++j) {
      const float want = float(host.solution[P + (H - 1 - j) * W + i]);
      EXPECT_EQ(got[i * H + j], want) << i << " " << j;
      if (std::isfinite(want)) want_m = std::max(want_m, double(std::fabs(want)));
    }
  EXPECT_EQ(m, want_m);
  // Rows [0, 5) and [5, 13) solved apart, concatenated on the device.
  std::vector<std::shared_ptr<const void>> keep;
  std::vector<const void*> parts;
  std::vector<std::size_t> bytes;
  for (const IndexRange& rows : {IndexRange{0, 5}, IndexRange{5, 13}}) {
    Result part;
    solver->solve(syn.cube, syn.design, rows, Options{}, part);
    keep.push_back(solver->device_output("solution"));
    parts.push_back(keep.back().get());
    bytes.push_back((rows.end - rows.begin) * W * 8);
  }
  const std::shared_ptr<const void> merged =
      concat_blocks_on_device(parts, bytes, s.n, solver->device());
  std::vector<double> x(s.n * P);
  copy_device_to_host(x.data(), merged.get(), x.size() * 8, solver->device());
  ASSERT_EQ(x.size(), host.solution.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(host.solution[i])) EXPECT_TRUE(std::isnan(x[i])) << i;
    else EXPECT_NEAR(x[i], host.solution[i], 1e-12 * (1 + std::fabs(host.solution[i]))) << i;
}

}  // namespace
}  // namespace simscope::lsq
