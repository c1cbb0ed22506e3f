// The CPU solver's outputs as the run layer takes them (issue 42): with
// Options::float32_solution the solution is written once as float32, each value the float64
// solve's rounded once; the solver's own counts of values that overflow float32 equal a count
// over the maps; row ranges merge either way.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "test_bits.hpp"
#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::opts;
using test::random_cube;
using test::random_design;

std::uint64_t count_inf(const auto& v) {
  std::uint64_t n = 0;
  for (const auto x : v) n += std::isinf(float(x));
  return n;
}

// |x32 - x|_2 / |x|_2 of pixel p (N components P apart): a float32 solution against float64.
double pixel_rel(const BigVector<float>& x32, const BigVector<double>& x, std::size_t p,
                 std::size_t P, std::size_t N) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < N; ++k) {
    const double d = double(x32[k * P + p]) - x[k * P + p];
    num += d * d, den += x[k * P + p] * x[k * P + p];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Gaps of every kind (empty pixels, underdetermined, the shared SVD of gap-free pixels), both
// precisions and every method: solution32 holds float(solution) bit for bit, but for the
// gap-free pixels of an fp32 solve, whose float32 solution is summed from float32 products
// (SharedBlock): within 1e-6 of the float64 one (docs/lsq.md: fp32 ~1e-7, tested <= 1e-6).
TEST(LsqFloat32Solution, IsTheFloat64SolutionRoundedOnce) {
  const Design d = random_design(12, 5, 3);
  for (double nan : {0.0, 0.3, 0.7})
    for (Precision p : {Precision::Fp64, Precision::Fp32})
      for (Method m : {Method::Auto, Method::Normal, Method::Downdate, Method::Qr}) {
        const Cube c = random_cube(d, 9, 23, nan, 7);
        auto solver = make_solver(Backend::Cpu);
        Result wide, narrow;
        Options o = opts(m, p);
        solver->solve(c, d, o, wide);
        o.float32_solution = true;
        solver->solve(c, d, o, narrow);
        const std::string what = std::string(test::name(m)) + " " + test::name(p) + " " +
                                 std::to_string(nan);
        ASSERT_TRUE(narrow.solution.empty()) << what;
        ASSERT_EQ(narrow.solution32.size(), wide.solution.size()) << what;
        const std::size_t P = wide.count.size();
        std::size_t products32 = 0;
        for (std::size_t i = 0; i < wide.solution.size(); ++i) {
          if (p == Precision::Fp32 && std::size_t(wide.count[i % P]) == d.m) {
            ++products32;
            continue;
          }
          const float want = float(wide.solution[i]);
          ASSERT_TRUE(std::memcmp(&want, &narrow.solution32[i], 4) == 0 ||
                      (std::isnan(want) && std::isnan(narrow.solution32[i])))
              << what << " value " << i;
        }
        for (std::size_t q = 0; q < P; ++q)
          if (p == Precision::Fp32 && std::size_t(wide.count[q]) == d.m)
            EXPECT_LE(pixel_rel(narrow.solution32, wide.solution, q, P, d.n), 1e-6)
                << what << " pixel " << q;
        EXPECT_EQ(products32 > 0, p == Precision::Fp32 && nan < 0.5) << what;
        EXPECT_EQ(narrow.status, wide.status) << what;
        EXPECT_EQ(narrow.count, wide.count) << what;
        EXPECT_TRUE(simscope::test::same_bits(narrow.residual, wide.residual)) << what;
        EXPECT_TRUE(simscope::test::same_bits(narrow.condition, wide.condition)) << what;
        // Row ranges merge into solution32 as well, equal to the whole.
        Result top, bottom;
        solver->solve(c, d, IndexRange{0, 4}, o, top);
        solver->solve(c, d, IndexRange{4, 9}, o, bottom);
        const Result merged = merge_row_ranges({top, bottom});
        EXPECT_TRUE(simscope::test::same_bits(merged.solution32, narrow.solution32)) << what;
        EXPECT_TRUE(merged.solution.empty()) << what;
      }
}

// Data of 1e38 over a design of 1e-2 give solutions near 1e40, beyond float32: the solver's
// counts, made as it writes, equal a count over the maps it wrote, in float64 and float32
// output alike.
TEST(LsqFloat32Solution, InfCountsAsTheMapsHoldThem) {
  Design d;
  d.m = 4, d.n = 2;
  d.a = {1e-2, 2e-2, 3e-2, -1e-2, -2e-2, 1e-2, 1e-2, 1e-2};
  std::vector<double> v(4 * 2 * 3);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1e38 * (1 + 0.1 * double(k % 5));
  v[5] = 1;  // one pixel's solution within float32
  v[0 * 6 + 1] = std::numeric_limits<double>::quiet_NaN();  // a pixel with a gap
  const Cube c = make_cube(std::move(v), 4, 2, 3);
  for (bool f32 : {false, true}) {
    Options o = opts(Method::Auto, Precision::Fp64);
    o.float32_solution = f32;
    Result r;
    make_solver(Backend::Cpu)->solve(c, d, o, r);
    ASSERT_TRUE(r.host_inf_counted);
    const std::uint64_t want = f32 ? count_inf(r.solution32) : count_inf(r.solution);
    EXPECT_GT(want, 0u) << "the case overflows float32";
    EXPECT_EQ(r.host_inf[0], want) << f32;
    EXPECT_EQ(r.host_inf[1], count_inf(r.residual)) << f32;
  }
}

// Gap-free bands of an underdetermined design (rank M, lambda 0: residuals without x) are
// written from the tiles straight to the result, float64 or float32 (streamed, no stage); a
// row range that cuts a band solves that band through the stage. Both give the same bits, the
// float32 map is the float64 one rounded once (an fp32 solve's: from float32 products, within
// 1e-6 of it, though b is 1e39, beyond float32: scaled by powers of two), and the overflow
// counts equal counts over the maps. W = 37: the rows start at every alignment.
TEST(LsqFloat32Solution, StreamedBandsEqualStagedOnes) {
  const Design d = random_design(3, 5, 8);
  constexpr std::size_t H = 20, W = 37;  // 740 pixels: bands [0, 256), [256, 512), [512, 740)
  std::vector<double> v(3 * H * W);
  for (std::size_t k = 0; k < v.size(); ++k)  // solutions beyond float32 and near 1
    v[k] = (k % 11 == 0 ? 1.0 : 1e39) * (1 + 0.1 * double(k % 7)) * (k % 3 ? 1 : -1);
  const Cube c = make_cube(std::move(v), 3, H, W);
  auto solver = make_solver(Backend::Cpu);
  Result wide;
  solver->solve(c, d, opts(Method::Auto, Precision::Fp64), wide);
  for (const Precision p : {Precision::Fp64, Precision::Fp32})
    for (const bool f32 : {false, true}) {
      Options o = opts(Method::Auto, p);
      o.float32_solution = f32;
      Result whole, top, bottom;
      solver->solve(c, d, o, whole);
      solver->solve(c, d, IndexRange{0, 7}, o, top);  // row 7 cuts the second band
      solver->solve(c, d, IndexRange{7, H}, o, bottom);
      const Result merged = merge_row_ranges({top, bottom});
      const std::string what = std::string(test::name(p)) + (f32 ? " float32" : " float64");
      ASSERT_EQ(whole.shared_pixels, H * W) << what;
      if (f32) {
        EXPECT_TRUE(simscope::test::same_bits(merged.solution32, whole.solution32)) << what;
        ASSERT_EQ(whole.solution32.size(), wide.solution.size());
        for (std::size_t i = 0; i < wide.solution.size(); ++i) {
          const float want = float(wide.solution[i]);
          if (p == Precision::Fp64) {
            ASSERT_EQ(std::memcmp(&want, &whole.solution32[i], 4), 0) << what << " value " << i;
            continue;
          }
          const double got = whole.solution32[i], x = wide.solution[i];
          // Its pixel's largest |x_k|: the scale of a float32 product sum's error.
          double scale = 0;
          for (std::size_t k = 0; k < d.n; ++k)
            scale = std::max(scale, std::fabs(wide.solution[k * H * W + i % (H * W)]));
          if (std::isinf(want))  // beyond float32, or at its edge
            EXPECT_TRUE(std::isinf(got) || std::fabs(got) >= 0x1.fffffp+127) << what << i;
          else if (std::isfinite(got))
            EXPECT_LE(std::fabs(got - x), 1e-6 * scale) << what << " value " << i;
          else
            EXPECT_GE(std::fabs(x), 0x1.fffffp+127) << what << " value " << i;
        }
      } else {
        EXPECT_TRUE(simscope::test::same_bits(merged.solution, whole.solution)) << what;
        EXPECT_TRUE(simscope::test::same_bits(whole.solution, wide.solution)) << what;
      }
      const std::uint64_t want = f32 ? count_inf(whole.solution32) : count_inf(whole.solution);
      EXPECT_GT(want, 0u) << what << ": the case overflows float32";
      EXPECT_LT(want, whole.solution32.size() + whole.solution.size()) << what;
      EXPECT_EQ(whole.host_inf[0], want) << what;
    }
}

}  // namespace
}  // namespace simscope::lsq
