// The plane view's annotations (render/plane_annotations.hpp): region labels inside their
// regions, Aspect::Fill over the whole area and square pixels kept by default, axis titles beside
// the image with the range of the samples shown (also when zoomed), and the colorbar kept in
// small views (compact) or a note where it does not fit at all.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "render/error.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"
#include "render/text.hpp"
#include "render_test_support.hpp"

namespace simscope::render {
namespace {

using test::Image;
using test::RenderTest;

const std::array<int, 3> kRed{255, 0, 0};

/// Text is drawn pure white on the view's dark background and on the labels' dark backdrop.
bool white(const std::array<int, 3>& c) { return c[0] > 230 && c[1] > 230 && c[2] > 230; }

/// Pixels [x0, x1) x [y0, y1) of `img` (clamped to it).
struct Box {
  int x0, y0, x1, y1;
};

Box clamp_box(const Image& img, Box b) {
  return {std::max(0, b.x0), std::max(0, b.y0), std::min(img.w, b.x1), std::min(img.h, b.y1)};
}

int count_white(const Image& img, Box b) {
  b = clamp_box(img, b);
  int n = 0;
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x) n += white(img.at(x, y));
  return n;
}

/// Pixels of `b` brighter than the colorbar's frame (0.75 grey): text, with the anti-aliased
/// edges of small glyphs, which are seldom pure white.
int count_bright(const Image& img, Box b) {
  b = clamp_box(img, b);
  int n = 0;
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x) {
      const auto c = img.at(x, y);
      n += c[0] > 200 && c[1] > 200 && c[2] > 200;
    }
  return n;
}

/// The bounding box of the white pixels in `b` (x1 = x0 when there are none).
Box white_extent(const Image& img, Box b) {
  b = clamp_box(img, b);
  Box e{b.x1, b.y1, b.x0, b.y0};
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x)
      if (white(img.at(x, y))) {
        e.x0 = std::min(e.x0, x), e.x1 = std::max(e.x1, x + 1);
        e.y0 = std::min(e.y0, y), e.y1 = std::max(e.y1, y + 1);
      }
  if (e.x1 <= e.x0) e = {b.x0, b.y0, b.x0, b.y0};
  return e;
}

Box box_of(const PixelRect& r) {
  return {int(std::lround(r.x)), int(std::lround(r.y)), int(std::lround(r.x + r.w)),
          int(std::lround(r.y + r.h))};
}

/// A uniform plane drawn black (gray colormap at its minimum), so text over it stands out.
ViewSettings black_plane() {
  ViewSettings s;
  s.colormap = "gray";
  s.auto_range = false;
  s.min = 0, s.max = 1;
  s.colorbar = false;
  return s;
}

Image draw(PlaneView& view, int w, int h) {
  Offscreen fb(w, h);
  fb.bind();
  view.draw(0, 0, w, h);
  return Image{w, h, fb.read_rgba()};
}

TEST_F(RenderTest, RegionLabelsAppearInsideTheirTiles) {
  // A 3 x 2 mosaic of 40 x 40 tiles (like the field's box faces); tiles 0 (bottom left) and 5
  // (top right) are labelled, tile 3 (top middle) has a label too long for it.
  const int n = 40;
  std::vector<float> v(size_t(3 * n) * 2 * n, 0.0f);
  PlaneView view;
  ViewSettings s = black_plane();
  auto region = [](int f, std::vector<std::string> texts) {
    RegionLabel r;
    r.u0 = (f / 2) / 3.0, r.u1 = (f / 2 + 1) / 3.0;
    r.v0 = (f % 2) / 2.0, r.v1 = (f % 2 + 1) / 2.0;
    r.texts = std::move(texts);
    return r;
  };
  s.annotations.regions = {
      region(0, {"-x face, x = -1.5: y right, z up, and more words than fit", "-x (y, z)", "-x"}),
      region(5, {"+z"}), region(3, {"a label far too long for a tile of this width"})};
  view.set_settings(s);
  view.set_data_host(v.data(), 3 * n, 2 * n);
  const Image img = draw(view, 600, 400);  // 200-pixel tiles
  test::save_png(img, "render_region_labels.png");
  const auto rect = view.last_image_rect();
  ASSERT_TRUE(rect);
  EXPECT_DOUBLE_EQ(rect->w, 600);
  EXPECT_DOUBLE_EQ(rect->h, 400);
  const double tw = rect->w / 3, th = rect->h / 2;
  for (int f = 0; f < 6; ++f) {
    const Box tile{int(rect->x + (f / 2) * tw), int(rect->y + (f % 2) * th),
                   int(rect->x + (f / 2 + 1) * tw), int(rect->y + (f % 2 + 1) * th)};
    const int text = count_white(img, tile);
    if (f == 0 || f == 5) {
      EXPECT_GT(text, 20) << "tile " << f << " has its label";
      // In the tile's top-left corner, inside the tile.
      const Box e = white_extent(img, tile);
      EXPECT_LT(e.x0 - tile.x0, 20) << "tile " << f;
      EXPECT_LT(tile.y1 - e.y1, 20) << "tile " << f;
      EXPECT_LT(e.x1, tile.x1) << "tile " << f;
    } else {
      EXPECT_EQ(text, 0) << "tile " << f << " has no label (or none that fits)";
    }
  }
  // Tile 0 shows the middle alternative: the first is wider than the tile, the second fits.
  TextRenderer tr;
  tr.set_scale(2);
  const Box tile0{0, 0, int(tw), int(th)};
  const Box e = white_extent(img, tile0);
  EXPECT_NEAR(e.x1 - e.x0, tr.text_width("-x (y, z)"), 2.5);
}

TEST_F(RenderTest, RegionLabelsFollowTheZoom) {
  const int n = 40;
  std::vector<float> v(size_t(2 * n) * n, 0.0f);
  PlaneView view;
  ViewSettings s = black_plane();
  RegionLabel left, right;
  left.u0 = 0, left.u1 = 0.5, left.texts = {"L"};
  right.u0 = 0.5, right.u1 = 1, right.texts = {"R"};
  s.annotations.regions = {left, right};
  view.set_settings(s);
  view.set_data_host(v.data(), 2 * n, n);
  view.set_zoom(2, 0.75, 0.5);  // the right half (and the middle half of j) only
  const Image img = draw(view, 400, 400);
  const auto rect = view.last_image_rect();
  ASSERT_TRUE(rect);
  const Box im = box_of(*rect);
  EXPECT_GT(count_white(img, {0, 0, 400, 400}), 10);
  const Box e = white_extent(img, {0, 0, 400, 400});
  TextRenderer tr;
  tr.set_scale(2);
  // One label, in the top-left corner of the image: "R" (the left region is out of sight).
  EXPECT_NEAR(e.x1 - e.x0, tr.text_width("R"), 2.5);
  EXPECT_LT(e.x0 - im.x0, 20);
  EXPECT_LT(im.y1 - e.y1, 20);
  EXPECT_GE(e.y0, im.y0);
}

TEST_F(RenderTest, FillCoversTheWholeViewport) {
  // An 8 x 100 array (members x nodes) in 640 x 400: 80 x 4 pixels per element.
  const int rows = 8, cols = 100;
  std::vector<float> v(rows * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) v[i * cols + j] = float(i * cols + j);
  PlaneView view;
  ViewSettings s;
  s.colormap = "gray";
  s.colorbar = false;
  s.auto_range = false;
  s.min = 0, s.max = rows * cols - 1;
  s.annotations.aspect = Aspect::Fill;
  view.set_settings(s);
  view.set_background(1, 0, 0);
  view.set_data_host(v.data(), rows, cols);
  const Image img = draw(view, 640, 400);
  const auto rect = view.last_image_rect();
  ASSERT_TRUE(rect);
  EXPECT_DOUBLE_EQ(rect->x, 0);
  EXPECT_DOUBLE_EQ(rect->y, 0);
  EXPECT_DOUBLE_EQ(rect->w, 640);
  EXPECT_DOUBLE_EQ(rect->h, 400);
  int background = 0;
  for (int y = 0; y < 400; ++y)
    for (int x = 0; x < 640; ++x) background += img.at(x, y) == kRed;
  EXPECT_EQ(background, 0) << "no background shows";
  // Element (i, j) fills pixels [80 i, 80 i + 80) x [4 j, 4 j + 4).
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; j += 11) {
      const int g = int(std::lround((i * cols + j) / double(rows * cols - 1) * 255));
      EXPECT_LE(test::max_diff(img.at(80 * i + 40, 4 * j + 2), {g, g, g}), 1)
          << "i=" << i << " j=" << j;
    }
  const auto ij = view.image_coords(80 * 3 + 10.5, 4 * 50 + 1.5);
  ASSERT_TRUE(ij);
  EXPECT_EQ(int(ij->first), 3);
  EXPECT_EQ(int(ij->second), 50);

  // With the colorbar the image fills the area left of it, up to the colorbar's title strip.
  s.colorbar = true;
  s.label = "theta";
  view.set_settings(s);
  const Image img2 = draw(view, 640, 400);
  const auto r2 = view.last_image_rect();
  const auto bar = view.last_colorbar_rect();
  ASSERT_TRUE(r2 && bar);
  EXPECT_GT(r2->w, 0.75 * 640);
  EXPECT_GT(r2->h, 0.8 * 400);
  EXPECT_LE(r2->x + r2->w, bar->x);
  EXPECT_NE(r2->w / rows, r2->h / cols) << "no square pixels in fill mode";
  (void)img2;
}

TEST_F(RenderTest, SquarePixelsKeptForSpatialPlanes) {
  // The same 8 x 100 array without Fill (the default: spatial planes): square pixels, centred.
  const int rows = 8, cols = 100;
  std::vector<float> v(rows * cols, 0.5f);
  PlaneView view;
  ViewSettings s = black_plane();
  s.annotations.axis_i = {"x", true, -1, 1};
  s.annotations.axis_j = {"y", true, -1, 1};
  view.set_settings(s);
  view.set_background(1, 0, 0);
  view.set_data_host(v.data(), rows, cols);
  const Image img = draw(view, 640, 400);
  const auto rect = view.last_image_rect();
  ASSERT_TRUE(rect);
  EXPECT_NEAR(rect->w / rows, rect->h / cols, 1e-9) << "square pixels";
  EXPECT_LT(rect->w, 100);
  EXPECT_EQ(img.at(20, 200), kRed) << "background beside the image";
  EXPECT_EQ(img.at(620, 200), kRed);
}

TEST_F(RenderTest, AxisTitlesBesideTheImageWithTheRangeShown) {
  const int n = 100;
  std::vector<float> v(n * n, 0.0f);
  PlaneView view;
  ViewSettings s = black_plane();
  s.annotations.axis_i = {"x", true, -1, 1};
  s.annotations.axis_j = {"z", true, -1.5, 1.5};
  view.set_settings(s);
  view.set_data_host(v.data(), n, n);
  Image img = draw(view, 500, 400);
  test::save_png(img, "render_axis_titles.png");
  auto rect = view.last_image_rect();
  ASSERT_TRUE(rect);
  Box im = box_of(*rect);
  EXPECT_GT(im.y0, 10) << "room for axis i's title below the image";
  EXPECT_EQ(count_white(img, im), 0) << "no title over the image";
  TextRenderer tr;
  tr.set_scale(2);
  // Axis i: below the image, centred on it, reading "x: -1 ... 1".
  Box below = white_extent(img, {0, 0, 500, im.y0});
  EXPECT_NEAR(below.x1 - below.x0, tr.text_width("x: -1 ... 1"), 2.5);
  EXPECT_NEAR((below.x0 + below.x1) / 2.0, (im.x0 + im.x1) / 2.0, 3);
  // Axis j: left of the image, rotated: as tall as "z: -1.5 ... 1.5" is wide, as wide as a line.
  Box left = white_extent(img, {0, im.y0, im.x0, im.y1});
  EXPECT_NEAR(left.y1 - left.y0, tr.text_width("z: -1.5 ... 1.5"), 2.5);
  EXPECT_LE(left.x1 - left.x0, tr.cap_height() + 6);
  EXPECT_GE(left.x1 - left.x0, tr.cap_height() - 2);
  EXPECT_NEAR((left.y0 + left.y1) / 2.0, (im.y0 + im.y1) / 2.0, 3);

  // Zoomed 2x about the centre: samples 25..74 are shown, x = -1 + 2 k / 99.
  view.set_zoom(2, 0.5, 0.5);
  img = draw(view, 500, 400);
  rect = view.last_image_rect();
  im = box_of(*rect);
  below = white_extent(img, {0, 0, 500, im.y0});
  EXPECT_NEAR(below.x1 - below.x0, tr.text_width("x: -0.4949 ... 0.4949"), 2.5);
  left = white_extent(img, {0, im.y0, im.x0, im.y1});
  EXPECT_NEAR(left.y1 - left.y0, tr.text_width("z: -0.7424 ... 0.7424"), 3.5);

  // Too little room for the range: the name alone.
  view.set_zoom(1, 0.5, 0.5);
  s.annotations.axis_i.name = "a rather long axis name";
  view.set_settings(s);
  img = draw(view, 330, 200);
  rect = view.last_image_rect();
  im = box_of(*rect);
  below = white_extent(img, {0, 0, 330, im.y0});
  EXPECT_NEAR(below.x1 - below.x0, tr.text_width("a rather long axis name"), 2.5);
}

TEST_F(RenderTest, VerticalTextReadsBottomToTop) {
  Offscreen fb(200, 200);
  fb.bind();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  TextRenderer tr(2);
  tr.add_text_vertical("HELLO", 50, 40);
  tr.draw(200, 200);
  const Image img{200, 200, fb.read_rgba()};
  const Box e = white_extent(img, {0, 0, 200, 200});
  EXPECT_EQ(e.x0, 50) << "the glyphs' tops at x = left";
  EXPECT_NEAR(e.x1 - e.x0, tr.cap_height(), 1);
  EXPECT_NEAR(e.y0, 40, 1) << "the line starts at y = bottom";
  EXPECT_NEAR(e.y1 - e.y0, tr.text_width("HELLO"), 2.5);
  // "H" at the bottom: its two stems are rows of pixels across the whole cap height.
  int full_rows = 0;
  for (int y = e.y0; y < e.y0 + 12; ++y) {
    bool full = true;
    for (int x = e.x0; x < e.x1; ++x) full = full && white(img.at(x, y));
    full_rows += full;
  }
  EXPECT_GE(full_rows, 2);
}

TEST_F(RenderTest, TextElideAndWrap) {
  TextRenderer tr(1);
  const std::string t = "status (0 ok, 1 underdetermined, 2 rank-deficient, 3 all missing)";
  EXPECT_EQ(tr.elide("abc", 1000), "abc");
  const std::string e = tr.elide(t, 100);
  EXPECT_LE(tr.text_width(e), 100);
  EXPECT_EQ(e.substr(e.size() - 3), "...");
  EXPECT_EQ(t.compare(0, e.size() - 3, e, 0, e.size() - 3), 0) << e;
  EXPECT_EQ(tr.elide(t, 2), "");

  const auto lines = tr.wrap(t, 150, 5);
  ASSERT_GE(lines.size(), 2u);
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_LE(tr.text_width(l), 150) << l;
    joined += (joined.empty() ? "" : " ") + l;
  }
  EXPECT_EQ(joined, t) << "every word, in order";
  const auto two = tr.wrap(t, 150, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], lines[0]);
  EXPECT_EQ(two[1].substr(two[1].size() - 3), "...") << "the rest elided";
  EXPECT_TRUE(tr.wrap("", 150, 3).empty());
  const auto word = tr.wrap("supercalifragilistic", 40, 3);
  ASSERT_EQ(word.size(), 1u);
  EXPECT_LE(tr.text_width(word[0]), 40);
}

TEST_F(RenderTest, ColorbarKeptInSmallViews) {
  std::vector<float> v(64 * 64);
  for (size_t k = 0; k < v.size(); ++k) v[k] = float(k % 64) * 100.0f - 1500.0f;
  PlaneView view;
  ViewSettings s;
  s.log_scale = false;
  s.label = "status (0 ok, 1 underdetermined, 2 rank-deficient, 3 all missing)";
  view.set_settings(s);
  view.set_data_host(v.data(), 64, 64);
  // A long title wraps instead of hiding the bar (it needed 800 pixels on one line).
  Image img = draw(view, 480, 320);
  test::save_png(img, "render_colorbar_long_title.png");
  auto bar = view.last_colorbar_rect();
  ASSERT_TRUE(bar) << "colorbar kept with a long title";
  const Box above{0, int(bar->y + bar->h) + 4, 480, 320};
  EXPECT_GT(count_white(img, above), 60) << "the title, wrapped, above the bar";
  // Narrow views (the window's centre at 800 x 600 and below): a compact bar.
  for (const auto& [w, h] : {std::pair{240, 540}, std::pair{160, 300}, std::pair{120, 240}}) {
    img = draw(view, w, h);
    bar = view.last_colorbar_rect();
    ASSERT_TRUE(bar) << w << " x " << h;
    const auto rect = view.last_image_rect();
    ASSERT_TRUE(rect);
    EXPECT_LE(rect->x + rect->w, bar->x) << w << " x " << h;
    EXPECT_LE(bar->x + bar->w, w);
    EXPECT_GT(count_bright(img, {int(bar->x + bar->w), 0, w, h}), 30) << "tick labels";
    if (w == 160) test::save_png(img, "render_colorbar_compact.png");
  }
}

TEST_F(RenderTest, HiddenColorbarIsAnnounced) {
  std::vector<float> v(16, 1.0f);
  PlaneView view;
  ViewSettings s;
  s.label = "|E|";
  view.set_settings(s);
  view.set_data_host(v.data(), 4, 4);
  // Wide but short: no room for a bar of 4 text heights, room for a line of text.
  Image img = draw(view, 400, 30);
  EXPECT_FALSE(view.last_colorbar_rect());
  EXPECT_GT(count_bright(img, {200, 0, 400, 30}), 40) << "the note, top right";
  // Without a colorbar asked for: no note.
  s.colorbar = false;
  view.set_settings(s);
  img = draw(view, 400, 30);
  EXPECT_EQ(count_white(img, {0, 0, 400, 30}), 0);
}

TEST_F(RenderTest, BadAnnotationsThrowAndKeepSettings) {
  PlaneView view;
  ViewSettings good;
  good.colormap = "magma";
  view.set_settings(good);
  ViewSettings s;
  s.annotations.axis_i = {"x", true, 0, std::numeric_limits<double>::infinity()};
  EXPECT_THROW(view.set_settings(s), RenderError);
  s = ViewSettings{};
  RegionLabel r;
  r.u0 = 0.5, r.u1 = 0.5;
  s.annotations.regions = {r};
  EXPECT_THROW(view.set_settings(s), RenderError);
  r.u1 = 1, r.v0 = std::nan("");
  s.annotations.regions = {r};
  EXPECT_THROW(view.set_settings(s), RenderError);
  EXPECT_EQ(view.settings().colormap, "magma");
}

}  // namespace
}  // namespace simscope::render
