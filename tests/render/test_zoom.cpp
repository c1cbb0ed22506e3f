// Zoom and pan of the plane view: the shown window of the data, pixel by pixel, and the cursor
// mapping back to data coordinates.
#include <gtest/gtest.h>

#include <vector>

#include "render/colormap.hpp"
#include "render/error.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"
#include "render_test_support.hpp"

namespace simscope::render {
namespace {

using test::Image;
using test::RenderTest;

TEST_F(RenderTest, ZoomShowsTheWindowOfTheData) {
  const int n = 64;  // data n x n, value = i + n * j (distinct everywhere)
  std::vector<float> v(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) v[i * n + j] = float(i + n * j);
  PlaneView view;
  ViewSettings s;
  s.colorbar = false;
  s.auto_range = false;
  s.min = 0, s.max = n * n - 1;
  s.colormap = "turbo";
  view.set_settings(s);
  view.set_data_host(v.data(), n, n);
  view.set_zoom(4, 0.25, 0.75);  // data window i in [8, 24), j in [40, 56)
  const auto w = view.zoom_window();
  EXPECT_DOUBLE_EQ(w[0], 0.125);
  EXPECT_DOUBLE_EQ(w[1], 0.625);
  EXPECT_DOUBLE_EQ(w[2], 0.25);
  Offscreen fb(n, n);  // 64 px show 16 samples: 4 px each
  fb.bind();
  view.draw(0, 0, n, n);
  const Image img{n, n, fb.read_rgba()};
  const Colormap& map = colormap("turbo");
  int bad = 0;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y) {
      const int i = 8 + x / 4, j = 40 + y / 4;
      const auto want = test::to_rgb8(map.sample((i + n * j) / double(n * n - 1)));
      if (test::max_diff(want, img.at(x, y)) > 3) ++bad;
      const auto ij = view.image_coords(x + 0.5, y + 0.5);
      ASSERT_TRUE(ij.has_value());
      EXPECT_EQ(int(ij->first), i);
      EXPECT_EQ(int(ij->second), j);
    }
  EXPECT_EQ(bad, 0);
}

TEST_F(RenderTest, ZoomWindowStaysInsideTheData) {
  PlaneView view;
  view.set_zoom(2, 0.0, 1.0);  // centre at a corner: the window is clamped
  const auto w = view.zoom_window();
  EXPECT_DOUBLE_EQ(w[0], 0.0);
  EXPECT_DOUBLE_EQ(w[1], 0.5);
  EXPECT_THROW(view.set_zoom(0.5, 0.5, 0.5), RenderError);
  view.set_zoom(1, 0.3, 0.9);
  EXPECT_DOUBLE_EQ(view.zoom_window()[2], 1.0);
  EXPECT_DOUBLE_EQ(view.zoom_window()[0], 0.0);
}

}  // namespace
}  // namespace simscope::render
