// The tree method on coincident sources (issue 42): the seed's `torch.ones` positions put every
// source at one point. The field must be the exact field of one charge holding their sum, also
// far from the origin; targets at the point skip and count every pair (eps = 0); duplicates at a
// few points, some nearly coincident, match the float64 brute force; the tree holds one source
// per point; a second evaluation keeps the tree and builds nothing.
#include "field/tree/octree.hpp"
#include "field/tree/source_tree.hpp"
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

Targets plane(double offset, int n, double hw, double cx = 0, double cy = 0) {
  Grid g;
  g.kind = PlaneKind::XY, g.offset = offset, g.size = n, g.half_width = hw;
  Targets t = make_targets(g);
  for (double& x : t.x) x += cx;
  for (double& y : t.y) y += cy;
  return t;
}

Options tree_options(double tol, Precision p = Precision::Fp64) {
  Options o;
  o.tolerance = tol;
  o.precision = p;
  o.error_seed = 1;
  return o;
}

/// `count` sources at (x, y, z) with charges q0, q0 + dq, ... cycling over 7 values.
Sources at_point(std::size_t count, float x, float y, float z, float q0 = 1, float dq = 0) {
  Sources s;
  s.x.assign(count, x), s.y.assign(count, y), s.z.assign(count, z);
  for (std::size_t j = 0; j < count; ++j) s.q.push_back(q0 + dq * float(j % 7));
  s.generation = 4242;
  return s;
}

/// RMS relative error of E (vector) and of the potential of `r` against one charge Q at
/// (px, py, pz), float64, over the targets not at the point: ||E - E_ref|| / ||E_ref||.
/// field.hpp's convention: E = k Q (source - target) / r^3, phi = k Q / r.
void one_charge_errors(const Result& r, const Targets& t, double Q, double px, double py,
                       double pz, double k, double& e_rms, double& phi_rms) {
  double ne = 0, de = 0, np = 0, dp = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double d[3] = {px - t.x[i], py - t.y[i], pz - t.z[i]};
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (r2 == 0) continue;
    const double inv = 1 / std::sqrt(r2);
    const double e[3] = {k * Q * d[0] * inv * inv * inv, k * Q * d[1] * inv * inv * inv,
                         k * Q * d[2] * inv * inv * inv};
    const double got[3] = {r.ex[i], r.ey[i], r.ez[i]};
    for (int a = 0; a < 3; ++a) ne += (got[a] - e[a]) * (got[a] - e[a]), de += e[a] * e[a];
    const double phi = k * Q * inv;
    np += (r.potential[i] - phi) * (r.potential[i] - phi), dp += phi * phi;
  }
  e_rms = std::sqrt(ne / de), phi_rms = std::sqrt(np / dp);
}

// 300,000 sources at (1, 1, 1) and at (1e5, 1e5, 1e5): a far plane (the seed's z = 1000), a
// plane through the point whose centre target is the point itself, in fp64 and fp32. The field
// is one charge's to the tolerance; the target at the point skips all 300,000 pairs.
TEST(FieldTreeCoincident, OneChargeHoldingTheirSum) {
  const std::size_t P = 300000;
  for (const double c : {1.0, 1e5})
    for (const Precision p : {Precision::Fp64, Precision::Fp32}) {
      const Sources s = at_point(P, float(c), float(c), float(c), 0.5f, 0.25f);
      double Q = 0;
      for (float q : s.q) Q += q;
      auto ev = make_evaluator(Method::Tree, Backend::Cpu);
      for (const double z : {c + 1000, c}) {
        // 41 x 41 over [c - 995, c + 995]: the centre target (20, 20) is at (c, c, z).
        const Targets t = plane(z, 41, 995, c, c);
        const Options o = tree_options(1e-5, p);
        Result r;
        ev->evaluate(s, t, o, r);
        double e_rms = 0, phi_rms = 0;
        one_charge_errors(r, t, Q, c, c, c, o.k, e_rms, phi_rms);
        const std::string what = "at " + std::to_string(c) + ", plane z = " + std::to_string(z) +
                                 (p == Precision::Fp64 ? " fp64" : " fp32");
        EXPECT_LT(e_rms, 1e-5) << what;
        EXPECT_LT(phi_rms, 1e-5) << what;
        EXPECT_EQ(r.skipped_coincidences, z == c ? P : 0u) << what;
        EXPECT_TRUE(test::all_finite(r)) << what;
        EXPECT_LT(r.tree.tree_bytes, 1e5) << what << ": one source held, not " << P;
      }
    }
}

// Duplicates at a few points: 4 points far apart, 2 of them 1e-4 apart (one Morton key), with
// eps = 0 and eps > 0, against the float64 brute force over every source.
TEST(FieldTreeCoincident, DuplicatesAtAFewPointsMatchTheBruteForce) {
  const float px[4] = {0.5f, -0.25f, 0.3f, 0.3001f}, pz[4] = {0.1f, 0.7f, -0.4f, -0.4f};
  Sources s;
  for (int k = 0; k < 4; ++k) {
    const Sources a = at_point(5000 + 1000 * std::size_t(k), px[k], 0.2f * float(k), pz[k],
                               k % 2 ? -1.0f : 1.5f, 0.125f);
    for (auto [to, from] : {std::pair{&s.x, &a.x}, {&s.y, &a.y}, {&s.z, &a.z}, {&s.q, &a.q}})
      to->insert(to->end(), from->begin(), from->end());
  }
  s.generation = 777;
  for (const double eps : {0.0, 0.01}) {
    Targets t = plane(0.05, 30, 1.2);
    t.x.push_back(px[0]), t.y.push_back(0), t.z.push_back(pz[0]);  // at the first point
    Options o = tree_options(1e-6);
    o.eps = eps;
    auto ev = make_evaluator(Method::Tree, Backend::Cpu);
    Result r, ref;
    ev->evaluate(s, t, o, r);
    evaluate_reference(s, t, o, ref);
    EXPECT_LT(test::field_rms(r, ref), 1e-6) << eps;
    EXPECT_LT(test::potential_rms(r, ref), 1e-6) << eps;
    EXPECT_EQ(r.skipped_coincidences, ref.skipped_coincidences) << eps;
    EXPECT_EQ(r.skipped_coincidences, eps == 0 ? 5000u : 0u) << eps;
  }
}

// The octree keeps coincident points in one leaf of radius 0, and splits nearly coincident
// ones about their bounding box: few levels, every leaf within leaf_size unless coincident.
TEST(FieldTreeCoincident, OctreeLeafOfCoincidentPoints) {
  const std::size_t n = 100000;
  std::vector<float> x(n, 3.0f), y(n, -2.0f), z(n, 7.0f);
  tree::Octree t = tree::build_octree(x.data(), y.data(), z.data(), n, 64);
  ASSERT_EQ(t.cells.size(), 1u);
  EXPECT_EQ(t.cells[0].count(), n);
  EXPECT_EQ(t.cells[0].radius, 0.0);
  // Two points 1e-6 apart, each 50,000 times: two leaves of radius 0 a few levels down.
  for (std::size_t i = n / 2; i < n; ++i) x[i] = 3.000001f;
  t = tree::build_octree(x.data(), y.data(), z.data(), n, 64);
  std::size_t leaves = 0;
  for (const tree::Cell& c : t.cells)
    if (c.leaf()) {
      ++leaves;
      EXPECT_EQ(c.count(), n / 2);
      EXPECT_EQ(c.radius, 0.0);
    }
  EXPECT_EQ(leaves, 2u);
  EXPECT_LE(t.depth, 12);
}

// The kept tree is kept: a second evaluation of the same sources at the same tolerance, as the
// Python module's Sources.field makes it (restart_ladder), builds nothing, for coincident and
// spread sources alike.
TEST(FieldTreeCoincident, SecondCallBuildsNothing) {
  for (const bool point : {true, false}) {
    Sources s = point ? at_point(200000, 1, 1, 1) : test::random_sources(200000, 750, 5);
    s.generation = 99;
    const Targets t = plane(1000, 60, 995);
    Options o = tree_options(1e-5, Precision::Fp32);
    o.restart_ladder = true;
    auto ev = make_evaluator(Method::Tree, Backend::Cpu);
    Result first, second;
    ev->evaluate(s, t, o, first);
    ev->evaluate(s, t, o, second);
    EXPECT_FALSE(first.tree.tree_kept) << point;
    EXPECT_TRUE(second.tree.tree_kept) << point;
    EXPECT_EQ(second.tree.build_seconds, 0.0) << point << ": nothing built (0 exactly)";
    EXPECT_EQ(second.magnitude, first.magnitude) << point;
  }
}

}  // namespace
}  // namespace simscope::field
