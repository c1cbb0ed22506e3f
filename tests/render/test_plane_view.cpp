// The plane view against colours computed on the CPU from Colormap::sample, pixel by pixel.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
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

constexpr int kTolerance = 3;  // per channel, out of 255
const float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Plane {
  int rows, cols;
  std::vector<float> v;  // v[i*cols + j]
  float at(int i, int j) const { return v[static_cast<size_t>(i) * cols + j]; }
};

Plane make_plane(int rows, int cols, float (*f)(int, int)) {
  Plane p{rows, cols, std::vector<float>(static_cast<size_t>(rows) * cols)};
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) p.v[static_cast<size_t>(i) * cols + j] = f(i, j);
  return p;
}

/// Draws `plane` without colorbar into an offscreen image of exactly rows x cols pixels.
Image draw_exact(PlaneView& view, const Plane& plane) {
  view.set_data_host(plane.v.data(), plane.rows, plane.cols);
  Offscreen fb(plane.rows, plane.cols);
  fb.bind();
  view.draw(0, 0, plane.rows, plane.cols);
  return Image{plane.rows, plane.cols, fb.read_rgba()};
}

/// The CPU's colour for value v (see PlaneView's class comment).
std::array<int, 3> expected(const Colormap& map, double v, double lo, double hi, bool log) {
  if (std::isnan(v)) return {128, 128, 128};
  double t;
  if (std::isinf(v)) {
    t = v > 0 ? 1 : 0;
  } else if (log) {
    t = v > 0 ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : 0;
  } else {
    t = (v - lo) / (hi - lo);
  }
  return test::to_rgb8(map.sample(t));
}

/// Every pixel (x = i, y = j) against the CPU colour; returns the number of mismatches.
int compare_all(const Image& img, const Plane& p, const std::string& cmap, double lo, double hi,
                bool log) {
  const Colormap& map = colormap(cmap);
  int bad = 0;
  for (int i = 0; i < p.rows; ++i) {
    for (int j = 0; j < p.cols; ++j) {
      const auto want = expected(map, p.at(i, j), lo, hi, log);
      const auto got = img.at(i, j);
      if (test::max_diff(want, got) > kTolerance) {
        if (++bad <= 5) {
          ADD_FAILURE() << "(i=" << i << ", j=" << j << ") value " << p.at(i, j) << ": got "
                        << got[0] << "," << got[1] << "," << got[2] << " want " << want[0] << ","
                        << want[1] << "," << want[2];
        }
      }
    }
  }
  return bad;
}

ViewSettings no_bar(const std::string& cmap = "viridis") {
  ViewSettings s;
  s.colormap = cmap;
  s.colorbar = false;
  return s;
}

TEST_F(RenderTest, LinearRampAutoRange) {
  const Plane p = make_plane(64, 40, [](int i, int j) { return 0.5f * i + 0.25f * j - 3.0f; });
  PlaneView view;
  view.set_settings(no_bar());
  const Image img = draw_exact(view, p);
  const auto [lo, hi] = view.range();
  EXPECT_DOUBLE_EQ(lo, -3.0);
  EXPECT_DOUBLE_EQ(hi, 0.5 * 63 + 0.25 * 39 - 3.0);
  EXPECT_EQ(compare_all(img, p, "viridis", lo, hi, false), 0);
  EXPECT_EQ(view.upload_path(), "host upload");
}

TEST_F(RenderTest, TwoDFunctionEveryColormap) {
  const Plane p = make_plane(
      57, 33, [](int i, int j) { return std::sin(0.21f * i) * std::cos(0.17f * j) + 0.01f * i; });
  PlaneView view;
  for (const auto& name : colormap_names()) {
    view.set_settings(no_bar(name));
    const Image img = draw_exact(view, p);
    const auto [lo, hi] = view.range();
    EXPECT_EQ(compare_all(img, p, name, lo, hi, false), 0) << name;
  }
}

TEST_F(RenderTest, LockedRangeClamps) {
  const Plane p = make_plane(50, 30, [](int i, int j) { return 0.1f * i - 0.05f * j; });
  PlaneView view;
  ViewSettings s = no_bar("coolwarm");
  s.auto_range = false;
  s.min = 0.5;
  s.max = 3.0;
  view.set_settings(s);
  const Image img = draw_exact(view, p);
  EXPECT_EQ(view.range(), (std::pair<double, double>{0.5, 3.0}));
  EXPECT_EQ(compare_all(img, p, "coolwarm", 0.5, 3.0, false), 0);
}

TEST_F(RenderTest, LogScaleAutoRangeWithNonPositiveValues) {
  // Seven decades; column j = 0 holds zeros and negatives (bottom colour in log scale).
  const Plane p = make_plane(70, 20, [](int i, int j) {
    if (j == 0) return i % 2 ? 0.0f : -1.0f;
    return std::pow(10.0f, -3.0f + 0.1f * i) * (1.0f + 0.05f * j);
  });
  PlaneView view;
  ViewSettings s = no_bar("inferno");
  s.log_scale = true;
  view.set_settings(s);
  const Image img = draw_exact(view, p);
  const auto [lo, hi] = view.range();
  EXPECT_NEAR(lo, std::pow(10.0f, -3.0f) * 1.05f, 1e-9);  // smallest positive
  EXPECT_NEAR(hi, std::pow(10.0f, -3.0f + 6.9f) * 1.95f, hi * 1e-6);
  EXPECT_EQ(compare_all(img, p, "inferno", lo, hi, true), 0);
}

TEST_F(RenderTest, LogScaleLockedRange) {
  const Plane p = make_plane(40, 40, [](int i, int j) { return std::exp(0.2f * i - 0.1f * j); });
  PlaneView view;
  ViewSettings s = no_bar("plasma");
  s.log_scale = true;
  s.auto_range = false;
  s.min = 0.1;
  s.max = 100;
  view.set_settings(s);
  const Image img = draw_exact(view, p);
  EXPECT_EQ(compare_all(img, p, "plasma", 0.1, 100, true), 0);
}

TEST_F(RenderTest, NanIsGreyAndInfinitiesClamp) {
  Plane p = make_plane(16, 12, [](int i, int j) { return static_cast<float>(i + j); });
  p.v[3 * 12 + 4] = kNaN;
  p.v[10 * 12 + 1] = kNaN;
  p.v[5 * 12 + 5] = std::numeric_limits<float>::infinity();
  p.v[6 * 12 + 6] = -std::numeric_limits<float>::infinity();
  PlaneView view;
  view.set_settings(no_bar());
  const Image img = draw_exact(view, p);
  const auto [lo, hi] = view.range();
  EXPECT_DOUBLE_EQ(lo, 0);  // finite values only
  EXPECT_DOUBLE_EQ(hi, 26);
  // 0.5 * 255 = 127.5: a tie that GL implementations may round either way (llvmpipe: 128).
  EXPECT_LE(test::max_diff(img.at(3, 4), {128, 128, 128}), 1);
  EXPECT_LE(test::max_diff(img.at(10, 1), {128, 128, 128}), 1);
  EXPECT_EQ(compare_all(img, p, "viridis", lo, hi, false), 0);
}

TEST_F(RenderTest, OrientationIRightJUpWithSquarePixels) {
  // 2 x 3 plane in a 400 x 300 rectangle: 100-pixel squares, centred horizontally.
  const float values[6] = {0, 1, 2, 3, 4, 5};  // v[i*3 + j]
  PlaneView view;
  ViewSettings s = no_bar("gray");
  s.auto_range = false;
  s.min = 0;
  s.max = 5;
  view.set_settings(s);
  view.set_background(1, 0, 0);
  view.set_data_host(values, 2, 3);
  Offscreen fb(400, 300);
  fb.bind();
  view.draw(0, 0, 400, 300);
  const Image img{400, 300, fb.read_rgba()};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const int g = static_cast<int>(std::lround(values[i * 3 + j] / 5.0 * 255));
      // One level of slack for the colormap lookup's interpolation on other GL implementations.
      EXPECT_LE(test::max_diff(img.at(100 + 100 * i + 50, 100 * j + 50), {g, g, g}), 1)
          << "i=" << i << " j=" << j;
    }
  }
  EXPECT_EQ(img.at(50, 150), (std::array<int, 3>{255, 0, 0}));   // background left
  EXPECT_EQ(img.at(350, 150), (std::array<int, 3>{255, 0, 0}));  // and right
  const auto rect = view.last_image_rect();
  ASSERT_TRUE(rect);
  EXPECT_DOUBLE_EQ(rect->x, 100);
  EXPECT_DOUBLE_EQ(rect->w, 200);
  EXPECT_DOUBLE_EQ(rect->h, 300);
  // Cursor readout: framebuffer pixel -> fractional (i, j).
  const auto ij = view.image_coords(100 + 150.5, 250.5);
  ASSERT_TRUE(ij);
  EXPECT_NEAR(ij->first, 1.505, 1e-9);
  EXPECT_NEAR(ij->second, 2.505, 1e-9);
  EXPECT_FALSE(view.image_coords(20, 150));
  EXPECT_FALSE(view.image_coords(150, 300.5));
}

TEST_F(RenderTest, DrawIntoSubRectangleLeavesTheRest) {
  const Plane p = make_plane(10, 10, [](int i, int j) { return static_cast<float>(i * j); });
  PlaneView view;
  view.set_settings(no_bar());
  view.set_data_host(p.v.data(), 10, 10);
  Offscreen fb(30, 20);
  fb.bind();
  glClearColor(0, 0, 1, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  view.draw(15, 5, 10, 10);
  const Image img{30, 20, fb.read_rgba()};
  EXPECT_EQ(img.at(2, 2), (std::array<int, 3>{0, 0, 255}));
  EXPECT_EQ(img.at(27, 17), (std::array<int, 3>{0, 0, 255}));
  const auto [lo, hi] = view.range();
  const auto want = expected(colormap("viridis"), p.at(9, 9), lo, hi, false);
  EXPECT_LE(test::max_diff(img.at(24, 14), want), kTolerance);
  EXPECT_NO_THROW(view.draw(0, 0, 0, 0));  // minimised window: nothing drawn, no error
}

TEST_F(RenderTest, BadSettingsAndSizesThrowAndKeepState) {
  PlaneView view;
  ViewSettings s;
  s.colormap = "jet";
  EXPECT_THROW(view.set_settings(s), RenderError);
  EXPECT_EQ(view.settings().colormap, "viridis");
  s = ViewSettings{};
  s.auto_range = false;
  s.min = 2;
  s.max = 1;
  EXPECT_THROW(view.set_settings(s), RenderError);
  s.min = 0;
  s.max = 1;
  s.log_scale = true;
  EXPECT_THROW(view.set_settings(s), RenderError);
  const float one = 1.0f;
  EXPECT_THROW(view.set_data_host(&one, 0, 1), RenderError);
  EXPECT_THROW(view.set_data_host(&one, 1, 1 << 30), RenderError);
  EXPECT_THROW(view.set_data_host(nullptr, 1, 1), RenderError);
  EXPECT_EQ(view.range(), (std::pair<double, double>{0.0, 1.0}));  // no data yet
}

TEST_F(RenderTest, DegenerateRanges) {
  PlaneView view;
  const std::vector<float> flat(12, 4.0f);
  view.set_data_host(flat.data(), 3, 4);
  EXPECT_EQ(view.range(), (std::pair<double, double>{3.5, 4.5}));
  const std::vector<float> nans(12, kNaN);
  view.set_data_host(nans.data(), 4, 3);
  EXPECT_EQ(view.range(), (std::pair<double, double>{0.0, 1.0}));
  ViewSettings s;
  s.log_scale = true;
  view.set_settings(s);
  EXPECT_EQ(view.range(), (std::pair<double, double>{1.0, 10.0}));
}

/// A bad locked range names view.min / view.max with their values in %g (1e-7 must not read
/// "0.000000"), and the previous settings stay.
TEST_F(RenderTest, BadLockedRangeNamesTheParametersAndKeepsTheSettings) {
  PlaneView view;
  ViewSettings good = no_bar("gray");
  good.auto_range = false;
  good.min = 1e-7;
  good.max = 2e-7;
  view.set_settings(good);
  ViewSettings bad = good;
  bad.min = 3e-7;
  try {
    view.set_settings(bad);
    ADD_FAILURE() << "min > max accepted";
  } catch (const RenderError& e) {
    EXPECT_EQ(std::string(e.what()),
              "a locked range needs finite view.min < view.max, got view.min = 3e-07 and "
              "view.max = 2e-07");
  }
  bad = good;
  bad.log_scale = true;
  bad.min = -1;
  try {
    view.set_settings(bad);
    ADD_FAILURE() << "log scale with min <= 0 accepted";
  } catch (const RenderError& e) {
    EXPECT_EQ(std::string(e.what()),
              "a locked range on a log scale needs view.min > 0, got view.min = -1");
  }
  EXPECT_EQ(view.settings().min, 1e-7);
  EXPECT_EQ(view.settings().max, 2e-7);
}

}  // namespace
}  // namespace simscope::render
