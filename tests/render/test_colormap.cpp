// Colormap tables: names, sizes, matplotlib's endpoints, interpolation, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "render/colormap.hpp"
#include "render/error.hpp"

namespace simscope::render {
namespace {

TEST(Colormap, AllNamesHave256RowsInRange) {
  const auto& names = colormap_names();
  ASSERT_EQ(names.size(), 8u);
  for (const auto& name : names) {
    const Colormap& map = colormap(name);
    EXPECT_EQ(map.name, name);
    ASSERT_EQ(map.table.size(), 256u) << name;
    for (const auto& c : map.table) {
      for (float v : c) {
        EXPECT_GE(v, 0.0f);
        EXPECT_LE(v, 1.0f);
      }
    }
    EXPECT_EQ(map.cyclic, name == "twilight") << name;
  }
}

TEST(Colormap, KnownEndpoints) {
  // viridis from matplotlib's _cm_listed.py (the published table).
  const Colormap& v = colormap("viridis");
  EXPECT_NEAR(v.table.front()[0], 0.267004, 1e-6);
  EXPECT_NEAR(v.table.front()[1], 0.004874, 1e-6);
  EXPECT_NEAR(v.table.front()[2], 0.329415, 1e-6);
  EXPECT_NEAR(v.table.back()[0], 0.993248, 1e-6);
  EXPECT_NEAR(v.table.back()[1], 0.906157, 1e-6);
  EXPECT_NEAR(v.table.back()[2], 0.143936, 1e-6);
  const Colormap& g = colormap("gray");
  EXPECT_EQ(g.table.front(), (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(g.table.back(), (std::array<float, 3>{1, 1, 1}));
  const Colormap& t = colormap("twilight");  // cyclic: both ends the same light grey
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(t.table.front()[c], t.table.back()[c], 3e-3);
}

TEST(Colormap, ViridisMatchesMatplotlibAtTestTime) {
  FILE* p = popen(SIMSCOPE_PYTHON
                  " -c \"import matplotlib as m; c=m.colormaps['viridis']; "
                  "print(*c(0)[:3], *c(255)[:3])\" 2>/dev/null",
                  "r");
  ASSERT_NE(p, nullptr);
  double x[6];
  const int n = std::fscanf(p, "%lf %lf %lf %lf %lf %lf", x, x + 1, x + 2, x + 3, x + 4, x + 5);
  pclose(p);
  if (n != 6) GTEST_SKIP() << "matplotlib not available for " SIMSCOPE_PYTHON;
  const Colormap& v = colormap("viridis");
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(v.table[0][c], x[c], 1e-7);
    EXPECT_NEAR(v.table[255][c], x[3 + c], 1e-7);
  }
}

TEST(Colormap, SampleInterpolatesLinearlyAndClamps) {
  const Colormap& m = colormap("magma");
  const auto mid = m.sample(0.5 / 255.0);  // halfway between entries 0 and 1
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(mid[c], 0.5f * (m.table[0][c] + m.table[1][c]), 1e-6);
  }
  EXPECT_EQ(m.sample(-3.0), m.table.front());
  EXPECT_EQ(m.sample(7.0), m.table.back());
  EXPECT_EQ(m.sample(1.0), m.table.back());
  EXPECT_EQ(m.sample(100.0 / 255.0), m.table[100]);
  EXPECT_EQ(m.sample(std::nan("")), m.table.front());
}

TEST(Colormap, UnknownNameListsTheKnownOnes) {
  try {
    colormap("jet");
    FAIL() << "no exception";
  } catch (const RenderError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'jet'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("viridis"), std::string::npos) << msg;
    EXPECT_NE(msg.find("twilight"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace simscope::render
