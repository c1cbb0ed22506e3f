// The tree method's error view (issue 12): the coarse subgrid (field::error_subgrid) and the
// per-target relative errors (Result::target_errors) against independent float64 direct sums.
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

// The subgrid's indices are round(k (n-1) / (m-1)) on each axis, its targets the flat indices
// of make_targets in C order (faces first for a box); m = 0 follows the source count.
TEST(FieldTreeErrorView, Subgrid) {
  Grid g;
  g.size = 11;
  const ErrorSubgrid s = error_subgrid(g, 3, 100);
  EXPECT_EQ(s.m, 3);
  EXPECT_EQ(s.index, (std::vector<int>{0, 5, 10}));
  EXPECT_EQ(s.targets, (std::vector<std::size_t>{0, 5, 10, 55, 60, 65, 110, 115, 120}));
  EXPECT_EQ(error_subgrid(g, 1, 100).index, (std::vector<int>{5}));
  EXPECT_EQ(error_subgrid(g, 64, 100).m, 11);  // at most the grid itself
  // Automatic: clamp(floor(sqrt(3e7 / P)), 3, 32).
  g.size = 200;
  EXPECT_EQ(error_subgrid(g, 0, 8000000).m, 3);
  EXPECT_EQ(error_subgrid(g, 0, 1000000).m, 5);
  EXPECT_EQ(error_subgrid(g, 0, 100000).m, 17);
  EXPECT_EQ(error_subgrid(g, 0, 1000).m, 32);
  g.kind = PlaneKind::Box, g.size = 4;
  const ErrorSubgrid b = error_subgrid(g, 2, 100);
  EXPECT_EQ(b.targets.size(), 24u);
  EXPECT_EQ(b.targets[4], 16u);  // face 1, (0, 0)
  EXPECT_EQ(b.targets[23], 6 * 16u - 1);
  EXPECT_THROW(error_subgrid(g, -1, 100), Error);
}

// target_errors equal |E_tree - E_ref| / |E_ref| with E_ref the float64 brute force, E_tree the
// tree's outputs (fp32-rounded: 6e-8 relative, far below the errors of 1e-6..1e-3 compared), on
// a plane through the sources and one outside, and within a work range.
TEST(FieldTreeErrorView, ErrorsEqualTheFloat64DirectSum) {
  const Sources s = generate_sources("gaussian", 20000, 1.0, 3);
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  for (double off : {0.0, 1.7}) {
    Grid g;
    g.size = 40, g.half_width = 1.2, g.offset = off;
    const Targets t = make_targets(g);
    const ErrorSubgrid sub = error_subgrid(g, 7, s.size());
    Options o;
    o.tolerance = 1e-4;
    o.error_targets = sub.targets;
    Result r;
    ev->evaluate(s, t, o, r);
    ASSERT_EQ(r.method, Method::Tree);
    ASSERT_EQ(r.target_errors.size(), sub.targets.size());
    Targets st;
    for (std::size_t i : sub.targets)
      st.x.push_back(t.x[i]), st.y.push_back(t.y[i]), st.z.push_back(t.z[i]);
    Options ro;
    ro.precision = Precision::Fp64;
    Result ref;
    evaluate_reference(s, st, ro, ref);
    double largest = 0;
    for (std::size_t k = 0; k < sub.targets.size(); ++k) {
      const std::size_t i = sub.targets[k];
      const double d[3] = {double(r.ex[i]) - ref.ex[k], double(r.ey[i]) - ref.ey[k],
                           double(r.ez[i]) - ref.ez[k]};
      const double e = std::sqrt(double(ref.ex[k]) * ref.ex[k] + double(ref.ey[k]) * ref.ey[k] +
                                 double(ref.ez[k]) * ref.ez[k]);
      const double want = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / e;
      EXPECT_NEAR(r.target_errors[k], want, 2e-7 + 1e-3 * want) << off << " " << k;
      largest = std::max(largest, want);
    }
    EXPECT_GT(largest, 0);  // the tree is not exact: the comparison compares something
    EXPECT_LT(largest, 1e-2);

    // A work range holding part of the subgrid: its entries, the same values.
    Options ro2 = o;
    ro2.error_targets.clear();
    const IndexRange range{200, 1000};
    std::vector<float> want;
    for (std::size_t k = 0; k < sub.targets.size(); ++k)
      if (sub.targets[k] >= range.begin && sub.targets[k] < range.end)
        ro2.error_targets.push_back(sub.targets[k]), want.push_back(r.target_errors[k]);
    ro2.error_samples = 0, ro2.tree_order = r.tree.order, ro2.tree_theta = r.tree.theta;
    Options whole = o;
    whole.error_samples = 0, whole.tree_order = r.tree.order, whole.tree_theta = r.tree.theta;
    Result rw, rr;
    ev->evaluate(s, t, whole, rw);
    ev->evaluate(s, t, range, ro2, rr);
    ASSERT_EQ(rr.target_errors.size(), want.size());
    for (std::size_t k = 0, j = 0; k < sub.targets.size(); ++k)
      if (sub.targets[k] >= range.begin && sub.targets[k] < range.end)
        EXPECT_EQ(rr.target_errors[j++], rw.target_errors[k]);
  }
}

// Direct results carry none; an index outside the evaluated range is refused by name.
TEST(FieldTreeErrorView, DirectHasNoneAndBadIndices) {
  const Sources s = generate_sources("uniform", 500, 1.0, 1);
  Grid g;
  g.size = 8;
  const Targets t = make_targets(g);
  Options o;
  o.error_targets = {0, 63};
  Result r;
  make_evaluator(Method::Direct, Backend::Cpu)->evaluate(s, t, o, r);
  EXPECT_TRUE(r.target_errors.empty());
  auto ev = make_evaluator(Method::Tree, Backend::Cpu);
  o.error_targets = {64};
  try {
    ev->evaluate(s, t, o, r);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("error_targets holds target 64"), std::string::npos);
  }
  o.error_targets = {3};
  EXPECT_THROW(ev->evaluate(s, t, IndexRange{10, 20}, o, r), Error);
}

}  // namespace
}  // namespace simscope::field
