// README "What is bit-identical to what": on the CPU, one thread and two give the same bits (the
// field's direct sums in fp32 and fp64, lsq's solvers), and an identical tree run, its error
// sample drawn from a hash of the run, gives identical outputs when repeated; lsq pixels that
// share a missing-row pattern (one operator per pattern) too.
#include <omp.h>

#include <cmath>

#include "lsq/lsq.hpp"
#include "test_bits.hpp"
#include "field/test_field_util.hpp"
#include "lsq/test_lsq_util.hpp"

namespace simscope {
namespace {

using test::same_bits;

/// Restores OpenMP's thread count on leaving a test.
struct RestoreThreads {
  int threads = omp_get_max_threads();
  ~RestoreThreads() { omp_set_num_threads(threads); }
};

void expect_same(const field::Result& a, const field::Result& b, const char* what) {
  for (const auto& n : field::output_names())
    EXPECT_TRUE(same_bits(field::output(a, n), field::output(b, n))) << what << ": " << n;
}

TEST(BitIdentity, FieldDirectOneOrTwoThreads) {
  const RestoreThreads restore;
  // Few targets: the CPU splits the sources over threads; many: the targets.
  const field::Sources s = field::test::random_sources(5000, 1, 3);
  for (int n : {3, 40}) {
    field::Grid g;
    g.size = n, g.offset = 0.3, g.half_width = 1.2;
    const field::Targets t = field::make_targets(g);
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      field::Options o;
      o.precision = p;
      field::Result r1, r2;
      omp_set_num_threads(1);
      field::make_evaluator(field::Method::Direct, Backend::Cpu)->evaluate(s, t, o, r1);
      omp_set_num_threads(2);
      field::make_evaluator(field::Method::Direct, Backend::Cpu)->evaluate(s, t, o, r2);
      ASSERT_TRUE(field::test::all_finite(r1));
      expect_same(r1, r2, p == Precision::Fp32 ? "fp32" : "fp64");
    }
  }
}

TEST(BitIdentity, FieldTreeRepeated) {
  // The default error_seed (0): the sample comes from a hash of the run, so a fresh evaluator
  // given the same run draws the same targets, settles on the same rung and writes the same bits.
  const field::Sources s = field::generate_sources("gaussian", 30000, 1, 5);
  field::Grid g;
  g.size = 48, g.offset = 0.2, g.half_width = 1.5;
  const field::Targets t = field::make_targets(g);
  field::Options o;
  o.tolerance = 1e-5;
  field::Result r1, r2;
  field::make_evaluator(field::Method::Tree, Backend::Cpu)->evaluate(s, t, o, r1);
  field::make_evaluator(field::Method::Tree, Backend::Cpu)->evaluate(s, t, o, r2);
  ASSERT_EQ(r1.method, field::Method::Tree);
  ASSERT_GT(r1.tree.error_samples, 0u);
  expect_same(r1, r2, "tree");
  EXPECT_EQ(r1.tree.rms_rel_error, r2.tree.rms_rel_error);
  EXPECT_EQ(r1.tree.order, r2.tree.order);
}

TEST(BitIdentity, LsqOneOrTwoThreads) {
  const RestoreThreads restore;
  const lsq::Design d = lsq::test::random_design(24, 6, 11);
  const lsq::Cube c = lsq::test::random_cube(d, 29, 17, 0.3, 12);
  for (lsq::Method m : {lsq::Method::Auto, lsq::Method::Normal, lsq::Method::Qr, lsq::Method::Svd})
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      lsq::Options o;
      o.method = m, o.precision = p;
      lsq::Result r1, r2;
      omp_set_num_threads(1);
      lsq::make_solver(Backend::Cpu)->solve(c, d, o, r1);
      omp_set_num_threads(2);
      lsq::make_solver(Backend::Cpu)->solve(c, d, o, r2);
      EXPECT_TRUE(same_bits(r1.solution, r2.solution)) << int(m) << " " << int(p);
      EXPECT_TRUE(same_bits(r1.residual, r2.residual)) << int(m) << " " << int(p);
      EXPECT_TRUE(same_bits(r1.count, r2.count)) << int(m) << " " << int(p);
    }
}

TEST(BitIdentity, LsqSharedPatternsOneOrTwoThreads) {
  const RestoreThreads restore;
  const lsq::Design d = lsq::test::random_design(24, 6, 11);
  lsq::Cube c = lsq::test::random_cube(d, 29, 17, 0.0, 12);
  double* v = reinterpret_cast<double*>(c.bytes.data());
  const std::size_t P = c.pixels();
  for (std::size_t p = 0; p < P; ++p)  // two patterns of whole missing frames
    for (std::size_t i = 0; i < c.m; ++i)
      if (p % 2 == 0 ? (i >= 3 && i < 9) : (i % 4 == 1)) v[i * P + p] = NAN;
  for (lsq::Method m : {lsq::Method::Auto, lsq::Method::Normal})
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      lsq::Options o;
      o.method = m, o.precision = p;
      lsq::Result r1, r2;
      omp_set_num_threads(1);
      lsq::make_solver(Backend::Cpu)->solve(c, d, o, r1);
      omp_set_num_threads(2);
      lsq::make_solver(Backend::Cpu)->solve(c, d, o, r2);
      EXPECT_EQ(r1.pattern_pixels, P) << int(m) << " " << int(p);
      EXPECT_EQ(r2.pattern_pixels, P) << int(m) << " " << int(p);
      EXPECT_TRUE(same_bits(r1.solution, r2.solution)) << int(m) << " " << int(p);
      EXPECT_TRUE(same_bits(r1.residual, r2.residual)) << int(m) << " " << int(p);
      EXPECT_TRUE(same_bits(r1.condition, r2.condition)) << int(m) << " " << int(p);
    }
}

}  // namespace
}  // namespace simscope
