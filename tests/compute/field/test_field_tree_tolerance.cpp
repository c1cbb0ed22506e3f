// The tree keeps tree.tolerance under precision=fp64 on inputs that can break it: dipoles and
// zero net charge (cancelling sums), sources on a plane and on a line (flat cells), coincident
// clusters, and coordinates far from the origin, at tolerances 1e-4 .. 1e-7. The reference is
// the float64 brute force over the float32-stored sources. Each run either meets the tolerance
// (its sampled estimate within it, the full error within 2x of it: README, "the tests hold it
// within 2x") or reports the miss (the estimate above it); every case here must meet it.
#include <random>

#include "test_field_util.hpp"

namespace simscope::field {
namespace {

struct ToleranceCase {
  const char* name;
  Sources sources;
  Targets targets;
};

/// An n x n grid of targets on the plane z = c[2], centred at (c[0], c[1]), half-width hw.
Targets grid_at(const double c[3], double hw, int n) {
  Targets t;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      t.x.push_back(c[0] + hw * (2.0 * i / (n - 1) - 1));
      t.y.push_back(c[1] + hw * (2.0 * j / (n - 1) - 1));
      t.z.push_back(c[2]);
    }
  return t;
}

ToleranceCase make_case(const std::string& name) {
  ToleranceCase c{nullptr, {}, {}};
  std::mt19937 g(29);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::size_t P = 20000;
  auto push = [&](double x, double y, double z, double q) {
    c.sources.x.push_back(float(x)), c.sources.y.push_back(float(y));
    c.sources.z.push_back(float(z)), c.sources.q.push_back(float(q));
  };
  double centre[3] = {0, 0, 3};
  double hw = 3;
  if (name == "dipoles") {  // the generator's pairs of opposite charges (net charge 0)
    c.sources = generate_sources("dipoles", P, 1, 7);
  } else if (name == "zero_net_charge") {  // +1 and -1 alternating, uniform in the cube
    for (std::size_t k = 0; k < P; ++k) push(u(g), u(g), u(g), k % 2 ? -1.0 : 1.0);
    centre[2] = 1.5, hw = 1.5;
  } else if (name == "plane") {  // every source on z = 0
    for (std::size_t k = 0; k < P; ++k) push(u(g), u(g), 0, 0.5 + 0.5 * (u(g) + 1));
    centre[2] = 0.5, hw = 1.5;
  } else if (name == "line") {  // every source on the x axis
    for (std::size_t k = 0; k < P; ++k) push(u(g), 0, 0, 0.5 + 0.5 * (u(g) + 1));
    centre[2] = 0.25, hw = 1.5;
  } else if (name == "clusters") {  // 40 points, 500 coincident sources each
    for (int k = 0; k < 40; ++k) {
      const double x = u(g), y = u(g), z = u(g), q = u(g);
      for (int j = 0; j < 500; ++j) push(x, y, z, q);
    }
    centre[2] = 1.25, hw = 1.5;
  } else if (name == "far_from_origin") {  // extent 2 about (1e4, -2e4, 3e4)
    for (std::size_t k = 0; k < P; ++k) push(1e4 + u(g), -2e4 + u(g), 3e4 + u(g), u(g));
    centre[0] = 1e4, centre[1] = -2e4, centre[2] = 3e4 + 1.5, hw = 1.5;
  }
  c.sources.generation = 0;
  c.targets = grid_at(centre, hw, 32);
  return c;
}

class FieldTreeTolerance : public ::testing::TestWithParam<const char*> {};

TEST_P(FieldTreeTolerance, KeptUnderFp64) {
  const ToleranceCase c = make_case(GetParam());
  ASSERT_EQ(c.sources.size(), 20000u);
  Options o;
  o.precision = Precision::Fp64;
  Result ref;
  evaluate_reference(c.sources, c.targets, o, ref);  // float64 sums of the stored sources
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  for (double tol : {1e-4, 1e-5, 1e-6, 1e-7}) {
    o.tolerance = tol;
    Result r;
    ev->evaluate(c.sources, c.targets, o, r);
    ASSERT_EQ(r.method, Method::Tree);
    const double e = test::field_rms(r, ref), ep = test::potential_rms(r, ref);
    const double reported = std::max(r.tree.rms_rel_error, r.tree.rms_rel_error_potential);
    // The fp32 outputs carry up to ~6e-8 of rounding of their own.
    EXPECT_LE(reported, tol) << GetParam() << " tol " << tol << ": the tolerance was missed";
    EXPECT_LE(e, 2 * tol + 6e-8) << GetParam() << " tol " << tol << " (reported " << reported
                                 << ", order " << r.tree.order << ", theta " << r.tree.theta
                                 << ")";
    EXPECT_LE(ep, 2 * tol + 6e-8) << GetParam() << " tol " << tol << " potential";
    std::printf("[ info ] %-16s tol %.0e: E error %.3g, potential %.3g, reported %.3g (order %d, "
                "theta %.2f)\n",
                GetParam(), tol, e, ep, reported, r.tree.order, r.tree.theta);
  }
}

INSTANTIATE_TEST_SUITE_P(Field, FieldTreeTolerance,
                         ::testing::Values("dipoles", "zero_net_charge", "plane", "line",
                                           "clusters", "far_from_origin"));

}  // namespace
}  // namespace simscope::field
