// Target layout of the field workload: linspace endpoints, axis order of the planes, the six box
// faces, shapes and invalid grids.
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

double linspace(double hw, int n, int i) { return -hw + 2 * hw * i / (n - 1); }

TEST(FieldTargets, PlaneAxisOrderAndEndpoints) {
  const int n = 7;
  const double hw = 2.5, off = -0.75;
  for (PlaneKind kind : {PlaneKind::XY, PlaneKind::XZ, PlaneKind::YZ}) {
    Grid g;
    g.kind = kind, g.offset = off, g.size = n, g.half_width = hw;
    const Targets t = make_targets(g);
    ASSERT_EQ(t.size(), std::size_t(n * n));
    EXPECT_EQ(grid_shape(g), (std::vector<std::size_t>{std::size_t(n), std::size_t(n)}));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const std::size_t k = std::size_t(i * n + j);
        const double u = linspace(hw, n, i), v = linspace(hw, n, j);
        // xy: (u, v, off); xz: (u, off, v); yz: (off, u, v)
        const double ex = kind == PlaneKind::YZ ? off : u;
        const double ey = kind == PlaneKind::XY ? v : kind == PlaneKind::XZ ? off : u;
        const double ez = kind == PlaneKind::XY ? off : v;
        EXPECT_NEAR(t.x[k], ex, 1e-15) << i << "," << j;
        EXPECT_NEAR(t.y[k], ey, 1e-15) << i << "," << j;
        EXPECT_NEAR(t.z[k], ez, 1e-15) << i << "," << j;
      }
    // Endpoints exact, as numpy.linspace gives them; the middle sample is exactly 0.
    const std::vector<double>& first = kind == PlaneKind::YZ ? t.y : t.x;
    EXPECT_EQ(first[0], -hw);
    EXPECT_EQ(first[std::size_t((n - 1) * n)], hw);
    EXPECT_EQ(first[std::size_t(3 * n)], 0.0);
  }
}

TEST(FieldTargets, BoxFacesInOrder) {
  const int n = 4;
  Grid g;
  g.kind = PlaneKind::Box, g.offset = 1.5, g.size = n, g.half_width = 1;
  const Targets t = make_targets(g);
  ASSERT_EQ(t.size(), std::size_t(6 * n * n));
  EXPECT_EQ(grid_shape(g), (std::vector<std::size_t>{6, std::size_t(n), std::size_t(n)}));
  // Faces -x, +x, -y, +y, -z, +z, each laid out as the plane with the same normal.
  const PlaneKind layout[6] = {PlaneKind::YZ, PlaneKind::YZ, PlaneKind::XZ,
                               PlaneKind::XZ, PlaneKind::XY, PlaneKind::XY};
  for (int f = 0; f < 6; ++f) {
    Grid pg;
    pg.kind = layout[f], pg.offset = (f % 2 ? 1.5 : -1.5), pg.size = n, pg.half_width = 1;
    const Targets p = make_targets(pg);
    for (std::size_t k = 0; k < p.size(); ++k) {
      const std::size_t b = std::size_t(f * n * n) + k;
      EXPECT_EQ(t.x[b], p.x[k]) << f;
      EXPECT_EQ(t.y[b], p.y[k]) << f;
      EXPECT_EQ(t.z[b], p.z[k]) << f;
    }
  }
  EXPECT_EQ(t.x[0], -1.5);
  EXPECT_EQ(t.z[std::size_t(6 * n * n - 1)], 1.5);
}

// QA: plane=box with plane.offset=-1 put the face labelled -x (index 0) at x = +1. The faces are at
// +-|offset| whatever the sign, in the order -x, +x, -y, +y, -z, +z; a positive source at the
// origin then pulls E (k > 0) towards itself: +x on face 0, -x on face 1, and so on.
TEST(FieldTargets, BoxFacesUseTheMagnitudeOfANegativeOffset) {
  const int n = 5;
  for (double off : {-1.0, 1.0, -2.5}) {
    Grid g;  // as grid_from reads plane=box, plane.offset=off (test_field_params.cpp)
    g.kind = PlaneKind::Box, g.offset = std::fabs(off), g.size = n, g.half_width = 1.5;
    Grid raw = g;
    raw.offset = off;  // a Grid built by hand with a negative offset gives the same faces
    const Targets t = make_targets(g), t_raw = make_targets(raw);
    EXPECT_EQ(t.x, t_raw.x) << off;
    EXPECT_EQ(t.y, t_raw.y) << off;
    EXPECT_EQ(t.z, t_raw.z) << off;
    const std::size_t nn = std::size_t(n * n);
    const double d = std::fabs(off);
    for (std::size_t k = 0; k < nn; ++k) {
      EXPECT_EQ(t.x[0 * nn + k], -d) << off;
      EXPECT_EQ(t.x[1 * nn + k], d) << off;
      EXPECT_EQ(t.y[2 * nn + k], -d) << off;
      EXPECT_EQ(t.y[3 * nn + k], d) << off;
      EXPECT_EQ(t.z[4 * nn + k], -d) << off;
      EXPECT_EQ(t.z[5 * nn + k], d) << off;
    }
    Sources one;
    one.x = {0.f}, one.y = {0.f}, one.z = {0.f}, one.q = {1.f};
    Options o;  // k = 1: E points towards the positive source
    Result r;
    evaluate_reference(one, t, o, r);
    const std::size_t centre = std::size_t((n / 2) * n + n / 2);
    const std::vector<float>* comp[3] = {&r.ex, &r.ey, &r.ez};
    for (int f = 0; f < 6; ++f) {
      const float e = (*comp[f / 2])[f * nn + centre];
      // Face -x (f = 0) is at x = -|offset|: the source lies in +x from there.
      EXPECT_EQ(e > 0, f % 2 == 0) << "face " << f << " offset " << off << " E " << e;
      EXPECT_NEAR(std::fabs(e), 1.0 / (d * d), 1e-6 / (d * d)) << f;
    }
  }
}

TEST(FieldTargets, InvalidGridsThrow) {
  Grid g;
  g.size = 1;
  EXPECT_NE(test::error_of([&] { make_targets(g); }).find("grid.size"), std::string::npos);
  g.size = 0;
  EXPECT_THROW(grid_shape(g), Error);
  g.size = 4, g.half_width = 0;
  EXPECT_THROW(make_targets(g), Error);
  g.half_width = 1, g.offset = NAN;
  EXPECT_THROW(make_targets(g), Error);
}

}  // namespace
}  // namespace simscope::field
