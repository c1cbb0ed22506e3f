// The colorbar: its gradient, its tick labels and title; example images for a human to look at.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "render/colormap.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"
#include "render_test_support.hpp"

namespace simscope::render {
namespace {

using test::Image;
using test::RenderTest;

bool is_text(const std::array<int, 3>& c) { return c[0] > 200 && c[1] > 200 && c[2] > 200; }

/// |E| of a dipole (+1 at (-0.3, 0), -1 at (+0.3, 0)) on [-1, 1]^2, i along x, j along y.
std::vector<float> dipole(int n) {
  std::vector<float> v(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double x = -1 + 2.0 * i / (n - 1), y = -1 + 2.0 * j / (n - 1);
      double ex = 0, ey = 0;
      for (const auto& [sx, q] : {std::pair{-0.3, 1.0}, std::pair{0.3, -1.0}}) {
        const double dx = x - sx, dy = y, r2 = dx * dx + dy * dy + 1e-4;
        ex += q * dx / std::pow(r2, 1.5);
        ey += q * dy / std::pow(r2, 1.5);
      }
      v[static_cast<size_t>(i) * n + j] = static_cast<float>(std::hypot(ex, ey));
    }
  }
  return v;
}

TEST_F(RenderTest, ColorbarGradientLabelsAndTitle) {
  const int rows = 120, cols = 90;
  std::vector<float> v(rows * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) v[i * cols + j] = static_cast<float>(i) / (rows - 1) * 50;
  PlaneView view;
  ViewSettings s;
  s.colormap = "turbo";
  s.label = "|E|";
  s.unit = "V/m";
  view.set_settings(s);
  view.set_data_host(v.data(), rows, cols);
  Offscreen fb(480, 320);
  fb.bind();
  view.draw(0, 0, 480, 320);
  const Image img{480, 320, fb.read_rgba()};
  test::save_png(img, "render_colorbar_turbo.png");

  const auto bar = view.last_colorbar_rect();
  const auto image = view.last_image_rect();
  ASSERT_TRUE(bar);
  ASSERT_TRUE(image);
  EXPECT_LE(image->x + image->w, bar->x) << "the image overlaps the colorbar";
  EXPECT_GE(bar->h, 200);
  // The gradient: bottom = t 0, top = t 1, linear in between, in the bar's middle column.
  const Colormap& map = colormap("turbo");
  const int cx = static_cast<int>(bar->x + bar->w / 2);
  int bad = 0;
  for (int y = static_cast<int>(bar->y); y < static_cast<int>(bar->y + bar->h); ++y) {
    const double t = (y + 0.5 - bar->y) / bar->h;
    if (test::max_diff(img.at(cx, y), test::to_rgb8(map.sample(t))) > 3) ++bad;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_LE(test::max_diff(img.at(cx, static_cast<int>(bar->y + bar->h) - 1),
                           test::to_rgb8(map.sample(1.0))),
            6);
  EXPECT_LE(test::max_diff(img.at(cx, static_cast<int>(bar->y)), test::to_rgb8(map.sample(0.0))),
            6);
  // Tick labels right of the bar: text pixels in 5..7 separate bands (one per label).
  const int x0 = static_cast<int>(bar->x + bar->w) + 2;
  int bands = 0;
  bool in_band = false;
  for (int y = 0; y < static_cast<int>(bar->y + bar->h) + 8; ++y) {
    bool text = false;
    for (int x = x0; x < 480 && !text; ++x) text = is_text(img.at(x, y));
    if (text && !in_band) ++bands;
    in_band = text;
  }
  EXPECT_GE(bands, 5);
  EXPECT_LE(bands, 7);
  // The title above the bar.
  int title_pixels = 0;
  for (int y = static_cast<int>(bar->y + bar->h) + 4; y < 320; ++y)
    for (int x = static_cast<int>(bar->x) - 2; x < 480; ++x) title_pixels += is_text(img.at(x, y));
  EXPECT_GT(title_pixels, 30);
  // No text over the image.
  int image_text = 0;
  for (int y = static_cast<int>(image->y); y < static_cast<int>(image->y + image->h); ++y)
    for (int x = static_cast<int>(image->x); x < static_cast<int>(image->x + image->w); ++x)
      image_text += is_text(img.at(x, y)) && img.at(x, y) == std::array<int, 3>{255, 255, 255};
  EXPECT_EQ(image_text, 0);
}

TEST_F(RenderTest, ExampleImagesForReview) {
  // 1. Orientation: a linear ramp along i (left dark -> right bright) with a bright square at
  //    small i and large j (top left) and NaN at the bottom right.
  {
    const int rows = 160, cols = 100;
    std::vector<float> v(rows * cols);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        float x = static_cast<float>(i);
        if (i < 30 && j > 70) x = 200;
        if (i > 140 && j < 15) x = std::nanf("");
        v[i * cols + j] = x;
      }
    }
    PlaneView view;
    ViewSettings s;
    s.label = "ramp along i";
    s.unit = "a.u.";
    view.set_settings(s);
    view.set_data_host(v.data(), rows, cols);
    Offscreen fb(640, 360);
    fb.bind();
    view.draw(0, 0, 640, 360);
    const auto path = test::save_png(Image{640, 360, fb.read_rgba()}, "render_orientation.png");
    std::printf("[ info ] wrote %s\n", path.c_str());
  }
  // 2. |E| of a dipole, log scale, magma, at 2x UI scale (HiDPI).
  {
    const int n = 200;
    const auto v = dipole(n);
    PlaneView view;
    ViewSettings s;
    s.colormap = "magma";
    s.log_scale = true;
    s.label = "|E|";
    s.unit = "V/m";
    view.set_settings(s);
    view.set_ui_scale(1.5f);
    view.set_data_host(v.data(), n, n);
    Offscreen fb(800, 600);
    fb.bind();
    view.draw(0, 0, 800, 600);
    const auto path = test::save_png(Image{800, 600, fb.read_rgba()}, "render_dipole_log.png");
    std::printf("[ info ] wrote %s (range %g .. %g)\n", path.c_str(), view.range().first,
                view.range().second);
  }
}

}  // namespace
}  // namespace simscope::render
