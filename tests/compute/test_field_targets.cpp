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
