// The field's tree method (compute/field/tree/, issue 12) against the float64 brute-force
// reference: the expansions' identities, accuracy to the tolerance on uniform, clustered,
// near-cancelling and symmetric sources (planes through the sources and far outside), eps > 0,
// coincidences, a single source, the measured error against the full error, ranges, the kept
// tree, the method axis and bad input.
#include "field/tree/expansions.hpp"
#include "field/tree/tree_internal.hpp"
#include "test_field_util.hpp"
#include "test_cuda_skip.hpp"

namespace simscope::field {
namespace {

using test::error_of;
using test::field_rms;
using test::potential_rms;

Targets plane(double offset, int n, double hw, PlaneKind kind = PlaneKind::XY) {
  Grid g;
  g.kind = kind, g.offset = offset, g.size = n, g.half_width = hw;
  return make_targets(g);
}

Options tree_options(double tol, double eps = 0) {
  Options o;
  o.tolerance = tol;
  o.eps = eps;
  o.precision = Precision::Fp64;
  o.error_seed = 1;
  return o;
}

Result run(Evaluator& ev, const Sources& s, const Targets& t, const Options& o) {
  Result r;
  ev.evaluate(s, t, o, r);
  return r;
}

Result reference(const Sources& s, const Targets& t, const Options& o) {
  Result r;
  evaluate_reference(s, t, o, r);
  return r;
}

/// The float64 sums of the sources at (x, y, z): acc[0..2] = sum q (x - y) / r^3, acc[3] =
/// sum q / r (the expansions' convention).
void direct_at(const Sources& s, double x, double y, double z, double eps, double acc[4]) {
  for (int k = 0; k < 4; ++k) acc[k] = 0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const double d[3] = {x - s.x[j], y - s.y[j], z - s.z[j]};
    const double inv = 1 / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps);
    for (int k = 0; k < 3; ++k) acc[k] += s.q[j] * d[k] * inv * inv * inv;
    acc[3] += s.q[j] * inv;
  }
}

// ---- expansions ---------------------------------------------------------------------------

// M2P of a small cluster (radius <= sqrt 3 about 0) at distance 5.5 converges to the direct sum
// as (r/d)^(p+1), for eps = 0 and eps > 0 (the softened kernel's own Taylor series).
TEST(FieldTreeExpansions, MultipoleConvergesToTheDirectSum) {
  const Sources s = test::random_sources(50, 1.0, 7, 0.5, 1.5);
  const double c[3] = {0, 0, 0}, x = 3.1, y = -2.2, z = 4.0, ratio = std::sqrt(3.0) / 5.5;
  for (double eps : {0.0, 0.7}) {
    double ref[4];
    direct_at(s, x, y, z, eps, ref);
    const double norm = std::sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
    for (int p = 1; p <= 14; ++p) {
      const auto& m = tree::multi_index(p);
      const auto& mp1 = tree::multi_index(p + 1);
      std::vector<double> M(m.count, 0.0), D(mp1.count);
      tree::p2m(m, c, s.x.data(), s.y.data(), s.z.data(), s.q.data(), int(s.size()), M.data());
      double acc[4] = {0, 0, 0, 0};
      tree::m2p(m, mp1, c, eps * eps, M.data(), x, y, z, acc, D.data());
      const double err =
          std::sqrt((acc[0] - ref[0]) * (acc[0] - ref[0]) + (acc[1] - ref[1]) * (acc[1] - ref[1]) +
                    (acc[2] - ref[2]) * (acc[2] - ref[2]));
      EXPECT_LT(err, 4 * (p + 2) * std::pow(ratio, p + 1) * norm + 1e-14 * norm)
          << "p " << p << " eps " << eps;
      EXPECT_LT(std::fabs(acc[3] - ref[3]), 4 * std::pow(ratio, p + 1) * ref[3] + 1e-14 * ref[3]);
    }
  }
}

// M2M is exact (the binomial shift of the moments loses nothing at |k| <= p), L2L too (a
// polynomial of degree p re-centred), and M2L + L2P converges to the direct sum.
TEST(FieldTreeExpansions, ShiftsAreExactAndM2LConverges) {
  const Sources s = test::random_sources(40, 1.0, 3, -1, 1);
  const int p = 9;
  const auto& m = tree::multi_index(p);
  const double c0[3] = {0, 0, 0}, c1[3] = {0.3, -0.2, 0.1};
  std::vector<double> M0(m.count, 0.0), M1(m.count, 0.0), M1d(m.count, 0.0);
  tree::p2m(m, c0, s.x.data(), s.y.data(), s.z.data(), s.q.data(), int(s.size()), M0.data());
  tree::m2m(m, c1, c0, M0.data(), M1.data());
  tree::p2m(m, c1, s.x.data(), s.y.data(), s.z.data(), s.q.data(), int(s.size()), M1d.data());
  for (int i = 0; i < m.count; ++i) EXPECT_NEAR(M1[i], M1d[i], 1e-12 * (1 + std::fabs(M1d[i])));

  // Local expansion about z from the cluster, shifted to z2 by L2L: the same values at a point.
  const double z[3] = {6, 1, -3}, z2[3] = {6.2, 0.9, -2.8};
  std::vector<double> L(m.count, 0.0), L2(m.count, 0.0), D(m.count), P(m.count);
  tree::m2l(m, z, c0, 0.0, M0.data(), L.data(), D.data());
  tree::l2l(m, z, z2, L.data(), L2.data());
  double a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0}, ref[4];
  tree::l2p(m, z, L.data(), 6.1, 1.05, -2.9, a, P.data());
  tree::l2p(m, z2, L2.data(), 6.1, 1.05, -2.9, b, P.data());
  direct_at(s, 6.1, 1.05, -2.9, 0.0, ref);
  const double norm = std::sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(a[k], b[k], 1e-12 * (norm + std::fabs(ref[3])));
    EXPECT_NEAR(a[k], ref[k], 1e-5 * (norm + std::fabs(ref[3]))) << k;
  }
}

// The harmonic M2L (eps = 0) gives m2l8's local expansion to rounding at every order, for 1 to
// 8 source cells: multipoles of random clusters in the harmonic row form (their first (p+1)^2
// values), after the unfold of the local expansion.
TEST(FieldTreeExpansions, HarmonicM2LEqualsTheFullOne) {
  for (int p = 0; p <= 12; ++p) {
    const auto& m = tree::multi_index(p);
    const std::size_t N = std::size_t(m.count);
    for (int n : {1, 3, 8}) {
      BigVector<double> M(N * 8, 0.0), Mh(N * 8, 0.0), L(N * 8, 0.0),
          Lh(N * 8, 0.0), D(N * 8, 0.0);
      double c[8][3];
      for (int l = 0; l < n; ++l) {
        const Sources s = test::random_sources(30, 1.0, 11 + unsigned(l), -1, 1.5);
        c[l][0] = 0.5 * l, c[l][1] = -0.3 * l, c[l][2] = 0.2 * l - 1;
        std::vector<double> row(N, 0.0);
        tree::p2m(m, c[l], s.x.data(), s.y.data(), s.z.data(), s.q.data(), int(s.size()),
                  row.data());
        std::vector<double> h(N);
        tree::harmonic_row(m, row.data(), h.data());
        for (std::size_t k = 0; k < N; ++k)
          M[k * 8 + std::size_t(l)] = row[k], Mh[k * 8 + std::size_t(l)] = h[k];
      }
      const double z[3] = {7.5, 4.0, -6.0};
      tree::m2l8(m, z, c, n, 0.0, M.data(), L.data(), D.data());
      tree::m2l8_harmonic(m, z, c, n, Mh.data(), Lh.data(), D.data());
      std::vector<double> sum(N, 0.0), sumh(N, 0.0), scale(std::size_t(p) + 1, 0.0);
      for (std::size_t k = 0; k < N; ++k) {
        for (int l = 0; l < 8; ++l)
          sum[k] += L[k * 8 + std::size_t(l)], sumh[k] += Lh[k * 8 + std::size_t(l)];
        scale[m.degree[k]] = std::max(scale[m.degree[k]], std::fabs(sum[k]));
      }
      tree::unfold_local(m, sumh.data());
      for (std::size_t k = 0; k < N; ++k)  // to rounding, relative to the terms of its degree
        EXPECT_NEAR(sumh[k], sum[k], 1e-11 * scale[m.degree[k]])
            << "p " << p << " n " << n << " term " << k;
    }
  }
}

// The harmonic row form of the stored multipoles: layout_row() inverts harmonic_row() to
// rounding, and a row of order p read at any order q <= p as the tree's M2L reads it (the first
// (q+1)^2 values; the rest from (p+1)^2 on) is the row of the multipole truncated at q, and
// layout_rows8() of it that multipole, for 8 lanes of multipoles of random clusters.
TEST(FieldTreeExpansions, HarmonicRowsInvertAndTruncate) {
  for (int p = 0; p <= 12; ++p) {
    const auto& m = tree::multi_index(p);
    const std::size_t N = std::size_t(m.count), P1 = std::size_t((p + 1) * (p + 1));
    std::vector<std::vector<double>> M(8, std::vector<double>(N, 0.0)), H = M;
    std::vector<double> back(N), scale(std::size_t(p) + 1, 0.0);
    for (int l = 0; l < 8; ++l) {
      const Sources s = test::random_sources(30, 1.0, 31 + unsigned(l), -1, 1.5);
      const double c[3] = {0.1 * l, -0.2 * l, 0.05 * l};
      tree::p2m(m, c, s.x.data(), s.y.data(), s.z.data(), s.q.data(), int(s.size()),
                M[l].data());
      tree::harmonic_row(m, M[l].data(), H[l].data());
      for (std::size_t k = 0; k < N; ++k)
        scale[m.degree[k]] = std::max(scale[m.degree[k]], std::fabs(M[l][k]));
      for (std::size_t j = 0; j < P1; ++j)
        scale[m.degree[m.harm[j]]] = std::max(scale[m.degree[m.harm[j]]], std::fabs(H[l][j]));
    }
    for (int l = 0; l < 8; ++l) {
      tree::layout_row(m, H[l].data(), back.data());
      for (std::size_t k = 0; k < N; ++k)
        EXPECT_NEAR(back[k], M[l][k], 1e-13 * scale[m.degree[k]]) << "p " << p << " term " << k;
    }
    for (int q = 0; q <= p; ++q) {
      const auto& mq = tree::multi_index(q);
      const std::size_t Nq = std::size_t(mq.count), Q1 = std::size_t((q + 1) * (q + 1));
      const std::size_t R = mq.rest.size();
      BigVector<double> Hs(Q1 * 8), Rs(std::max<std::size_t>(R, 1) * 8), Ms(Nq * 8);
      for (int l = 0; l < 8; ++l) {
        std::vector<double> hq(Nq);
        tree::harmonic_row(mq, M[l].data(), hq.data());  // M's layout prefix is its order q
        for (std::size_t j = 0; j < Q1; ++j) {
          EXPECT_EQ(hq[j], H[l][j]) << "p " << p << " q " << q << " harm " << j;
          Hs[j * 8 + std::size_t(l)] = H[l][j];
        }
        for (std::size_t i = 0; i < R; ++i) {
          EXPECT_EQ(hq[Q1 + i], H[l][P1 + i]) << "p " << p << " q " << q << " rest " << i;
          Rs[i * 8 + std::size_t(l)] = H[l][P1 + i];
        }
      }
      tree::layout_rows8(mq, Hs.data(), Rs.data(), Ms.data());
      for (int l = 0; l < 8; ++l)
        for (std::size_t k = 0; k < Nq; ++k)
          EXPECT_NEAR(Ms[k * 8 + std::size_t(l)], M[l][k], 1e-13 * scale[m.degree[k]])
              << "p " << p << " q " << q << " lane " << l << " term " << k;
    }
  }
}

// ---- accuracy ------------------------------------------------------------------------------

struct Case {
  const char* distribution;
  double offset;  // of the xy plane; the sources fill [-750, 750]^3
  double eps;
};

class FieldTreeAccuracy : public ::testing::TestWithParam<Case> {};

// The error of E (float outputs against the float64 brute force) stays below each tolerance
// and tightens as the tolerance does; the potential follows. The measured (sampled) error is
// reported and below the tolerance as well.
TEST_P(FieldTreeAccuracy, BelowToleranceAndMonotone) {
  const Case c = GetParam();
  const Sources s = generate_sources(c.distribution, 6000, 750, 11);
  const Targets t = plane(c.offset, 24, 995);
  const Result ref = reference(s, t, tree_options(1e-5, c.eps));
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  double prev = INFINITY;
  for (double tol : {1e-3, 1e-5, 1e-7}) {
    const Result r = run(*ev, s, t, tree_options(tol, c.eps));
    EXPECT_EQ(r.method, Method::Tree);
    ASSERT_TRUE(test::all_finite(r));
    const double e = field_rms(r, ref);
    // fp32 outputs: the comparison carries up to ~4e-8 of rounding.
    EXPECT_LT(e, tol + 4e-8) << c.distribution << " tol " << tol;
    EXPECT_LT(potential_rms(r, ref), tol + 4e-8) << c.distribution << " tol " << tol;
    EXPECT_LE(r.tree.rms_rel_error_potential, tol);
    EXPECT_LE(e, prev) << c.distribution << " tol " << tol;
    EXPECT_LE(r.tree.rms_rel_error, tol);
    EXPECT_GT(r.tree.error_samples, 0u);
    EXPECT_EQ(r.skipped_coincidences, ref.skipped_coincidences);
    prev = e;
  }
}

INSTANTIATE_TEST_SUITE_P(Field, FieldTreeAccuracy,
                         ::testing::Values(Case{"uniform", 1000, 0}, Case{"uniform", 0, 0},
                                           Case{"gaussian", 1000, 0}, Case{"gaussian", 0, 0},
                                           Case{"dipoles", 0, 0}, Case{"dipoles", 1000, 0},
                                           Case{"lattice", 0, 0}, Case{"uniform", 0, 25},
                                           Case{"dipoles", 0, 25}, Case{"uniform", 3000, 0}),
                         [](const auto& info) {
                           return std::string(info.param.distribution) + "_z" +
                                  std::to_string(int(info.param.offset)) + "_eps" +
                                  std::to_string(int(info.param.eps));
                         });

// A single source is summed directly: exact to rounding, on a plane through it and far away.
TEST(FieldTree, SingleSourceIsExact) {
  Sources s;
  s.x = {0.25f}, s.y = {-0.5f}, s.z = {0.125f}, s.q = {2.0f};
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  for (double off : {0.125, 50.0}) {
    const Targets t = plane(off, 40, 3);
    const Options o = tree_options(1e-3);
    const Result r = run(*ev, s, t, o), ref = reference(s, t, o);
    for (const auto& n : output_names())
      for (std::size_t i = 0; i < t.size(); ++i)
        EXPECT_NEAR(output(r, n)[i], output(ref, n)[i], 2e-7 * std::fabs(output(ref, n)[i]))
            << n << " " << i;
  }
}

// Targets exactly on sources (eps = 0): those terms are skipped and counted as by direct, the
// rest is accurate; with eps > 0 nothing is skipped.
TEST(FieldTree, CoincidentTargetsSkippedAndCounted) {
  Sources s = generate_sources("uniform", 5000, 1, 4);
  Targets t = plane(0, 20, 1);
  for (std::size_t i = 0; i < t.size(); i += 37) {  // 11 targets onto sources
    s.x[i] = float(t.x[i]), s.y[i] = float(t.y[i]), s.z[i] = float(t.z[i]);
    t.x[i] = s.x[i], t.y[i] = s.y[i], t.z[i] = s.z[i];
  }
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  const Options o = tree_options(1e-6);
  const Result r = run(*ev, s, t, o), ref = reference(s, t, o);
  EXPECT_EQ(ref.skipped_coincidences, 11u);
  EXPECT_EQ(r.skipped_coincidences, 11u);
  EXPECT_TRUE(test::all_finite(r));
  EXPECT_LT(field_rms(r, ref), 1e-6);
  const Result soft = run(*ev, s, t, tree_options(1e-6, 0.01));
  EXPECT_EQ(soft.skipped_coincidences, 0u);
  EXPECT_LT(field_rms(soft, reference(s, t, tree_options(1e-6, 0.01))), 1e-6);
}

// A symmetric lattice (odd side: charges even under inversion) has E = 0 at its centre, which
// is also a lattice point (skipped): the tree keeps |E(0)| at the tolerance's level of the
// plane's field.
TEST(FieldTree, LatticeCentreFieldVanishes) {
  const Sources s = generate_sources("lattice", 15 * 15 * 15, 700, 1);
  const Targets t = plane(0, 21, 995);  // index 10 * 21 + 10 is (0, 0, 0)
  const std::size_t centre = 10 * 21 + 10;
  ASSERT_EQ(t.x[centre], 0.0);
  ASSERT_EQ(t.y[centre], 0.0);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  for (double tol : {1e-3, 1e-5}) {
    const Result r = run(*ev, s, t, tree_options(tol));
    const Result ref = reference(s, t, tree_options(tol));
    EXPECT_EQ(r.skipped_coincidences, ref.skipped_coincidences);
    double rms = 0;
    for (float v : ref.magnitude) rms += double(v) * v;
    rms = std::sqrt(rms / double(ref.size()));
    EXPECT_LT(std::fabs(ref.magnitude[centre]), 1e-9 * rms);  // the symmetry, brute force
    EXPECT_LT(r.magnitude[centre], tol * rms) << tol;
  }
}

// The planes xz and yz and a box: the same accuracy on every geometry.
TEST(FieldTree, OtherPlanesAndBox) {
  const Sources s = generate_sources("gaussian", 5000, 100, 2);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  for (PlaneKind k : {PlaneKind::XZ, PlaneKind::YZ, PlaneKind::Box}) {
    const Targets t = plane(k == PlaneKind::Box ? 120 : 10, 12, 120, k);
    const Result r = run(*ev, s, t, tree_options(1e-5)), ref = reference(s, t, tree_options(1e-5));
    EXPECT_LT(field_rms(r, ref), 1e-5) << int(k);
  }
}

// ---- the measured error --------------------------------------------------------------------

// The error reported from a sample of 200 of the 900 targets is within a factor 2 of the error
// against a full direct evaluation (small cases, fixed sample seeds; with 100 samples the
// dipoles' heavy-tailed per-target errors put one seed of three at 2.4x).
TEST(FieldTree, SampledErrorMatchesTheFullError) {
  struct Sample {
    const char* distribution;
    double offset, tol;
  };
  for (const Sample c : {Sample{"uniform", 1000, 1e-4}, Sample{"gaussian", 0, 1e-4},
                         Sample{"uniform", 0, 1e-6}, Sample{"dipoles", 0, 1e-5}}) {
    const Sources s = generate_sources(c.distribution, 8000, 750, 5);
    const Targets t = plane(c.offset, 30, 995);
    Options o = tree_options(c.tol);
    o.tree_order = tree_rule(c.tol).order;  // a fixed setting: no refinement
    o.tree_theta = tree_rule(c.tol).theta;
    const Result ref = reference(s, t, o);
    auto ev = make_evaluator(Method::Tree, Backend::Cpu);
    for (std::uint64_t seed : {1, 2, 3}) {
      o.error_samples = 200;  // the product's own sample at 1.5e5 sources (3e7 / P): README
      o.error_seed = seed;
      const Result r = run(*ev, s, t, o);
      const double full = field_rms(r, ref);
      EXPECT_EQ(r.tree.error_samples, 200u);
      EXPECT_GT(r.tree.rms_rel_error, full / 2) << c.distribution << " seed " << seed;
      EXPECT_LT(r.tree.rms_rel_error, full * 2) << c.distribution << " seed " << seed;
      EXPECT_GE(r.tree.max_rel_error, r.tree.rms_rel_error * 0.999);
    }
    // Every target sampled: the reported error is the full error (fp64 values vs float ones).
    o.error_samples = std::int64_t(t.size());
    const Result all = run(*ev, s, t, o);
    EXPECT_NEAR(all.tree.rms_rel_error, field_rms(all, ref), 0.05 * field_rms(all, ref) + 4e-8);
  }
}

// error_samples = 0 measures nothing (NaN); the automatic sample is at least 8 targets.
TEST(FieldTree, ErrorSampleSizes) {
  const Sources s = generate_sources("uniform", 3000, 1, 1);
  const Targets t = plane(2, 10, 1);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  Options o = tree_options(1e-5);
  o.error_samples = 0;
  Result r = run(*ev, s, t, o);
  EXPECT_EQ(r.tree.error_samples, 0u);
  EXPECT_TRUE(std::isnan(r.tree.rms_rel_error));
  o.error_samples = -1;
  r = run(*ev, s, t, o);
  EXPECT_EQ(r.tree.error_samples, 100u);  // 3e7 / 3000 = 1e4 > 100 targets: all of them
  o.error_samples = 1000;
  r = run(*ev, s, t, o);
  EXPECT_EQ(r.tree.error_samples, 100u);
}

// The automatic sample's size as README states it: about 3e7 / P targets, at least 8, at most
// 1024, never more than the targets (1024 at 2e4 sources, 200 at 1.5e5, 30 at 1e6, 8 at 8e6).
TEST(FieldTree, ErrorSampleSizeAsTheReadmeSays) {
  EXPECT_EQ(tree::error_sample_count(-1, 20000, 40000), 1024u);
  EXPECT_EQ(tree::error_sample_count(-1, 150000, 40000), 200u);
  EXPECT_EQ(tree::error_sample_count(-1, 1000000, 40000), 30u);
  EXPECT_EQ(tree::error_sample_count(-1, 8000000, 40000), 8u);
  EXPECT_EQ(tree::error_sample_count(-1, 100000000, 40000), 8u);
  EXPECT_EQ(tree::error_sample_count(-1, 20000, 500), 500u);
  EXPECT_EQ(tree::error_sample_count(0, 20000, 500), 0u);
}

// ---- ranges, the kept tree -----------------------------------------------------------------

// Consecutive ranges merged equal the whole evaluation bit for bit (the target tree comes from
// the whole target set); the merged statistics add up.
TEST(FieldTree, RangesMergeToTheWhole) {
  const Sources s = generate_sources("gaussian", 6000, 750, 3);
  const Targets t = plane(0, 25, 995);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  Options o = tree_options(1e-5);
  o.error_samples = 0;
  const Result whole = run(*ev, s, t, o);
  std::vector<Result> parts;
  for (const IndexRange& r : split_evenly(t.size(), 3)) {
    parts.emplace_back();
    ev->evaluate(s, t, r, o, parts.back());
    EXPECT_EQ(parts.back().target_begin, r.begin);
  }
  const Result merged = merge_target_ranges(parts);
  for (const auto& n : output_names())
    for (std::size_t i = 0; i < t.size(); ++i)
      ASSERT_EQ(output(merged, n)[i], output(whole, n)[i]) << n << " " << i;
  EXPECT_EQ(merged.method, Method::Tree);
  EXPECT_EQ(merged.tree.m2l, parts[0].tree.m2l + parts[1].tree.m2l + parts[2].tree.m2l);
  // With the measured error: samples add up, the RMS is their sample-weighted mean square.
  o.error_samples = 50;
  std::vector<Result> measured;
  double sum2 = 0, psum2 = 0;
  for (const IndexRange& r : split_evenly(t.size(), 3)) {
    measured.emplace_back();
    ev->evaluate(s, t, r, o, measured.back());
    const TreeStats& p = measured.back().tree;
    sum2 += 50 * p.rms_rel_error * p.rms_rel_error;
    psum2 += 50 * p.rms_rel_error_potential * p.rms_rel_error_potential;
  }
  const Result m = merge_target_ranges(measured);
  EXPECT_EQ(m.tree.error_samples, 150u);
  EXPECT_NEAR(m.tree.rms_rel_error, std::sqrt(sum2 / 150), 1e-15);
  EXPECT_NEAR(m.tree.rms_rel_error_potential, std::sqrt(psum2 / 150), 1e-15);
  EXPECT_GE(m.tree.max_rel_error, measured[1].tree.max_rel_error);
}

// The tree is built once per source set: a moved plane, another grid, k or eps reuse it
// (build_seconds 0); a new generation rebuilds it; generation 0 rebuilds every time.
TEST(FieldTree, TreeKeptPerSourceSet) {
  Sources s = generate_sources("uniform", 20000, 750, 3);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  Options o = tree_options(1e-5);
  Result a = run(*ev, s, plane(1000, 20, 995), o);
  EXPECT_GT(a.tree.build_seconds, 0);
  EXPECT_FALSE(a.tree.tree_kept);
  o.k = 2.5, o.eps = 1;
  Result b = run(*ev, s, plane(-500, 31, 700), o);
  EXPECT_EQ(b.tree.build_seconds, 0);
  EXPECT_TRUE(b.tree.tree_kept);
  EXPECT_LT(field_rms(b, reference(s, plane(-500, 31, 700), o)), 1e-5);
  s.generation = 0;
  EXPECT_FALSE(run(*ev, s, plane(1000, 20, 995), o).tree.tree_kept);
  EXPECT_GT(run(*ev, s, plane(1000, 20, 995), o).tree.build_seconds, 0);
  EXPECT_GT(run(*ev, s, plane(1000, 20, 995), o).tree.build_seconds, 0);
  ev->release_cache();
  s = generate_sources("uniform", 20000, 750, 4);
  EXPECT_GT(run(*ev, s, plane(1000, 20, 995), o).tree.build_seconds, 0);
}

// The window's deferred error (Options::defer_error): evaluate() returns the outputs at the
// ladder's rung unmeasured, measure_deferred() then measures and climbs; together they give
// what one plain evaluate() gives, bit for bit, over a sequence of planes on one evaluator each
// (the same rungs kept between planes), refinements included.
TEST(FieldTree, DeferredErrorEqualsThePlainEvaluation) {
  auto plain = make_evaluator(Method::Tree, Backend::Cpu);
  auto deferred = make_evaluator(Method::Tree, Backend::Cpu);
  int refined = 0;
  for (const char* dist : {"dipoles", "uniform", "lattice"}) {
    const Sources s = generate_sources(dist, 20000, 750, 5);
    for (double z : {3000.0, 1000.0, 0.0, 4000.0}) {
      const Targets t = plane(z, 24, 995);
      Options o = tree_options(1e-6);
      o.precision = Precision::Fp32;
      o.error_seed = 0;  // the hashed sample, as the app runs
      o.error_targets = {0, 100, 575};
      Result a, b;
      plain->evaluate(s, t, o, a);
      o.defer_error = true;
      deferred->evaluate(s, t, o, b);
      EXPECT_TRUE(b.tree.error_deferred);
      EXPECT_EQ(b.tree.error_samples, 0u);
      EXPECT_TRUE(std::isnan(b.tree.rms_rel_error));
      EXPECT_TRUE(b.target_errors.empty());
      const bool redone = deferred->measure_deferred(b);
      EXPECT_FALSE(deferred->measure_deferred(b));  // once
      SCOPED_TRACE(std::string(dist) + " z=" + std::to_string(z));
      EXPECT_EQ(redone, a.tree.refinements > 0);
      refined += a.tree.refinements;
      EXPECT_FALSE(b.tree.error_deferred);
      EXPECT_EQ(a.magnitude, b.magnitude);
      EXPECT_EQ(a.potential, b.potential);
      EXPECT_EQ(a.ex, b.ex);
      EXPECT_EQ(a.tree.order, b.tree.order);
      EXPECT_EQ(a.tree.theta, b.tree.theta);
      EXPECT_EQ(a.tree.refinements, b.tree.refinements);
      EXPECT_EQ(a.tree.error_samples, b.tree.error_samples);
      EXPECT_EQ(a.tree.rms_rel_error, b.tree.rms_rel_error);
      EXPECT_EQ(a.tree.max_rel_error, b.tree.max_rel_error);
      EXPECT_EQ(a.target_errors, b.target_errors);
    }
  }
  EXPECT_GT(refined, 0);  // the climb after a deferred frame is exercised (17 here)
  // A deferred evaluation superseded by another is never measured: nothing to do then.
  const Sources s = generate_sources("uniform", 3000, 1, 1);
  Options o = tree_options(1e-5);
  o.defer_error = true;
  Result r;
  deferred->evaluate(s, plane(2, 10, 1), o, r);
  o.defer_error = false;
  deferred->evaluate(s, plane(2, 10, 1), o, r);
  EXPECT_FALSE(deferred->measure_deferred(r));
  EXPECT_GT(r.tree.error_samples, 0u);
}

// Evaluator::complete_cache (the window's idle time: the leaves' multipoles, otherwise made on
// first use): outputs after it equal an evaluator's that never called it, bit for bit, for a far
// plane (no leaf row read) and planes through the sources; a cancelled completion throws
// simscope::Cancelled and leaves an evaluator that still gives the same outputs; without a tree
// it does nothing.
TEST(FieldTree, CompleteCacheChangesNoOutput) {
  const Sources s = generate_sources("uniform", 30000, 750, 6);
  for (const bool cancelled : {false, true}) {
    auto lazy = make_evaluator(Method::Tree, Backend::Cpu);
    auto warm = make_evaluator(Method::Tree, Backend::Cpu);
    warm->complete_cache();  // no tree yet: nothing
    for (double z : {1000.0, 0.0, 300.0, -450.0}) {
      SCOPED_TRACE("z=" + std::to_string(z));
      const Targets t = plane(z, 24, 995);
      Options o = tree_options(1e-5);
      o.error_seed = 0;
      Result a, b;
      lazy->evaluate(s, t, o, a);
      warm->evaluate(s, t, o, b);
      EXPECT_EQ(a.magnitude, b.magnitude);
      EXPECT_EQ(a.potential, b.potential);
      EXPECT_EQ(a.ex, b.ex);
      EXPECT_EQ(a.tree.m2l, b.tree.m2l);
      if (cancelled) {
        Progress p;
        p.cancel = true;
        EXPECT_THROW(warm->complete_cache(&p), Cancelled);
      } else {
        Progress p;
        warm->complete_cache(&p);
      }
    }
  }
}

// Options::restart_ladder (the Python Sources object): a kept evaluator, its tree kept, gives
// what a new evaluator gives, bit for bit, over a sequence of planes whose ladder would
// otherwise carry its rung from one plane to the next.
TEST(FieldTree, RestartLadderEqualsANewEvaluator) {
  auto kept = make_evaluator(Method::Tree, Backend::Cpu);
  auto carried = make_evaluator(Method::Tree, Backend::Cpu);
  int moved = 0, planes = 0;
  for (const char* dist : {"dipoles", "uniform"}) {
    const Sources s = generate_sources(dist, 20000, 750, 5);
    for (double z : {3000.0, 1000.0, 0.0, 4000.0}) {
      SCOPED_TRACE(std::string(dist) + " z=" + std::to_string(z));
      const Targets t = plane(z, 24, 995);
      Options o = tree_options(1e-6);
      o.precision = Precision::Fp32;
      o.error_seed = 0;
      Result fresh, a, c;
      make_evaluator(Method::Tree, Backend::Cpu)->evaluate(s, t, o, fresh);
      carried->evaluate(s, t, o, c);
      o.restart_ladder = true;
      kept->evaluate(s, t, o, a);
      EXPECT_EQ(a.tree.tree_kept, planes++ % 4 != 0);  // built for each source set's first
      EXPECT_EQ(a.magnitude, fresh.magnitude);
      EXPECT_EQ(a.potential, fresh.potential);
      EXPECT_EQ(a.ex, fresh.ex);
      EXPECT_EQ(a.tree.order, fresh.tree.order);
      EXPECT_EQ(a.tree.theta, fresh.tree.theta);
      EXPECT_EQ(a.tree.refinements, fresh.tree.refinements);
      EXPECT_EQ(a.tree.rms_rel_error, fresh.tree.rms_rel_error);
      moved += c.tree.order != fresh.tree.order || c.tree.theta != fresh.tree.theta;
    }
  }
  EXPECT_GT(moved, 0);  // without restart_ladder, the carried rung differs somewhere
}

// No targets, an empty range: empty results.
TEST(FieldTree, EmptyTargetsAndRanges) {
  const Sources s = generate_sources("uniform", 100, 1, 1);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  Result r;
  ev->evaluate(s, Targets{}, tree_options(1e-5), r);
  EXPECT_EQ(r.size(), 0u);
  ev->evaluate(s, plane(0, 4, 1), IndexRange{5, 5}, tree_options(1e-5), r);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.target_begin, 5u);
}

// ---- the method axis and bad input ---------------------------------------------------------

TEST(FieldTree, AutoPicksByPairCount) {
  EXPECT_EQ(auto_direct_pairs(Backend::Cpu), 1e9);
  EXPECT_EQ(auto_direct_pairs(Backend::Cuda), 1e11);
  EXPECT_EQ(resolve_method(Method::Auto, Backend::Cpu, 10000, 100000), Method::Direct);
  EXPECT_EQ(resolve_method(Method::Auto, Backend::Cpu, 10001, 100000), Method::Tree);
  // README: auto is direct on CUDA for now, whatever the pair count (the rule the evaluator uses).
  EXPECT_EQ(resolve_method(Method::Auto, Backend::Cuda, 8000000, 12500), Method::Direct);
  EXPECT_EQ(resolve_method(Method::Auto, Backend::Cuda, 8000000, 80000), Method::Direct);
  EXPECT_EQ(resolve_method(Method::Direct, Backend::Cpu, 1e8, 1e6), Method::Direct);
  EXPECT_EQ(resolve_method(Method::Tree, Backend::Cpu, 1, 1), Method::Tree);
  auto ev = make_evaluator(Method::Auto, Backend::Cpu);
  EXPECT_EQ(ev->method(), Method::Auto);
  const Sources s = generate_sources("uniform", 1000, 1, 1);
  const Targets t = plane(0, 10, 1);
  Result r = run(*ev, s, t, tree_options(1e-5));
  EXPECT_EQ(r.method, Method::Direct);
  EXPECT_LT(field_rms(r, reference(s, t, tree_options(1e-5))), 1e-6);
}

TEST(FieldTree, RuleAndBadInput) {
  // The documented rule: theta 0.5, order max(4, 2 d - 3) for d = -log10(tolerance) digits.
  EXPECT_EQ(tree_rule(1e-3).order, 4);
  EXPECT_EQ(tree_rule(1e-4).order, 5);
  EXPECT_EQ(tree_rule(1e-5).order, 7);
  EXPECT_EQ(tree_rule(1e-7).order, 11);
  EXPECT_EQ(tree_rule(1e-5).theta, 0.5);
  for (double bad : {1e-2, 1e-8, 9e-8, 0.0, -1e-5, double(NAN)})
    EXPECT_NE(error_of([&] { tree_rule(bad); }).find("tree.tolerance"), std::string::npos) << bad;
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  const Sources s = generate_sources("uniform", 100, 1, 1);
  Targets t = plane(0, 4, 1);
  Result r;
  Options o = tree_options(2e-3);
  EXPECT_NE(
      error_of([&] { ev->evaluate(s, t, o, r); }).find("tree.tolerance must be in [1e-7, 1e-3]"),
      std::string::npos);
  o = tree_options(1e-5);
  o.tree_order = 17;
  EXPECT_NE(error_of([&] { ev->evaluate(s, t, o, r); }).find("tree_order"), std::string::npos);
  o = tree_options(1e-5);
  o.tree_theta = 1.5;
  EXPECT_NE(error_of([&] { ev->evaluate(s, t, o, r); }).find("tree_theta"), std::string::npos);
  o = tree_options(1e-5);
  o.eps = -1;
  EXPECT_NE(error_of([&] { ev->evaluate(s, t, o, r); }).find("eps"), std::string::npos);
  t.z[3] = NAN;
  EXPECT_NE(error_of([&] { ev->evaluate(s, t, tree_options(1e-5), r); }).find("target 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              ev->evaluate(s, plane(0, 4, 1), IndexRange{3, 99}, tree_options(1e-5), r);
            }).find("range"),
            std::string::npos);
}

// ---- CUDA (tests/gpu/run.sh runs every *Cuda* test; skipped without a device) --------------

// The CUDA tree makes the CPU tree's decisions (same source tree, target tree and classify()),
// so with a fixed setting and no refinement its values agree with the CPU tree's to rounding,
// and both agree with the float64 brute force to the tolerance; coincidences are counted alike.
TEST(FieldTreeCuda, AgreesWithTheCpuTreeAndDirect) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Method::Tree, Backend::Cuda);
  auto cpu = make_evaluator(Method::Tree, Backend::Cpu);
  EXPECT_EQ(gpu->backend(), Backend::Cuda);
  for (const Case c : {Case{"uniform", 1000, 0}, Case{"gaussian", 0, 0}, Case{"dipoles", 0, 25},
                       Case{"lattice", 0, 0}}) {
    const Sources s = generate_sources(c.distribution, 20000, 750, 9);
    Targets t = plane(c.offset, 40, 995);
    for (double tol : {1e-3, 1e-5, 1e-7}) {
      Options o = tree_options(tol, c.eps);
      o.tree_order = tree_rule(tol).order, o.tree_theta = tree_rule(tol).theta;
      const Result g = run(*gpu, s, t, o), h = run(*cpu, s, t, o);
      EXPECT_EQ(g.method, Method::Tree);
      EXPECT_EQ(g.tree.m2l, h.tree.m2l) << c.distribution;
      EXPECT_EQ(g.skipped_coincidences, h.skipped_coincidences);
      // The CPU sums the near field in fp32 for tolerances >= 1e-6 (tree_cpu.cpp), CUDA in fp64.
      EXPECT_LT(field_rms(g, h), 1e-6 * tol + (tol >= 1e-6 ? 1e-6 : 1e-7))
          << c.distribution << " " << tol;
      EXPECT_NEAR(g.tree.rms_rel_error, h.tree.rms_rel_error, 0.01 * h.tree.rms_rel_error + 1e-9);
    }
    // With the ladder, against the brute force.
    const Result g = run(*gpu, s, t, tree_options(1e-5, c.eps));
    EXPECT_LT(field_rms(g, reference(s, t, tree_options(1e-5, c.eps))), 1e-5) << c.distribution;
  }
}

// Ranges and the kept tree on CUDA: merged ranges equal the whole to rounding; a moved plane
// reuses the tree (no rebuild) and stays accurate.
TEST(FieldTreeCuda, RangesAndKeptTree) {
  SKIP_WITHOUT_CUDA();
  auto ev = make_evaluator(Method::Tree, Backend::Cuda);
  Sources s = generate_sources("uniform", 50000, 750, 2);
  s.generation = 77;
  const Targets t = plane(0, 30, 995);
  Options o = tree_options(1e-5);
  o.error_samples = 0;
  const Result whole = run(*ev, s, t, o);
  std::vector<Result> parts;
  for (const IndexRange& r : split_evenly(t.size(), 4)) {
    parts.emplace_back();
    ev->evaluate(s, t, r, o, parts.back());
  }
  EXPECT_LT(field_rms(merge_target_ranges(parts), whole), 1e-12);
  const Targets moved = plane(300, 30, 995);
  const Result m = run(*ev, s, moved, tree_options(1e-5));
  EXPECT_EQ(m.tree.build_seconds, 0);
  EXPECT_LT(field_rms(m, reference(s, moved, tree_options(1e-5))), 1e-5);
}

}  // namespace
}  // namespace simscope::field
