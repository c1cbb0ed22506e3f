// Work ranges of lsq (issue 11 item 5) and where its methods run (item 4): a solve split into
// 1, 2, 3 and 7 pixel-row ranges and merged is bit-identical to the unsplit one on the CPU back
// end for every method and precision; on the CUDA back end (GPU machines) it agrees within the
// precision's tolerance. Bad ranges are clear errors; host_pixels counts what ran on the host.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "test_bits.hpp"
#include "test_lsq_util.hpp"
#include "test_cuda_skip.hpp"

namespace simscope::lsq {
namespace {

using test::error_of;
using test::opts;

/// A float64 cube (M = 24, H = 37, W = 13, N = 6) with 30 % gaps, cube row 0 without gaps,
/// pixel (1, 0) all missing and pixel (1, 1) underdetermined (3 rows < N).
struct Problem {
  Design design = test::random_design(24, 6, 11);
  Cube cube = test::random_cube(design, 37, 13, 0.3, 12);
  Problem() {
    double* v = reinterpret_cast<double*>(cube.bytes.data());
    const std::size_t P = cube.pixels(), W = cube.width;
    for (std::size_t i = 0; i < cube.m; ++i) {
      for (std::size_t w = 0; w < W; ++w)
        if (std::isnan(v[i * P + w])) v[i * P + w] = 0.25 * double(i);
      v[i * P + W] = NAN;
      if (i >= 3) v[i * P + W + 1] = NAN;
    }
  }
  /// Pixels with gaps (0 < observed < M), counted from the cube.
  std::uint64_t gap_pixels() const {
    std::uint64_t n = 0;
    for (std::size_t p = 0; p < cube.pixels(); ++p) {
      std::size_t c = 0;
      for (std::size_t i = 0; i < cube.m; ++i) c += !std::isnan(cube.at(i, p));
      n += c > 0 && c < cube.m;
    }
    return n;
  }
};

using simscope::test::same_bits;

Result split_run(Solver& s, const Problem& pb, const Options& o, std::size_t parts) {
  std::vector<Result> results;
  for (const IndexRange& r : split_evenly(pb.cube.height, parts)) {
    results.emplace_back();
    s.solve(pb.cube, pb.design, r, o, results.back());
    EXPECT_EQ(results.back().row_begin, r.begin);
    EXPECT_EQ(results.back().height, r.end - r.begin);
  }
  return merge_row_ranges(results);
}

const Method kMethods[] = {Method::Auto, Method::Normal, Method::Qr, Method::Svd};

TEST(LsqRanges, SplitRowsAreBitIdenticalOnTheCpu) {
  const Problem pb;
  auto solver = make_solver(Backend::Cpu);
  for (Method m : kMethods)
    for (Precision p : {Precision::Fp32, Precision::Fp64})
      for (double lambda : {0.0, 0.3}) {
        const Options o = opts(m, p, lambda);
        Result whole;
        solver->solve(pb.cube, pb.design, o, whole);
        EXPECT_EQ(whole.row_begin, 0u);
        EXPECT_EQ(whole.height, pb.cube.height);
        // Not vacuous: a pixel with gaps is the long-double reference's (fp64, lambda = 0).
        if (p == Precision::Fp64 && lambda == 0) {
          const std::size_t px = 5 * pb.cube.width + 4;
          EXPECT_LE(test::pixel_error(
                        whole,
                        [&] {
                          std::vector<double> ref(whole.n * whole.pixels());
                          const auto x = test::reference_solution(pb.cube, pb.design, px);
                          for (std::size_t k = 0; k < whole.n; ++k)
                            ref[k * whole.pixels() + px] = x[k];
                          return ref;
                        }(),
                        px),
                    1e-8)
              << test::name(m);
        }
        // What ran on the host: qr/svd every pixel with gaps, auto/normal their fallbacks.
        if (m == Method::Qr || m == Method::Svd)
          EXPECT_EQ(whole.host_pixels, pb.gap_pixels()) << test::name(m);
        else
          EXPECT_EQ(whole.host_pixels, whole.fallback_pixels) << test::name(m);
        for (std::size_t parts : {1u, 2u, 3u, 7u}) {
          const Result r = split_run(*solver, pb, o, parts);
          const std::string what = std::string(test::name(m)) + " " + test::name(p) + " lambda " +
                                   std::to_string(lambda) + " parts " + std::to_string(parts);
          EXPECT_EQ(r.row_begin, 0u) << what;
          EXPECT_EQ(r.height, whole.height) << what;
          EXPECT_EQ(r.width, whole.width) << what;
          EXPECT_TRUE(same_bits(r.solution, whole.solution)) << what;
          EXPECT_TRUE(same_bits(r.residual, whole.residual)) << what;
          EXPECT_TRUE(same_bits(r.condition, whole.condition)) << what;
          EXPECT_TRUE(same_bits(r.count, whole.count)) << what;
          EXPECT_TRUE(same_bits(r.status, whole.status)) << what;
          EXPECT_EQ(r.status_counts, whole.status_counts) << what;
          EXPECT_EQ(r.fallback_pixels, whole.fallback_pixels) << what;
          EXPECT_EQ(r.shared_pixels, whole.shared_pixels) << what;
          EXPECT_EQ(r.host_pixels, whole.host_pixels) << what;
          EXPECT_EQ(r.shared_rank, whole.shared_rank) << what;
        }
      }
}

/// Shared missing-row patterns (compute/lsq/cpu/pattern.hpp) are found per band of 256 cube
/// pixels, whatever rows a solve covers: split into row ranges that cut those bands, every pixel
/// takes the same path and gives the same bits as in the unsplit solve.
TEST(LsqRanges, SharedPatternsSplitRowsAreBitIdentical) {
  const Design d = test::random_design(24, 6, 11);
  Cube cube = test::random_cube(d, 37, 13, 0.0, 12);
  Cube gappy = test::random_cube(d, 37, 13, 0.3, 13);
  double* v = reinterpret_cast<double*>(cube.bytes.data());
  const std::size_t P = cube.pixels();
  for (std::size_t p = 0; p < P; ++p) {
    if (p % 5 == 0) {  // every fifth pixel: random gaps, its own pattern
      for (std::size_t i = 0; i < cube.m; ++i)
        if (std::isnan(gappy.at(i, p))) v[i * P + p] = NAN;
      continue;
    }
    // three patterns: frames 2..9 missing; frames 0, 5 and 17 missing; 4 observed rows (< N)
    for (std::size_t i = 0; i < cube.m; ++i) {
      const std::size_t q = p % 3;
      const bool miss = q == 0 ? (i >= 2 && i < 10) : q == 1 ? (i == 0 || i == 5 || i == 17)
                                                            : (i % 6 != 0);
      if (miss) v[i * P + p] = NAN;
    }
  }
  auto solver = make_solver(Backend::Cpu);
  for (Method m : {Method::Auto, Method::Normal})
    for (Precision p : {Precision::Fp32, Precision::Fp64})
      for (double lambda : {0.0, 0.3}) {
        const Options o = opts(m, p, lambda);
        Result whole;
        solver->solve(cube, d, o, whole);
        const std::string what0 = std::string(test::name(m)) + " " + test::name(p);
        EXPECT_GT(whole.pattern_pixels, P / 2) << what0;  // most pixels take a pattern
        for (std::size_t parts : {2u, 3u, 7u}) {
          std::vector<Result> results;
          for (const IndexRange& r : split_evenly(cube.height, parts)) {
            results.emplace_back();
            solver->solve(cube, d, r, o, results.back());
          }
          const Result r = merge_row_ranges(results);
          const std::string what = what0 + " parts " + std::to_string(parts);
          EXPECT_TRUE(same_bits(r.solution, whole.solution)) << what;
          EXPECT_TRUE(same_bits(r.residual, whole.residual)) << what;
          EXPECT_TRUE(same_bits(r.condition, whole.condition)) << what;
          EXPECT_TRUE(same_bits(r.status, whole.status)) << what;
          EXPECT_EQ(r.pattern_pixels, whole.pattern_pixels) << what;
        }
      }
}

TEST(LsqRanges, RowRangeOutsideTheCubeIsRefused) {
  const Problem pb;
  auto solver = make_solver(Backend::Cpu);
  Result out;
  out.residual = {7.0f};
  EXPECT_EQ(error_of([&] {
              solver->solve(pb.cube, pb.design, {30, 40}, Options{}, out);
            }),
            "lsq: pixel rows: range [30, 40) is not within [0, 37)");
  EXPECT_EQ(out.residual.size(), 1u);  // untouched
  Result empty;
  solver->solve(pb.cube, pb.design, {37, 37}, Options{}, empty);
  EXPECT_EQ(empty.pixels(), 0u);
}

TEST(LsqRanges, MergeRefusesPartsThatDoNotFit) {
  const Problem pb;
  auto solver = make_solver(Backend::Cpu);
  Result a, b, c;
  solver->solve(pb.cube, pb.design, {0, 5}, Options{}, a);
  solver->solve(pb.cube, pb.design, {6, 9}, Options{}, b);
  EXPECT_NE(error_of([&] { merge_row_ranges({a, b}); }).find("consecutive"), std::string::npos);
  c = b;
  c.row_begin = 5;
  c.width = 12;
  EXPECT_NE(error_of([&] { merge_row_ranges({a, c}); }).find("columns"), std::string::npos);
  EXPECT_NE(error_of([] { merge_row_ranges({}); }), "");
}

TEST(LsqMethods, QrAndSvdRunOnTheHostOnEveryBackEnd) {
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    EXPECT_EQ(method_runs_on(Method::Qr, b), Backend::Cpu);
    EXPECT_EQ(method_runs_on(Method::Svd, b), Backend::Cpu);
    EXPECT_EQ(method_runs_on(Method::Auto, b), b);
    EXPECT_EQ(method_runs_on(Method::Normal, b), b);
  }
  for (Method m : kMethods) EXPECT_EQ(std::string(to_string(m)), test::name(m));
}

// GPU machines (tests/gpu/run.sh runs every *Cuda* test): the CUDA solver's row ranges against
// its unsplit solve (cuBLAS may sum in another order for other chunk widths: within tolerance,
// same statuses), and host_pixels for qr (all pixels with gaps solved on the host).
TEST(LsqRangesCuda, SplitRowsAgreeWithTheWhole) {
  SKIP_WITHOUT_CUDA();
  const Problem pb;
  auto solver = make_solver(Backend::Cuda);
  for (Method m : kMethods)
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      const Options o = opts(m, p, 0);
      Result whole;
      solver->solve(pb.cube, pb.design, o, whole);
      if (m == Method::Qr || m == Method::Svd) EXPECT_EQ(whole.host_pixels, pb.gap_pixels());
      const double tol = p == Precision::Fp64 || m == Method::Auto ? 1e-9 : 1e-4;
      for (std::size_t parts : {1u, 2u, 3u, 7u}) {
        const Result r = split_run(*solver, pb, o, parts);
        ASSERT_EQ(r.pixels(), whole.pixels());
        EXPECT_TRUE(same_bits(r.status, whole.status)) << test::name(m) << " parts " << parts;
        EXPECT_TRUE(same_bits(r.count, whole.count));
        double worst = 0;
        for (std::size_t px = 0; px < r.pixels(); ++px)
          if (whole.status[px] != kAllMissing)
            worst = std::max(worst, test::pixel_error(r, whole.solution, px));
        EXPECT_LE(worst, tol) << test::name(m) << " " << test::name(p) << " parts " << parts;
        EXPECT_EQ(r.host_pixels, whole.host_pixels);
      }
    }
}

}  // namespace
}  // namespace simscope::lsq
